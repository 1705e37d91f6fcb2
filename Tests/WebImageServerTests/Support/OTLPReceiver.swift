import Foundation
import Glibc
import Testing
import WebImageTestServer

/// An OTLP/HTTP trace receiver on a port of 127.0.0.1 (Tests/OTLP/otlp_receiver.py, decoding
/// with PyPI's `opentelemetry-proto` in the virtual environment scripts/otlp-venv.sh makes:
/// /opt/otlp-venv or $WEBIMAGE_TEST_OTLP_VENV), as a child process; the spans it was sent, one
/// JSON line each in a file. Stopped by its PID.
final class OTLPReceiver: Sendable {
    static let venv = URL(fileURLWithPath: ProcessInfo.processInfo.environment["WEBIMAGE_TEST_OTLP_VENV"] ?? "/opt/otlp-venv")
    /// Tests/OTLP/otlp_receiver.py (this file is Tests/WebImageServerTests/Support/OTLPReceiver.swift).
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("OTLP/otlp_receiver.py")

    /// A span as the receiver decoded it.
    struct Span: Decodable, Sendable {
        var path: String
        var contentType: String
        var service: String
        var name: String
        /// OTLP's span kind: 1 internal, 2 server, 3 client.
        var kind: Int
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var attributes: [String: String]
    }

    let port: Int
    private let folder: URL
    private let process: Process
    private let exited: AsyncStream<Int32>

    var endpoint: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, folder: URL, process: Process, exited: AsyncStream<Int32>) {
        (self.port, self.folder, self.process, self.exited) = (port, folder, process, exited)
    }

    fileprivate static func start() async throws -> OTLPReceiver {
        let python = venv.appendingPathComponent("bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "OTLP receiver: bash scripts/setup.sh installs it (scripts/otlp-venv.sh)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-otlp-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portFile = folder.appendingPathComponent("port")
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path, portFile.path, folder.appendingPathComponent("spans.jsonl").path]
        process.standardOutput = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try ChildLaunch.serialized { try process.run() }
        // The receiver binds a port of its own choosing and names it in a file renamed into place.
        let listening = await eventually(within: TestAllowance.eventWait, every: .milliseconds(20)) {
            !process.isRunning || FileManager.default.fileExists(atPath: portFile.path)
        }
        let receiver = OTLPReceiver(port: 0, folder: folder, process: process, exited: exited.stream)
        guard listening, process.isRunning, let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) else {
            await receiver.stop()
            Issue.record("the OTLP receiver did not start")
            throw CancellationError()
        }
        return OTLPReceiver(port: port, folder: folder, process: process, exited: exited.stream)
    }

    /// The spans received so far.
    var spans: [Span] {
        guard let handle = try? FileHandle(forReadingFrom: folder.appendingPathComponent("spans.jsonl")) else { return [] }
        defer { try? handle.close() }
        let data = (try? handle.readToEnd()).flatMap { $0 } ?? Data()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONDecoder().decode(Span.self, from: Data($0)) }
    }

    /// Stops the receiver by its PID and waits for it to exit.
    fileprivate func stop() async {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        var iterator = exited.makeAsyncIterator()
        _ = await iterator.next()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Runs `body` with an OTLP/HTTP receiver listening, then stops it, also when `body` throws.
func withOTLPReceiver<T>(isolation: isolated (any Actor)? = #isolation, _ body: (OTLPReceiver) async throws -> T) async throws -> T {
    try await withScoped(try await OTLPReceiver.start(), release: { await $0.stop() }, body)
}
