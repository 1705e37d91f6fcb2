import Foundation
import WebImageSupport
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A real HTTP/1.1 server on 127.0.0.1 (or other loopback addresses), on a port the system
/// picks, for tests and benchmarks of
/// everything that fetches: it serves the repository's test images and injects faults per request
/// (see `TestServerRoutes` for the routes and query parameters), optionally over TLS with a
/// self-signed certificate, and counts what it saw.
public final class TestServer: Sendable {
    /// What the server saw so far.
    public struct Statistics: Sendable {
        /// Requests received, by path (without the query).
        public var requests: [String: Int] = [:]
        /// The requests themselves, by path, in arrival order.
        public var requestLog: [String: [TestRequest]] = [:]
        /// Responses whose connection closed before the whole body was sent, by path.
        public var abortedResponses: [String: Int] = [:]
        /// Responses sent whole, by path.
        public var completedResponses: [String: Int] = [:]
        /// 304 Not Modified answers (to `If-None-Match` or `If-Modified-Since`), by path.
        public var notModifiedResponses: [String: Int] = [:]
        /// Connections open now.
        public var openConnections = 0
        /// The most connections open at once.
        public var maxOpenConnections = 0
        /// Requests being answered now.
        public var requestsInFlight = 0
        /// The most requests answered at once.
        public var maxRequestsInFlight = 0
        /// Requests to any path.
        public var totalRequests: Int { requests.values.reduce(0, +) }
    }

    /// The port, the same on every address.
    public let port: Int
    /// True when the server speaks TLS.
    public let usesTLS: Bool
    /// The addresses it listens on; `url(_:)` uses the first.
    public let addresses: [String]
    private let channels: [any Channel]
    /// The server's own event loops: what it does (reading files, hashing them, pacing bodies)
    /// never waits behind the clients' work or another test's server, so its timing holds while
    /// the whole suite runs.
    private let group: MultiThreadedEventLoopGroup
    let core: TestServerCore

    private init(port: Int, usesTLS: Bool, addresses: [String], channels: [any Channel], group: MultiThreadedEventLoopGroup, core: TestServerCore) {
        self.port = port
        self.usesTLS = usesTLS
        self.addresses = addresses
        self.channels = channels
        self.group = group
        self.core = core
    }

    /// The repository's test images (`Tests/Images`, or `$WEBIMAGE_TEST_DATA`).
    public static let imagesFolder: URL = {
        if let path = ProcessInfo.processInfo.environment["WEBIMAGE_TEST_DATA"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        // Tests/WebImageTestServer/TestServer.swift -> repository root -> Tests/Images
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Images")
    }()

    /// Starts a server listening on `addresses` (loopback ones: `127.0.0.2`, `::1`...), all on
    /// one port, with `threads` event-loop threads of its own; with `tls`, it speaks HTTPS with a
    /// self-signed certificate (for 127.0.0.1), and offers HTTP/2 (ALPN `h2`) besides HTTP/1.1.
    public static func start(tls: Bool = false, addresses: [String] = ["127.0.0.1"], threads: Int = 1) async throws -> TestServer {
        var tlsConfiguration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(TestServerCertificate.certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(TestServerCertificate.privateKeyPEM.utf8), format: .pem))
        )
        tlsConfiguration.applicationProtocols = ["h2", "http/1.1"]
        let sslContext = tls ? try NIOSSLContext(configuration: tlsConfiguration) : nil
        let core = TestServerCore(imagesFolder: imagesFolder)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                core.track(channel)
                guard let sslContext else {
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(TestServerHandler(core: core, countsConnection: true))
                    }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                }.flatMap {
                    channel.configureHTTP2SecureUpgrade(h2ChannelConfigurator: { connection in
                        connection.eventLoop.makeCompletedFuture {
                            try connection.pipeline.syncOperations.addHandler(TestServerConnectionCounter(core: core))
                        }.flatMap {
                            connection.configureHTTP2Pipeline(mode: .server) { stream in
                                stream.eventLoop.makeCompletedFuture {
                                    try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                    try stream.pipeline.syncOperations.addHandler(TestServerHandler(core: core, countsConnection: false))
                                }
                            }.map { _ in }
                        }
                    }, http1ChannelConfigurator: { connection in
                        connection.eventLoop.makeCompletedFuture {
                            try connection.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                            try connection.pipeline.syncOperations.addHandler(TestServerHandler(core: core, countsConnection: true))
                        }
                    })
                }
            }
        let addresses = addresses.isEmpty ? ["127.0.0.1"] : addresses
        var channels: [any Channel] = []
        do {
            var port = 0
            for address in addresses {
                let channel = try await bootstrap.bind(host: address, port: port).get()
                channels.append(channel)
                guard let bound = channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
                port = bound
            }
            return TestServer(port: port, usesTLS: tls, addresses: addresses, channels: channels, group: group, core: core)
        } catch {
            for channel in channels { try? await channel.close() }
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// The address of `path` (which may carry a query) on this server, at its first address.
    public func url(_ path: String) -> URL {
        url(path, host: addresses[0].contains(":") ? "[\(addresses[0])]" : addresses[0])
    }

    /// The address of `path` on this server's port at `host` (a name, an IPv4 literal or a
    /// bracketed IPv6 one), whatever that host reaches.
    public func url(_ path: String, host: String) -> URL {
        // A path and query made by the tests: always a valid URL.
        URL(string: "\(usesTLS ? "https" : "http")://\(host):\(port)\(path.hasPrefix("/") ? "" : "/")\(path)")
            ?? URL(fileURLWithPath: "/invalid-test-path")
    }

    /// Answers `path` with `handler` instead of the built-in routes; the query parameters still
    /// shape the delivery.
    public func route(_ path: String, _ handler: @escaping @Sendable (TestRequest) -> TestResponse) {
        core.setRoute(path, handler)
    }

    /// Answers `path` with `body` (chunked): its first half at once, the rest once `gate` opens:
    /// a response held at the origin for as long as the test decides. Returns the gate.
    @discardableResult
    public func routeHeld(_ path: String, body: [UInt8], type: String, until gate: TestGate = TestGate()) -> TestGate {
        route(path) { _ in
            var response = TestResponse.content(body, type: type)
            response.chunked = true
            response.chunkSize = (body.count + 1) / 2
            response.gate = gate
            return response
        }
        return gate
    }

    /// A snapshot of what the server saw.
    public var statistics: Statistics { core.statistics }

    /// Requests received for `path`.
    public func requestCount(_ path: String) -> Int { core.statistics.requests[path] ?? 0 }

    /// Waits until `condition` holds for the statistics (checked on every change); false when
    /// `timeout` (stretched by `TestAllowance.timeScale`) passes first. What the server sees
    /// of a client (a request, a close) comes in milliseconds: the default bound is a hang guard
    /// (`TestAllowance.eventWait`).
    @discardableResult
    public func wait(timeout: Duration = TestAllowance.eventWait, until condition: @escaping @Sendable (Statistics) -> Bool) async -> Bool {
        await core.wait(timeout: timeout, until: condition)
    }

    /// Stops accepting connections, closes the listening socket and every connection still open
    /// (answers held by a gate end there), and drops the routes (whose handlers may hold gates).
    public func shutdown() async {
        for channel in channels { try? await channel.close() }
        for connection in core.openChannels() {
            try? await connection.close()
        }
        core.removeRoutes()
        try? await group.shutdownGracefully()
    }
}

/// The server's shared state: routes, statistics and waiters.
final class TestServerCore: Sendable {
    private struct Waiter {
        let condition: @Sendable (TestServer.Statistics) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var statistics = TestServer.Statistics()
        var routes: [String: @Sendable (TestRequest) -> TestResponse] = [:]
        var attempts: [String: Int] = [:]
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    let imagesFolder: URL
    private let state = Locked(State())

    init(imagesFolder: URL) {
        self.imagesFolder = imagesFolder
    }

    var statistics: TestServer.Statistics { state.withLock { $0.statistics } }

    func setRoute(_ path: String, _ handler: @escaping @Sendable (TestRequest) -> TestResponse) {
        state.withLock { $0.routes[path] = handler }
    }

    func removeRoutes() {
        state.withLock { $0.routes = [:] }
    }

    /// Keeps an accepted connection until it closes, for `shutdown`.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { $0.channels[id] = channel }
        channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.channels.removeValue(forKey: id) } }
    }

    func openChannels() -> [any Channel] {
        state.withLock { Array($0.channels.values) }
    }

    /// Records a request and returns it with its attempt number and the answer.
    func receive(method: String, uri: String, headers: [(String, String)]) -> (TestRequest, TestResponse) {
        let components = URLComponents(string: uri)
        let path = components?.path ?? uri
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let (request, handler) = update { state -> (TestRequest, (@Sendable (TestRequest) -> TestResponse)?) in
            state.attempts[uri, default: 0] += 1
            let request = TestRequest(
                method: method, path: path, query: query, headers: headers, attempt: state.attempts[uri] ?? 1, receivedAt: Date()
            )
            state.statistics.requests[path, default: 0] += 1
            state.statistics.requestLog[path, default: []].append(request)
            state.statistics.requestsInFlight += 1
            state.statistics.maxRequestsInFlight = max(state.statistics.maxRequestsInFlight, state.statistics.requestsInFlight)
            return (request, state.routes[path])
        }
        var response: TestResponse
        if let handler {
            response = handler(request)
            TestServerRoutes.applyDelivery(query, attempt: request.attempt, to: &response)
        } else {
            response = TestServerRoutes.response(for: request, imagesFolder: imagesFolder)
        }
        if response.status == 304 { update { $0.statistics.notModifiedResponses[path, default: 0] += 1 } }
        return (request, response)
    }

    func responseEnded(path: String, completed: Bool) {
        update { state in
            state.statistics.requestsInFlight -= 1
            if completed {
                state.statistics.completedResponses[path, default: 0] += 1
            } else {
                state.statistics.abortedResponses[path, default: 0] += 1
            }
        }
    }

    func connectionOpened() {
        update { state in
            state.statistics.openConnections += 1
            state.statistics.maxOpenConnections = max(state.statistics.maxOpenConnections, state.statistics.openConnections)
        }
    }

    func connectionClosed() {
        update { $0.statistics.openConnections -= 1 }
    }

    func wait(timeout: Duration, until condition: @escaping @Sendable (TestServer.Statistics) -> Bool) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task {
            try? await Task.sleep(for: TestAllowance.time(timeout))
            self.resumeWaiter(id, with: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let satisfied = state.withLock { state -> Bool in
                if condition(state.statistics) { return true }
                state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                return false
            }
            if satisfied { continuation.resume(returning: true) }
        }
    }

    private func resumeWaiter(_ id: UInt64, with value: Bool) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: value)
    }

    /// Changes the state, then resumes the waiters whose condition now holds.
    @discardableResult
    private func update<T>(_ body: (inout State) -> T) -> T {
        let (result, ready) = state.withLock { state -> (T, [Waiter]) in
            let result = body(&state)
            let statistics = state.statistics
            let ready = state.waiters.filter { $0.value.condition(statistics) }
            for id in ready.keys { state.waiters[id] = nil }
            return (result, Array(ready.values))
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
        return result
    }
}
