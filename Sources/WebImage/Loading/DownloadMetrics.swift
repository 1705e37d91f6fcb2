import Foundation

/// What one download cost: on its token once it is done (SDWebImage's task metrics, reduced to
/// what AsyncHTTPClient tells).
public struct DownloadMetrics: Sendable, Equatable {
    /// From the first request sent to the first response head, of the last attempt.
    public var timeToFirstByte: TimeInterval?
    /// From the download's start (after waiting in the queue) to its end, retries included.
    public var totalTime: TimeInterval = 0
    /// Body bytes received, over every attempt.
    public var bytesReceived = 0
    /// Redirects followed on the last attempt.
    public var redirectCount = 0
    /// Attempts after the first (resumes included).
    public var retryCount = 0
    /// True when the body was completed with a byte-range request after a dropped connection.
    public var resumed = false

    /// Empty metrics.
    public init() {}
}
