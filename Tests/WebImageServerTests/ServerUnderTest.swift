import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import ServiceLifecycle
import Testing
@testable import WebImageServer

/// A real image server on 127.0.0.1 (an ephemeral port) in this process, with a fresh cache
/// folder, and a client to ask it.
final class ServerUnderTest: Sendable {
    let port: Int
    let cacheFolder: String
    private let task: Task<Void, any Error>
    static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    /// Starts a server with `configure` applied to a default configuration (bound to port 0, a
    /// new cache folder), parsing with the configuration's imgproxy parser.
    static func start(
        metrics: (any MetricsFactory)? = nil,
        configure: (inout ImageServerConfiguration) -> Void = { _ in }
    ) async throws -> ServerUnderTest {
        var configuration = ImageServerConfiguration()
        configuration.bind = ServerAddress(host: "127.0.0.1", port: 0)
        configuration.cacheDirectory = FileManager.default.temporaryDirectory.path + "/webimage-server-tests-" + UUID().uuidString
        configure(&configuration)
        let parser = try configuration.makeParser()
        let ports = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "server-under-test")
        logger.logLevel = .error
        let application = try ImageServer.makeApplication(
            configuration: configuration, parser: parser, metricsFactory: metrics, logger: logger, onListening: { ports.continuation.yield($0) }
        )
        let task = Task {
            let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
            try await group.run()
        }
        var iterator = ports.stream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return ServerUnderTest(port: port, cacheFolder: configuration.cacheDirectory, task: task)
    }

    private init(port: Int, cacheFolder: String, task: Task<Void, any Error>) {
        self.port = port
        self.cacheFolder = cacheFolder
        self.task = task
    }

    /// What a GET of `path` brought: status, headers, body.
    struct Reply: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// GETs `path`, with `headers`; `deadline` bounds the whole exchange (the client then goes).
    func get(_ path: String, headers: [String: String] = [:], deadline: TimeAmount = .seconds(60)) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await Self.client.execute(request, timeout: deadline)
        let body = try await response.body.collect(upTo: 64 << 20)
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name.lowercased()] = value }
        return Reply(status: Int(response.status.code), headers: fields, body: Data(buffer: body))
    }

    /// Stops the server and removes its cache folder.
    func stop() async {
        await stopKeepingCache()
        try? FileManager.default.removeItem(atPath: cacheFolder)
    }

    /// Stops the server; its cache folder stays for another.
    func stopKeepingCache() async {
        task.cancel()
        _ = await task.result
    }
}
