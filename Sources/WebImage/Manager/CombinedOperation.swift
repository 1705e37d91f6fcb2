import Foundation
internal import ImageEngine
import Synchronization

/// One manager load: its cache query, then its loader request. SDWebImage's
/// `SDWebImageCombinedOperation`. Cancelling it stops whichever runs, and the completion then
/// reports `WebImageError.cancelled` once; no image is delivered after that.
public final class CombinedOperation: WebImageOperation {
    private struct State {
        var cacheOperation: (any WebImageOperation)?
        var loaderOperation: (any WebImageOperation)?
        var isDone = false
        /// Called once when the load is cancelled (to deliver `.cancelled`).
        var onCancel: (@Sendable () -> Void)?

        /// Done: the cancel handler and the parts go. Each may hold the load (the handler does;
        /// a cache's or loader's operation may keep its completion, which does), and the load
        /// holds this operation: kept, they would make a cycle.
        mutating func endLoad() {
            isDone = true
            onCancel = nil
            cacheOperation = nil
            loaderOperation = nil
        }
    }

    private let state = Locked(State())
    private let cancelled = Atomic(false)

    init() {}

    /// What cancelling does besides stopping the parts: deliver `.cancelled`.
    func setCancelHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onCancel = handler }
    }

    /// The running cache query, if any.
    public var cacheOperation: (any WebImageOperation)? {
        state.withLock { $0.cacheOperation }
    }

    /// The running loader request, if any.
    public var loaderOperation: (any WebImageOperation)? {
        state.withLock { $0.loaderOperation }
    }

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Stops the load; its completion reports `.cancelled` once (unless it completed already).
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (cache, loader, wasDone, onCancel) = state.withLock { state in
            defer { state.endLoad() }
            return (state.cacheOperation, state.loaderOperation, state.isDone, state.onCancel)
        }
        cache?.cancel()
        loader?.cancel()
        if !wasDone { onCancel?() }
    }

    /// Keeps the running cache query, unless the load ended first (a query that completed
    /// before it returned: kept, it could hold the load in a cycle).
    func setCacheOperation(_ operation: (any WebImageOperation)?) {
        state.withLock { state in if !state.isDone { state.cacheOperation = operation } }
        if isCancelled { operation?.cancel() }
    }

    /// Keeps the running loader request, unless the load ended first.
    func setLoaderOperation(_ operation: (any WebImageOperation)?) {
        state.withLock { state in if !state.isDone { state.loaderOperation = operation } }
        if isCancelled { operation?.cancel() }
    }

    /// Marks the load done; false when it was cancelled first (then nothing more is delivered).
    func markDone() -> Bool {
        state.withLock { state in
            guard !state.isDone else { return false }
            state.endLoad()
            return true
        }
    }

    /// True while neither done nor cancelled.
    var isActive: Bool {
        !isCancelled && !state.withLock { $0.isDone }
    }
}
