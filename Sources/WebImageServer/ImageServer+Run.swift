import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import Tracing
import WebImage

extension ImageServer {
    /// The HTTP application `run` serves: the image routes at the root, listening on `bind`,
    /// fetching with `downloader` (nil: `makeDownloader(configuration:)`).
    public static func makeApplication(
        configuration: ImageServerConfiguration, parser: any ImageRequestParser, downloader: ImageDownloader? = nil,
        metricsFactory: (any MetricsFactory)? = nil,
        logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let server = try ImageServer(
            configuration: configuration, parser: parser,
            downloader: downloader ?? makeDownloader(configuration: configuration, metricsFactory: metricsFactory),
            metricsFactory: metricsFactory
        )
        return application(serving: server, logger: logger, onListening: onListening)
    }

    /// The HTTP application serving `server`'s routes at the root (`makeApplication`); once it
    /// listens, and `otherServersListen` has returned, it says so and calls `onListening`.
    private static func application(
        serving server: ImageServer, logger: Logger, otherServersListen: @escaping @Sendable () async -> Void = {},
        onListening: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let configuration = server.configuration
        let watches = ClientGoneWatches()
        return Application(
            // Traced when a tracer is in force: the one `webimage serve` bootstraps, or a task's.
            responder: ImageServerResponder(server: server, watches: watches, traces: !(InstrumentationSystem.tracer is NoOpTracer)),
            server: .http1(configuration: httpConfiguration(configuration, logger: logger, metrics: server.metrics, watches: watches)),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.bind.host, port: configuration.bind.port), serverName: "webimage",
                availableConnectionsDelegate: configuration.maxClients > 0 ? MaximumAvailableConnections(configuration.maxClients) : nil
            ),
            // Before the HTTP server, which the application puts last: stopped after it.
            services: [server],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.bind.port
                await otherServersListen()
                logger.notice("webimage serve: listening on http://\(configuration.bind.host):\(port)")
                await onListening(port)
            },
            logger: logger
        )
    }

    /// What one client connection may hold (`READ_REQUEST_TIMEOUT`, `WRITE_RESPONSE_TIMEOUT`,
    /// `KEEP_ALIVE_TIMEOUT`, the header limits), its closes counted in `metrics`; `MAX_CLIENTS`
    /// is the application's. Each connection's client-gone watch goes into `watches`.
    /// Hummingbird's own idle timeout stays off: `ConnectionLimitsHandler` keeps each limit
    /// apart, so that the one a client passed is the one that closes it.
    static func httpConfiguration(
        _ configuration: ImageServerConfiguration, logger: Logger, metrics: ServerMetrics, watches: ClientGoneWatches
    ) -> HTTP1Channel.Configuration {
        let limits = ConnectionLimitsHandler.Limits(
            readRequestTimeout: .seconds(configuration.readRequestTimeout),
            writeResponseTimeout: .seconds(configuration.writeResponseTimeout),
            keepAliveTimeout: configuration.keepAliveTimeout > 0 ? .seconds(configuration.keepAliveTimeout) : nil
        )
        return HTTP1Channel.Configuration(
            // The client-gone watcher from the connection's start: no FIN before a request asks for it goes unseen.
            additionalChannelHandlers: [ClientGoneHandler(watches: watches), ConnectionLimitsHandler(limits: limits, logger: logger, metrics: metrics)],
            idleTimeout: nil,
            httpDecoderConfiguration: HTTP1Channel.Configuration.DecoderConfiguration(
                maxHeaderFieldSize: configuration.maxHeaderFieldSize, maxHeaderListSize: configuration.maxHeadersSize,
                maxHeaderFieldCount: configuration.maxHeaderCount
            )
        )
    }

    /// Runs the server as `webimage serve` does until SIGTERM or SIGINT (or until the calling task
    /// is cancelled): then it stops accepting, waits up to `shutdownTimeout` for the requests in
    /// flight, and returns. It counts on `metricsFactory` (nil: the process's `MetricsSystem`, as
    /// the host bootstrapped it), or, with `prometheusBind`, on a registry of its own served at
    /// `/metrics` there (this server's counters and its downloads' and caches'); it bootstraps
    /// no process-wide system. Each request is traced when a tracer is in force (the process's,
    /// as `webimage serve` bootstraps one, or the calling task's). `services` (a trace exporter,
    /// say) start before the server and stop after it, so that they see its last requests.
    /// `onListening` is called with the bound port once the server, and `/metrics` when served,
    /// accept connections.
    public static func run(
        configuration: ImageServerConfiguration, parser: any ImageRequestParser, logger: Logger,
        metricsFactory: (any MetricsFactory)? = nil, services extraServices: [any Service] = [],
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        if let refusal = configuration.refusalToStart { throw refusal }
        var services: [any Service] = []
        var metricsFactory = metricsFactory
        let (metricsListening, metricsListener) = AsyncStream<Void>.makeStream()
        if let prometheusBind = configuration.prometheusBind {
            let registry = PrometheusCollectorRegistry()
            metricsFactory = PrometheusMetricsFactory(registry: registry)
            let router = Router()
            router.get("metrics") { _, _ -> Response in
                var headers = HTTPFields()
                headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
            }
            services.append(Application(
                router: router,
                configuration: ApplicationConfiguration(address: .hostname(prometheusBind.host, port: prometheusBind.port), serverName: "webimage"),
                onServerRunning: { _ in metricsListener.finish() },
                logger: logger
            ))
        } else {
            metricsListener.finish()
        }
        let server = try ImageServer(
            configuration: configuration, parser: parser,
            downloader: makeDownloader(configuration: configuration, metricsFactory: metricsFactory), metricsFactory: metricsFactory
        )
        // A watermark from a URL is fetched before the server listens: one that cannot be had
        // stops the start, naming the setting (as imgproxy's start does).
        try await server.prepare()
        let application = application(serving: server, logger: logger, otherServersListen: {
            for await _ in metricsListening {}
        }, onListening: onListening)
        services.insert(application, at: 0)
        // Services stop in the reverse of their order.
        services.insert(contentsOf: extraServices, at: 0)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ).withShutdownTimeout(configuration.shutdownTimeout))
        try await group.run()
    }
}

extension TimeAmount {
    /// `seconds`, to the nanosecond; at most 30 years (a setting's value, however large, fits).
    fileprivate static func seconds(_ seconds: TimeInterval) -> TimeAmount {
        .nanoseconds(Int64((min(seconds, 1e9) * 1_000_000_000).rounded()))
    }
}

extension ServiceGroupConfiguration {
    /// Requests in flight get `seconds` to finish after a shutdown signal; then they are cancelled.
    fileprivate func withShutdownTimeout(_ seconds: TimeInterval) -> Self {
        var configuration = self
        configuration.maximumGracefulShutdownDuration = .milliseconds(Int64(seconds * 1000))
        configuration.maximumCancellationDuration = .seconds(5)
        return configuration
    }
}
