import Foundation
import Testing
import WebImageTestSupport

/// libvips' operations are named only inside ImageEngine: the other targets run them through
/// `VipsImageRef`'s typed methods, never by an operation name with options in libvips' string
/// form (`call("composite2", ..., "mode=over")`). (`FilterTransformer` hands on the operation
/// its caller names: a variable, not a name of ours.)
@Suite("Architecture: libvips operations are typed", .offThePool)
struct TypedLibvipsOperationsTests {
    @Test func noTargetButImageEngineCallsALibvipsOperationByName() throws {
        // Tests/WebImageTests/<folder>/this file -> the package's Sources.
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        let targets = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0 != "ImageEngine" }
        #expect(targets.contains("WebImage"))
        var scanned = 0
        var named: [String] = []
        for target in targets.sorted() {
            let folder = sources.appendingPathComponent(target)
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
            for file in files where file.pathExtension == "swift" {
                scanned += 1
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    if line.contains(#/\bcall\(\s*"/#) {
                        named.append("\(target)/\(file.path.dropFirst(folder.path.count + 1)):\(number + 1)")
                    }
                }
            }
        }
        #expect(scanned > 100)
        #expect(named.isEmpty, "libvips operations called by name:\n\(named.joined(separator: "\n"))")
    }
}
