import Foundation
import Glibc
import Testing
import WebImageServer
import WebImageSupport
import WebImageTestServer

/// moto's S3-compatible server (PyPI's `moto[server]`, in the virtual environment
/// scripts/moto-venv.sh makes: /opt/moto-venv or $WEBIMAGE_TEST_MOTO_VENV) as a child process on
/// a free port of 127.0.0.1, with IAM authentication on: Tests/S3/moto_fixture.py makes an IAM
/// user and its access key with the three unauthenticated calls the server allows, then a private
/// versioned bucket and its objects with boto3 signing for that user; from then on every request
/// must carry a valid Signature Version 4. Stopped by its PID.
final class MotoServer: Sendable {
    static let venv = URL(fileURLWithPath: ProcessInfo.processInfo.environment["WEBIMAGE_TEST_MOTO_VENV"] ?? "/opt/moto-venv")
    /// Tests/S3 (this file is Tests/WebImageServerTests/Support/MotoServer.swift).
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("S3")

    let port: Int
    let credentials: AWSCredentials
    /// Version IDs of each object, oldest first.
    let versions: [String: [String]]
    let log: URL
    private let process: Process
    private let exited: AsyncStream<Int32>
    /// Whether `stop()` ran: a second call returns at once.
    private let stopped = Locked(false)

    var endpoint: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, credentials: AWSCredentials, versions: [String: [String]], log: URL, process: Process, exited: AsyncStream<Int32>) {
        (self.port, self.credentials, self.versions, self.log, self.process, self.exited) = (port, credentials, versions, log, process, exited)
    }

    /// Starts moto and fills `bucket` with `objects` (`KEY=FILE` under Tests/Images, or
    /// `KEY=@SIZE`; a key given twice gets two versions).
    fileprivate static func start(bucket: String, objects: [String]) async throws -> MotoServer {
        let server = venv.appendingPathComponent("bin/moto_server")
        try #require(FileManager.default.isExecutableFile(atPath: server.path), "moto: bash scripts/setup.sh installs it (scripts/moto-venv.sh)")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-moto-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let images = folder.deletingLastPathComponent().appendingPathComponent("Images")
        let arguments = objects.map { object -> String in
            guard let equals = object.firstIndex(of: "="), object[object.index(after: equals)] != "@" else { return object }
            return String(object[...equals]) + images.appendingPathComponent(String(object[object.index(after: equals)...])).path
        }
        // A port taken by another process between FreePort and moto's bind: another port.
        for attempt in 0..<3 {
            let port = try FreePort.next()
            let log = work.appendingPathComponent("moto-\(attempt).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = server
            process.arguments = ["-H", "127.0.0.1", "-p", "\(port)"]
            var environment = ProcessInfo.processInfo.environment
            environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
            environment["PYTHONUNBUFFERED"] = "1"
            process.environment = environment
            let exited = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
            try ChildLaunch.serialized {
                let handle = try FileHandle(forWritingTo: log)
                process.standardOutput = handle
                process.standardError = handle
                try process.run()
            }
            let listening = await eventually(within: TestAllowance.eventWait, every: .milliseconds(50)) {
                guard process.isRunning else { return true }
                return Self.text(of: log).contains("Running on")
            }
            guard listening, process.isRunning else {
                Self.kill(process, exited: exited.stream)
                continue
            }
            let output = try await Self.run(
                venv.appendingPathComponent("bin/python"),
                [folder.appendingPathComponent("moto_fixture.py").path, "http://127.0.0.1:\(port)", bucket] + arguments
            )
            struct Fixture: Decodable {
                var accessKeyID: String
                var secretAccessKey: String
                var versions: [String: [String]]
            }
            let fixture = try JSONDecoder().decode(Fixture.self, from: Data(output.utf8))
            return MotoServer(
                port: port, credentials: AWSCredentials(accessKeyID: fixture.accessKeyID, secretAccessKey: fixture.secretAccessKey),
                versions: fixture.versions, log: log, process: process, exited: exited.stream
            )
        }
        Issue.record("moto did not start")
        throw CancellationError()
    }

    /// `file`'s text, read through a FileHandle: Foundation's whole-file reads leak their 4 KB
    /// buffer on an empty file (the log before moto writes to it), which LeakSanitizer reports.
    private static func text(of file: URL) -> String {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "" }
        defer { try? handle.close() }
        return (try? handle.readToEnd()).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The GETs of `path` (`/bucket/key`, as its log writes it: decoded, no query) moto answered 200.
    func gets(of path: String) -> Int {
        let text = Self.text(of: log)
        return text.components(separatedBy: "\"GET \(path) HTTP/1.1\" 200").count - 1
    }

    /// Freezes moto (SIGSTOP): its port still accepts connections (the kernel's backlog), nothing
    /// answers them, as a store that hangs. `resume()` lets it go on with what it had.
    func pause() {
        Glibc.kill(process.processIdentifier, SIGSTOP)
    }

    /// Lets a paused moto run again (SIGCONT).
    func resume() {
        Glibc.kill(process.processIdentifier, SIGCONT)
    }

    /// Deletes every version of `key` in `bucket`.
    func delete(bucket: String, key: String) async throws {
        _ = try await Self.run(
            Self.venv.appendingPathComponent("bin/python"), [Self.folder.appendingPathComponent("moto_fixture.py").path, endpoint, "delete", bucket, key],
            environment: ["AWS_ACCESS_KEY_ID": credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": credentials.secretAccessKey]
        )
    }

    /// What `program arguments` printed; it must exit 0 (else its standard error is recorded).
    private static func run(_ program: URL, _ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        let (output, errors) = try ChildLaunch.serialized { () throws -> (Pipe, Pipe) in
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            return (output, errors)
        }
        let (outputHandle, errorHandle) = (output.fileHandleForReading, errors.fileHandleForReading)
        async let errorText = Task.detached { errorHandle.readDataToEndOfFile() }.value
        let data = await Task.detached { outputHandle.readDataToEndOfFile() }.value
        var statuses = exited.stream.makeAsyncIterator()
        let status = await statuses.next()
        let stderr = await errorText
        guard status == 0 else {
            Issue.record("\(program.lastPathComponent) \(arguments.joined(separator: " ")): exit \(status ?? -1): \(String(decoding: stderr, as: UTF8.self))")
            throw CancellationError()
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func kill(_ process: Process, exited: AsyncStream<Int32>) {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Stops moto by its PID (SIGKILL: it holds nothing that needs a clean stop; a child of the
    /// test runner may start with SIGTERM blocked) and waits for it to exit; once (a test that
    /// stops the store mid-run leaves `withMoto`'s stop nothing to do).
    func stop() async {
        guard stopped.withLock({ stopped in defer { stopped = true }; return !stopped }) else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        var iterator = exited.makeAsyncIterator()
        _ = await iterator.next()
        try? FileManager.default.removeItem(at: log.deletingLastPathComponent())
    }
}

/// Runs `body` with moto serving `bucket` (see `MotoServer.start`), then stops it, also when
/// `body` throws.
func withMoto<T>(
    bucket: String, objects: [String], isolation: isolated (any Actor)? = #isolation, _ body: (MotoServer) async throws -> T
) async throws -> T {
    try await withScoped(try await MotoServer.start(bucket: bucket, objects: objects), release: { await $0.stop() }, body)
}
