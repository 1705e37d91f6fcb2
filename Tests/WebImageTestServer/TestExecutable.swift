import Foundation

/// The package's executables (`webimage`, the tests' helper processes), for tests that run one
/// as a child process.
public enum TestExecutable {
    /// The built executable `name`: beside the running test bundle, else in `.build/debug`; nil
    /// when neither holds it.
    public static func url(_ name: String) -> URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent(name),
            // Tests/WebImageTestServer/TestExecutable.swift → the package folder.
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/\(name)"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
