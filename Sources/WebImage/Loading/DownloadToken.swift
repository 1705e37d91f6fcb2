import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One caller's handle on a download: SDWebImage's `SDWebImageDownloadToken`. Cancelling it
/// completes only this caller, with `WebImageError.cancelled`; the request goes on for the others.
public final class DownloadToken: WebImageOperation {
    /// The URL downloaded.
    public let url: URL
    /// The request as sent (after the request modifier).
    public var request: URLRequest? { operation.request }
    /// The response, once it arrived (after the response modifier).
    public var response: HTTPURLResponse? { operation.response }
    /// The response's validators, for revalidating a cached copy later.
    public var validators: HTTPValidators? { response.flatMap(HTTPValidators.init(response:)) }
    /// Timings and counts of the download (complete once it finished).
    public var metrics: DownloadMetrics { operation.metrics }

    private let operation: DownloadOperation
    private let callerID: UInt64
    private let callbacks: DownloadCallbacks
    private let cancelled = Atomic(false)

    init(operation: DownloadOperation, callerID: UInt64, callbacks: DownloadCallbacks) {
        self.url = operation.url
        self.operation = operation
        self.callerID = callerID
        self.callbacks = callbacks
    }

    /// True once `cancel()` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Completes this caller with `.cancelled` unless it completed already; idempotent.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        operation.cancel(callerID: callerID)
    }
}
