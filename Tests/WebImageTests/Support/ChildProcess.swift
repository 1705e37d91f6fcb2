import Dispatch
import Foundation
import Testing
import WebImageTestServer

/// The package's executables, run as child processes by the tests that need a process of
/// their own (the command-line tool, the cache's second writer).
enum ChildProcess {
    /// What a finished child left: its exit status and what it printed.
    struct Result: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// An input larger than a pipe holds (64 KiB), which `run` refuses.
    struct InputOverPipeCapacity: Error {
        let count: Int
    }

    /// The built executable `name`, beside the test bundle (or in .build/debug).
    static func executable(_ name: String) throws -> URL {
        try #require(TestExecutable.url(name))
    }

    /// Runs `body`, which drives child processes for long (starting, waiting, killing), on a
    /// thread of its own: neither the cooperative pool nor the blocking pool that decodes wait
    /// for is held by it.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// Runs `name` with `arguments` to its end, off the cooperative pool, and returns what it
    /// left; `input`, when given (at most 64 KiB), is its standard input; `environment` is
    /// added to this process's.
    static func run(_ name: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) async throws -> Result {
        try await run(executable: try executable(name), arguments, input: input, environment: environment)
    }

    /// Runs the program at `url` (a system tool, or one of the package's executables).
    static func run(
        executable url: URL, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:]
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = url
                process.arguments = arguments
                if !environment.isEmpty {
                    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
                }
                do {
                    // The pipes opened and the child started with no other launch beside (ChildLaunch).
                    let (output, errors) = try ChildLaunch.serialized { () throws -> (Pipe, Pipe) in
                        let output = Pipe()
                        let errors = Pipe()
                        process.standardOutput = output
                        process.standardError = errors
                        if let input {
                            // More would block the write below, and every launch with it.
                            guard input.count <= 1 << 16 else { throw InputOverPipeCapacity(count: input.count) }
                            let standardInput = Pipe()
                            // Written before the child starts, into the pipe's buffer (64 KiB: plenty
                            // for a list of paths), so that a child that exits unread raises no SIGPIPE.
                            standardInput.fileHandleForWriting.write(input)
                            try standardInput.fileHandleForWriting.close()
                            process.standardInput = standardInput
                        }
                        try process.run()
                        return (output, errors)
                    }
                    // Both pipes are drained before waiting, so a chatty child never blocks on a full pipe.
                    let group = DispatchGroup()
                    // Written by the reader block, read after group.wait(): the group orders the two.
                    nonisolated(unsafe) var errorData = Data()
                    DispatchQueue.global().async(group: group) { errorData = errors.fileHandleForReading.readDataToEndOfFile() }
                    let outputData = output.fileHandleForReading.readDataToEndOfFile()
                    group.wait()
                    process.waitUntilExit()
                    continuation.resume(returning: Result(
                        status: process.terminationStatus,
                        standardOutput: String(decoding: outputData, as: UTF8.self),
                        standardError: String(decoding: errorData, as: UTF8.self)
                    ))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
