import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import WebImage

extension ImageServer {
    /// The downloader a server fetches sources with (`makeDownloaderConfig(configuration:)`).
    public static func makeDownloader(configuration: ImageServerConfiguration) -> ImageDownloader {
        ImageDownloader(config: makeDownloaderConfig(configuration: configuration))
    }

    /// The settings of a server's downloader: its limits from `configuration`, and a source guard
    /// that refuses loopback, private and link-local addresses on every hop unless the
    /// configuration allows them. A service that wants more (allowed hosts or networks, its own
    /// resolver) starts from these.
    public static func makeDownloaderConfig(configuration: ImageServerConfiguration) -> ImageDownloaderConfig {
        var config = ImageDownloaderConfig()
        // DOWNLOAD_TIMEOUT bounds the whole download, as imgproxy's does; it is also the idle
        // timeout of each attempt.
        config.downloadTimeout = configuration.downloadTimeout
        config.downloadDeadline = configuration.downloadTimeout
        config.sourceGuard = SourceGuard(
            allowsLoopback: configuration.allowsLoopbackSourceAddresses,
            allowsPrivate: configuration.allowsPrivateSourceAddresses,
            allowsLinkLocal: configuration.allowsLinkLocalSourceAddresses
        )
        config.maximumRedirects = configuration.maxRedirects
        // The server's requests share their sources; many at once is the normal case.
        config.maxConcurrentDownloads = max(16, 4 * configuration.workers)
        return config
    }

    /// The HTTP application `run` serves: the image routes at the root, listening on `bind`,
    /// fetching with `downloader` (nil: `makeDownloader(configuration:)`).
    public static func makeApplication(
        configuration: ImageServerConfiguration, parser: any ImageRequestParser, downloader: ImageDownloader? = nil,
        metricsFactory: (any MetricsFactory)? = nil,
        logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let server = try ImageServer(
            configuration: configuration, parser: parser, downloader: downloader ?? makeDownloader(configuration: configuration),
            metricsFactory: metricsFactory
        )
        let router = Router(context: ImageServerContext.self)
        server.addRoutes(to: router)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.bind.host, port: configuration.bind.port), serverName: "webimage"
            ),
            services: [StoreWritesService(server: server)],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.bind.port
                logger.info("webimage serve: listening on http://\(configuration.bind.host):\(port)")
                await onListening(port)
            },
            logger: logger
        )
    }

    /// Runs the server as `webimage serve` does until SIGTERM or SIGINT: then it stops accepting,
    /// waits up to `shutdownTimeout` for the requests in flight, and returns. With
    /// `prometheusBind`, metrics (this server's and the library's) are served at `/metrics` there.
    /// `onListening` is called with the bound port once the server accepts connections.
    public static func run(
        configuration: ImageServerConfiguration, parser: any ImageRequestParser, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        if let refusal = configuration.refusalToStart { throw refusal }
        var services: [any Service] = []
        var metricsFactory: (any MetricsFactory)?
        if let prometheusBind = configuration.prometheusBind {
            let registry = PrometheusCollectorRegistry()
            let factory = PrometheusMetricsFactory(registry: registry)
            // The library's counters (caches, downloads) go to the global factory.
            MetricsSystem.bootstrap(factory)
            metricsFactory = factory
            let router = Router()
            router.get("metrics") { _, _ -> Response in
                var headers = HTTPFields()
                headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
            }
            services.append(Application(
                router: router,
                configuration: ApplicationConfiguration(address: .hostname(prometheusBind.host, port: prometheusBind.port), serverName: "webimage"),
                logger: logger
            ))
        }
        let application = try makeApplication(
            configuration: configuration, parser: parser, metricsFactory: metricsFactory, logger: logger, onListening: onListening
        )
        services.insert(application, at: 0)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ).withShutdownTimeout(configuration.shutdownTimeout))
        try await group.run()
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

/// Awaits the server's disk writes when the application stops: the HTTP service stops first
/// (services stop in the reverse of their order), so no request begins a write after this waits.
private struct StoreWritesService: Service {
    let server: ImageServer

    func run() async {
        try? await gracefulShutdown()
        await server.finishWrites()
    }
}
