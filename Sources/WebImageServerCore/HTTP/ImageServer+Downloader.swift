import Metrics
import WebImage

extension ImageServer {
    /// The downloader a server fetches sources with (`makeDownloaderConfig(configuration:metricsFactory:)`).
    public static func makeDownloader(configuration: ImageServerConfiguration, metricsFactory: (any MetricsFactory)? = nil) -> ImageDownloader {
        ImageDownloader(config: makeDownloaderConfig(configuration: configuration, metricsFactory: metricsFactory))
    }

    /// The settings of a server's downloader: its limits from `configuration`, a source guard
    /// that refuses loopback, private and link-local addresses on every hop unless the
    /// configuration allows them, and its counters on `metricsFactory` (nil: the global one). A
    /// service that wants more (allowed hosts or networks, its own resolver) starts from these.
    public static func makeDownloaderConfig(
        configuration: ImageServerConfiguration, metricsFactory: (any MetricsFactory)? = nil
    ) -> ImageDownloaderConfig {
        var config = ImageDownloaderConfig()
        config.metricsFactory = metricsFactory
        config.propagatesTraceContext = configuration.propagatesTraceContext
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
}
