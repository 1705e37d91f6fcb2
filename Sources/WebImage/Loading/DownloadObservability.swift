import Logging
import Metrics

/// The downloader's logger and counters: `webimage_downloads_total{result="success"|"failure"|"cancelled"}`,
/// `webimage_download_bytes_total`, `webimage_download_retries_total` and the
/// `webimage_download_duration_seconds` timer.
struct DownloadObservability: Sendable {
    static let logger = Logger(label: "swift-webimage.downloader")

    private let successes: Counter
    private let failures: Counter
    private let cancellations: Counter
    let bytes: Counter
    let retries: Counter
    let duration: Metrics.Timer

    init(factory: any MetricsFactory) {
        func outcome(_ result: String) -> Counter {
            Counter(label: "webimage_downloads_total", dimensions: [("result", result)], factory: factory)
        }
        successes = outcome("success")
        failures = outcome("failure")
        cancellations = outcome("cancelled")
        bytes = Counter(label: "webimage_download_bytes_total", factory: factory)
        retries = Counter(label: "webimage_download_retries_total", factory: factory)
        duration = Metrics.Timer(label: "webimage_download_duration_seconds", factory: factory)
    }

    /// Counts one ended transfer.
    func countOutcome(_ error: (any Error)?) {
        switch error {
        case nil: successes.increment()
        case let error as WebImageError where error == .cancelled: cancellations.increment()
        default: failures.increment()
        }
    }
}
