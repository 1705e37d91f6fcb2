import Foundation
import Metrics
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How an `ImageDownloader` downloads: SDWebImage's `SDWebImageDownloaderConfig`, plus retries
/// and limits. Copied when the downloader is made.
public struct ImageDownloaderConfig: Sendable {
    /// Downloads running at once; the rest wait (default 6).
    public var maxConcurrentDownloads = 6
    /// Seconds an attempt may go without any byte from the server (connecting, waiting for the
    /// head, between body chunks) before it fails with `URLError(.timedOut)`, which may be
    /// retried (default 15; 0 means 15).
    public var downloadTimeout: TimeInterval = 15
    /// Seconds a download may go without receiving new body bytes, across its attempts, retry
    /// waits and resumes, before it fails with `URLError(.timedOut)` at once, whatever it was
    /// doing; a transfer that keeps delivering bytes is never cut by it. Nil (default): twice
    /// the `downloadTimeout` in force, so a 1 s timeout against a silent server fails within 2 s,
    /// retries or not.
    public var stallTimeout: TimeInterval?
    /// Seconds from the call to the end of the transfer (decoding not counted) after which the
    /// download fails with `URLError(.timedOut)` at once, whatever it was doing; a caller that
    /// shares the download with others fails alone. A context's `downloadDeadline` takes its
    /// place. Nil (default): no deadline.
    public var downloadDeadline: TimeInterval?
    /// Progress is reported when at least this fraction of the expected size arrived since the
    /// last report (default 0: every chunk; clamped to 0...1). The end is always reported.
    public var minimumProgressInterval: Double = 0
    /// Which waiting download starts next within a priority (default `.fifo`).
    public var executionOrder: DownloadExecutionOrder = .fifo
    /// With `password`: sent as HTTP Basic authorization.
    public var username: String?
    /// With `username`: sent as HTTP Basic authorization.
    public var password: String?
    /// Statuses that count as success (default 200..<300).
    public var acceptableStatusCodes: Set<Int> = Set(200..<300)
    /// MIME types that count as success; nil accepts any (default nil).
    public var acceptableContentTypes: Set<String>?
    /// Retries of transient failures (default: 2, exponential backoff from 0.5 s with jitter,
    /// `Retry-After` honoured up to 30 s).
    public var retryPolicy = DownloadRetryPolicy()
    /// Larger bodies fail with `URLError(.dataLengthExceedsMaximum)`: from `Content-Length` before
    /// the body is read, and while streaming otherwise (default 100 MB).
    public var maximumResponseSize = 100 * 1024 * 1024
    /// Redirects followed per attempt; more, or a cycle, fail with `URLError(.httpTooManyRedirects)`
    /// (default 10).
    public var maximumRedirects = 10
    /// Which sources may be fetched, checked on the address each hop connects to, redirects
    /// included (see `SourceGuard`); nil (default) fetches any http or https URL.
    public var sourceGuard: SourceGuard?
    /// Where downloads with `.handleCookies` read the cookies they send and keep the ones they
    /// are sent, on every hop (Foundation's shared storage by default, as `URLSession`'s).
    /// Downloads without that option neither send nor keep cookies.
    public var cookieStorage: HTTPCookieStorage = .shared
    /// Where the download counters go; nil uses the global `MetricsSystem` backend.
    public var metricsFactory: (any MetricsFactory)?
    /// Sends the caller's trace context (its task's `ServiceContext`) on every request, in the
    /// headers of the instrument in force (W3C `traceparent` with an OpenTelemetry tracer), so
    /// that an origin's spans join the caller's trace (default: true; without an instrument,
    /// nothing is sent). The context is the caller's, not that of whichever task runs the
    /// transfer: a download that waited for a slot runs in another.
    public var propagatesTraceContext = true

    /// The default configuration.
    public init() {}

    /// The default configuration, as `ImageDownloader.shared` uses it.
    public static let `default` = ImageDownloaderConfig()

    /// The idle timeout in force: `downloadTimeout`, with 0 (or a nonsense value) meaning 15 s.
    var effectiveTimeout: TimeInterval {
        downloadTimeout > 0 && downloadTimeout.isFinite ? downloadTimeout : 15
    }

    /// The stall bound in force: `stallTimeout`, or twice the idle timeout when it is unset or
    /// not a positive number.
    var effectiveStallTimeout: TimeInterval {
        if let stallTimeout, stallTimeout > 0, stallTimeout.isFinite { return stallTimeout }
        return 2 * effectiveTimeout
    }

    var effectiveProgressInterval: Double {
        minimumProgressInterval.isFinite ? min(1, max(0, minimumProgressInterval)) : 0
    }
}
