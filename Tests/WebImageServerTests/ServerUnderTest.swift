import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore

/// A real image server on 127.0.0.1 (an ephemeral port) in this process, with a fresh cache
/// folder, and a client to ask it.
final class ServerUnderTest: Sendable {
    let port: Int
    let cacheFolder: String
    private let task: Task<Void, any Error>
    /// Up to 64 connections to a server at once, each waited for up to 60 s (a busy machine).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(60)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        // Idle connections closed by the client well before the server's KEEP_ALIVE_TIMEOUT (10 s
        // by default): a connection taken from the pool as the server closes it fails the request
        // with `remoteConnectionClosed` (AsyncHTTPClient does not retry it), which a whole-suite
        // ThreadSanitizer run saw once.
        configuration.connectionPool.idleTimeout = .seconds(4)
        // No tracer of its own: made inside a test's `withTracer`, it would keep that tracer.
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Starts a server with `configuration`, parsing with the configuration's imgproxy parser.
    fileprivate static func start(
        _ configuration: ImageServerConfiguration, metrics: (any MetricsFactory)?, downloader: ImageDownloader?
    ) async throws -> ServerUnderTest {
        let parser = try configuration.makeParser()
        return try await serve(cacheFolder: configuration.cacheDirectory) { logger, onListening in
            try ImageServer.makeApplication(
                configuration: configuration, parser: parser, downloader: downloader, metricsFactory: metrics, logger: logger,
                onListening: onListening
            )
        }
    }

    /// Runs the application `make` gives (with a logger and the callback it must call with its
    /// port once listening) until `stop`; `cacheFolder` is removed then.
    fileprivate static func serve(
        cacheFolder: String,
        _ make: (Logger, @escaping @Sendable (Int) async -> Void) throws -> some ApplicationProtocol
    ) async throws -> ServerUnderTest {
        let ports = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "server-under-test")
        logger.logLevel = .error
        let application = try make(logger) { ports.continuation.yield($0) }
        let task = Task {
            let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
            try await group.run()
        }
        var iterator = ports.stream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return ServerUnderTest(port: port, cacheFolder: cacheFolder, task: task)
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
        try await Self.get(path, port: port, headers: headers, deadline: deadline)
    }

    /// GETs `path` from the server on 127.0.0.1 at `port`.
    static func get(_ path: String, port: Int, headers: [String: String] = [:], deadline: TimeAmount = .seconds(60)) async throws -> Reply {
        try await request(path, method: "GET", port: port, headers: headers, deadline: deadline)
    }

    /// Asks for `path` with `method` (`GET`, `HEAD`, …) from the server on 127.0.0.1 at `port`.
    static func request(
        _ path: String, method: String, port: Int, headers: [String: String] = [:], deadline: TimeAmount = .seconds(60)
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: deadline)
        let body = try await response.body.collect(upTo: 64 << 20)
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name.lowercased()] = value }
        return Reply(status: Int(response.status.code), headers: fields, body: Data(buffer: body))
    }

    /// Stops the server and removes its cache folder.
    fileprivate func stop() async {
        await stopKeepingCache()
        try? FileManager.default.removeItem(atPath: cacheFolder)
    }

    /// Stops the server; its cache folder stays for another.
    fileprivate func stopKeepingCache() async {
        task.cancel()
        _ = await task.result
    }
}

extension ImageServerConfiguration {
    /// A server under test's: 127.0.0.1 on a port the system picks, a fresh cache folder, and
    /// time limits of 60 s, which a suite run on a busy machine does not reach (the tests of
    /// the limits set their own); `configure` applied last.
    static func underTest(_ configure: (inout ImageServerConfiguration) -> Void = { _ in }) -> ImageServerConfiguration {
        var configuration = ImageServerConfiguration()
        configuration.bind = ServerAddress(host: "127.0.0.1", port: 0)
        configuration.cacheDirectory = FileManager.default.temporaryDirectory.path + "/webimage-server-tests-" + UUID().uuidString
        configuration.timeout = 60
        configuration.downloadTimeout = 60
        configure(&configuration)
        return configuration
    }

    /// The same, allowed to fetch from loopback origins (the test server).
    static func fetchingFromLoopback(_ configure: (inout ImageServerConfiguration) -> Void = { _ in }) -> ImageServerConfiguration {
        underTest { configuration in
            configuration.allowsLoopbackSourceAddresses = true
            configure(&configuration)
        }
    }
}

/// Runs `body` with a server started with `configuration` (counting with `metrics`, fetching
/// with `downloader`), then awaits its stop, also when `body` throws; its cache folder is
/// removed then, unless `keepingCache` (for a restart on it).
func withRunningServer<T>(
    _ configuration: ImageServerConfiguration = .underTest(), metrics: (any MetricsFactory)? = nil,
    downloader: ImageDownloader? = nil, keepingCache: Bool = false, isolation: isolated (any Actor)? = #isolation,
    _ body: (ServerUnderTest) async throws -> T
) async throws -> T {
    let server = try await ServerUnderTest.start(configuration, metrics: metrics, downloader: downloader)
    return try await withScoped(server, release: { server in
        if keepingCache { await server.stopKeepingCache() } else { await server.stop() }
    }, body)
}

/// Runs `body` with the application `make` gives (a Hummingbird application mounting the image
/// routes; see `ServerUnderTest.serve`), then awaits its stop, also when `body` throws;
/// `cacheFolder` is removed then.
func withRunningApplication<T>(
    cacheFolder: String, _ make: (Logger, @escaping @Sendable (Int) async -> Void) throws -> some ApplicationProtocol,
    body: (ServerUnderTest) async throws -> T
) async throws -> T {
    try await withScoped(try await ServerUnderTest.serve(cacheFolder: cacheFolder, make), release: { await $0.stop() }, body)
}

extension ProcessingConfiguration {
    /// The defaults with WebP and AVIF negotiated by `Accept` (`AUTO_WEBP`, `AUTO_AVIF`: off by
    /// default, as in imgproxy).
    static var negotiating: ProcessingConfiguration {
        var configuration = ProcessingConfiguration()
        (configuration.autoWebP, configuration.autoAVIF) = (true, true)
        return configuration
    }
}
