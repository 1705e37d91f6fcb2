import Foundation
import WebImageSupport

/// The requests lately read from paths, by path as received: a cached result asked for again is
/// read once, not at every request (its signature check, options and canonical form were three
/// fifths of a memory hit's own work in the profile in docs/server-performance.md). Only paths
/// that read without error are kept, and a URL with an expiry is read again once past it, so that
/// it fails as it would have. Bounded by count and by the paths' length: when either is reached
/// the whole is emptied (the hits refill it, and no order is kept on the hot path).
final class RecentRequests: Sendable {
    private struct State {
        var requests: [String: ImageRequest] = [:]
        var pathBytes = 0
    }

    private let state = Locked(State())
    private let maxCount: Int
    private let maxPathBytes: Int

    init(maxCount: Int = 2048, maxPathBytes: Int = 2 << 20) {
        self.maxCount = maxCount
        self.maxPathBytes = maxPathBytes
    }

    /// The request `path` was read as, unless it expired before `now`.
    func request(forPath path: String, now: Date) -> ImageRequest? {
        guard let request = state.withLock({ $0.requests[path] }) else { return nil }
        // Past its expiry, the path is read again and refused.
        if let expires = request.options.expires, ProcessingOptions.hasExpired(expires, at: now) { return nil }
        return request
    }

    func remember(_ request: ImageRequest, forPath path: String) {
        state.withLock { state in
            if state.requests.count >= maxCount || state.pathBytes + path.utf8.count > maxPathBytes {
                state.requests.removeAll(keepingCapacity: true)
                state.pathBytes = 0
            }
            if state.requests.updateValue(request, forKey: path) == nil { state.pathBytes += path.utf8.count }
        }
    }
}
