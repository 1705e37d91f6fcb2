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
    /// Failed attempts that were tried again (a resume after new bytes is not one).
    public var retryCount = 0
    /// Range requests that resumed the body after it broke off with new bytes.
    public var resumeCount = 0
    /// True when the body was completed with a byte-range request after a dropped connection.
    public var resumed = false
    /// Partial decodes run for `.progressiveLoad` callers (one at a time, of the bytes so far).
    public var partialDecodeCount = 0
    /// The body bytes those decodes read, each a copy of the body as it then was.
    public var partialDecodeBytes = 0

    /// Empty metrics.
    public init() {}
}
