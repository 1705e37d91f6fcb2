import Foundation
import WebImageTestServer
import Testing

/// nginx as a child process in front of servers on 127.0.0.1, configured from
/// scripts/scale-out.nginx.conf in a folder of its own (its cache, logs and temporary files),
/// in the foreground and as one process (`daemon off; master_process off;`): it runs as whoever
/// runs the tests, root or not, and stops with its test.
final class NginxProcess: Sendable {
    static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")
    /// scripts/scale-out.nginx.conf (this file is Tests/WebImageServerTests/Support/NginxProcess.swift).
    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/scale-out.nginx.conf")

    let port: Int
    let folder: URL
    private let process: Process
    private let exited: AsyncStream<Int32>

    private init(port: Int, folder: URL, process: Process, exited: AsyncStream<Int32>) {
        self.port = port
        self.folder = folder
        self.process = process
        self.exited = exited
    }

    /// Starts nginx on a free port of 127.0.0.1 with `upstreams` (ports of 127.0.0.1), its files
    /// in `folder`, its own cache in front of them when `caches`, and returns once it answers
    /// `/health` (which it passes to a server).
    fileprivate static func start(upstreams: [Int], folder: URL, caches: Bool) async throws -> NginxProcess {
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "nginx: bash scripts/setup.sh installs it")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let template = try String(contentsOf: template, encoding: .utf8)
        // A port taken by another process between FreePort and nginx's bind: another port.
        for _ in 0..<3 {
            let port = try FreePort.next()
            let configuration = template.replacingOccurrences(of: "@PREFIX@", with: folder.path)
                .replacingOccurrences(of: "@PORT@", with: "\(port)")
                .replacingOccurrences(of: "@UPSTREAMS@", with: upstreams.map { "server 127.0.0.1:\($0);" }.joined(separator: " "))
                .replacingOccurrences(of: "@PROXY_CACHE@", with: caches ? "images" : "off")
            let file = folder.appendingPathComponent("nginx.conf")
            try configuration.write(to: file, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                "-p", folder.path, "-c", file.path, "-e", folder.appendingPathComponent("error.log").path,
                "-g", "daemon off; master_process off;",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let exited = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
            try ChildLaunch.serialized { try process.run() }
            let nginx = NginxProcess(port: port, folder: folder, process: process, exited: exited.stream)
            if await nginx.answers() { return nginx }
            await nginx.stop()
        }
        let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        Issue.record("nginx did not start: \(log)")
        throw CancellationError()
    }

    /// Whether nginx answers `/health` within 30 s (polled: nginx says nothing when it listens),
    /// false at once when it exited.
    private func answers() async -> Bool {
        let answered = await eventually(within: TestAllowance.eventWait, every: .milliseconds(50)) {
            // Exited: no use waiting.
            guard process.isRunning else { return true }
            return (try? await ServerUnderTest.get("/health", port: port, deadline: .seconds(5)))?.status == 200
        }
        return answered && process.isRunning
    }

    /// Stops nginx and waits for it to exit. SIGKILL: a child of the test runner starts with its
    /// thread's blocked signals (SIGTERM among them; Process keeps the mask), and nginx as one
    /// process never unblocks them. It holds nothing that needs a clean stop here.
    fileprivate func stop() async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        var iterator = exited.makeAsyncIterator()
        _ = await iterator.next()
    }
}

/// Runs `body` with nginx in front of `upstreams` (see `NginxProcess.start`), then awaits its
/// stop, also when `body` throws.
func withNginx<T>(
    upstreams: [Int], folder: URL, caches: Bool = true, isolation: isolated (any Actor)? = #isolation, _ body: (NginxProcess) async throws -> T
) async throws -> T {
    try await withScoped(try await NginxProcess.start(upstreams: upstreams, folder: folder, caches: caches), release: { await $0.stop() }, body)
}
