import Foundation
import Testing
import WebImageTestServer

/// `webimage` as a child process (or another program): a command run to its end, or
/// `webimage serve` running until the test signals it.
final class ServeProcess: Sendable {
    let port: Int
    private let process: Process
    private let exited: AsyncStream<Int32>

    /// What `webimage arguments` (or the program at `executable`), with `environment` over this
    /// process's, printed on standard output; the command must exit 0. Its standard error is dropped.
    static func output(of arguments: [String], executable: URL? = nil, environment: [String: String] = [:]) async throws -> String {
        let process = Process()
        let program: URL = try executable ?? #require(TestExecutable.url("webimage"))
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardError = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        let output = try ChildLaunch.serialized { () throws -> Pipe in
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            return output
        }
        var data = Data()
        for await chunk in Self.chunks(of: output.fileHandleForReading) { data.append(chunk) }
        var statuses = exited.stream.makeAsyncIterator()
        #expect(await statuses.next() == 0)
        return String(decoding: data, as: UTF8.self)
    }

    /// `webimage arguments` run in `folder` (with `environment` over this process's) to its end:
    /// its exit status, standard error, and the CPU time it took, its children's (a renderer's)
    /// included.
    static func run(
        _ arguments: [String], in folder: URL, environment: [String: String] = [:]
    ) async throws -> (status: Int32, standardError: String, cpuTime: Duration) {
        let process = Process()
        let program: URL = try #require(TestExecutable.url("webimage"))
        // Through a shell whose `times` writes, last, the CPU time its children took (the
        // command's, and the renderer's it waited for), user then system.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\"$0\" \"$@\"; status=$?; times >&2; exit $status", program.path] + arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        let errors = try ChildLaunch.serialized { () throws -> Pipe in
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            return errors
        }
        var data = Data()
        for await chunk in Self.chunks(of: errors.fileHandleForReading) { data.append(chunk) }
        var statuses = exited.stream.makeAsyncIterator()
        let status = await statuses.next() ?? -1
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        // `times`: the shell's own line, then its children's: "0m5.120000s 0m0.180000s".
        let children = lines.popLast() ?? ""
        _ = lines.popLast()
        let seconds = children.split(separator: " ").compactMap { field -> Double? in
            let parts = field.dropLast().split(separator: "m")
            guard parts.count == 2, let minutes = Double(parts[0]), let rest = Double(parts[1]) else { return nil }
            return minutes * 60 + rest
        }
        #expect(seconds.count == 2, "the shell's times: \(children)")
        return (status, lines.joined(separator: "\n"), .milliseconds(Int((seconds.reduce(0, +) * 1000).rounded())))
    }

    /// Starts `webimage serve` on 127.0.0.1 (an ephemeral port) with `settings` (or the package's
    /// executable `program` with `settings` as its arguments, which says where it listens alike),
    /// and returns once it listens (the port read from its log line).
    fileprivate static func serve(_ settings: [String], environment: [String: String], program name: String = "webimage") async throws -> ServeProcess {
        let process = Process()
        let program: URL = try #require(TestExecutable.url(name))
        process.executableURL = program
        process.arguments = name == "webimage" ? ["serve", "--bind", "127.0.0.1:0"] + settings : settings
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = {
            exited.continuation.yield($0.terminationStatus)
            exited.continuation.finish()
        }
        let log = try ChildLaunch.serialized { () throws -> Pipe in
            let log = Pipe()
            process.standardError = log
            process.standardOutput = log
            try process.run()
            return log
        }
        // The log line: "... webimage serve: listening on http://127.0.0.1:PORT".
        var seen = ""
        var port: Int?
        var chunks = Self.chunks(of: log.fileHandleForReading).makeAsyncIterator()
        while port == nil, let chunk = await chunks.next() {
            seen += String(decoding: chunk, as: UTF8.self)
            if let range = seen.range(of: "listening on http://127.0.0.1:") {
                port = Int(seen[range.upperBound...].prefix { $0.isNumber })
            }
        }
        guard let port else {
            // Not left running when the test gives up on it (a cancelled wait ends the loop too).
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            Issue.record("\(name) did not start: \(seen)")
            throw CancellationError()
        }
        // The rest of the log is read as it comes, so that the child never blocks on a full pipe,
        // and its lines kept (the newest thousand) for `logLines`.
        let (lines, kept) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        Task { [seen] in
            var pending = String(seen[(seen.lastIndex(of: "\n").map { seen.index(after: $0) } ?? seen.endIndex)...])
            while let chunk = await chunks.next() {
                pending += String(decoding: chunk, as: UTF8.self)
                while let end = pending.firstIndex(of: "\n") {
                    kept.yield(String(pending[..<end]))
                    pending = String(pending[pending.index(after: end)...])
                }
            }
            kept.finish()
        }
        return ServeProcess(port: port, process: process, exited: exited.stream, logLines: lines)
    }

    private init(port: Int, process: Process, exited: AsyncStream<Int32>, logLines: AsyncStream<String>) {
        self.port = port
        self.process = process
        self.exited = exited
        self.logLines = logLines
    }

    /// The lines the server writes after the one that says where it listens, as they come (one
    /// reader).
    let logLines: AsyncStream<String>

    /// The server's process ID (for its /proc entries).
    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends `signal` to the server.
    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// The server's exit status, once it exited (nil when it was read before).
    func exitStatus() async -> Int32? {
        var iterator = exited.makeAsyncIterator()
        return await iterator.next()
    }

    /// Kills the server unless it exited, and waits until it has.
    fileprivate func stop() async {
        if process.isRunning { signal(SIGKILL) }
        _ = await exitStatus()
    }

    /// What `handle` delivers, read on a thread of its own until its end.
    private static func chunks(of handle: FileHandle) -> AsyncStream<Data> {
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        Thread.detachNewThread {
            while case let data = handle.availableData, !data.isEmpty { continuation.yield(data) }
            continuation.finish()
        }
        return stream
    }
}

/// Runs `body` with `webimage serve` started with `settings` (see `ServeProcess.serve`), in this
/// process's environment with `environment` on top, then kills it unless it exited and awaits
/// its exit, also when `body` throws.
func withServeProcess<T>(
    _ settings: [String], environment: [String: String] = [:], program: String = "webimage", isolation: isolated (any Actor)? = #isolation,
    _ body: (ServeProcess) async throws -> T
) async throws -> T {
    try await withScoped(try await ServeProcess.serve(settings, environment: environment, program: program), release: { await $0.stop() }, body)
}
