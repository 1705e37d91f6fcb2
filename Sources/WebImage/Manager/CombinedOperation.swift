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
            defer {
                state.isDone = true
                state.onCancel = nil
            }
            return (state.cacheOperation, state.loaderOperation, state.isDone, state.onCancel)
        }
        cache?.cancel()
        loader?.cancel()
        if !wasDone { onCancel?() }
    }

    func setCacheOperation(_ operation: (any WebImageOperation)?) {
        state.withLock { $0.cacheOperation = operation }
        if isCancelled { operation?.cancel() }
    }

    func setLoaderOperation(_ operation: (any WebImageOperation)?) {
        state.withLock { $0.loaderOperation = operation }
        if isCancelled { operation?.cancel() }
    }

    /// Marks the load done; false when it was cancelled first (then nothing more is delivered).
    /// The cancel handler goes: it holds the load, which holds this operation (and the manager).
    func markDone() -> Bool {
        state.withLock { state in
            guard !state.isDone else { return false }
            state.isDone = true
            state.onCancel = nil
            return true
        }
    }

    /// True while neither done nor cancelled.
    var isActive: Bool {
        !isCancelled && !state.withLock { $0.isDone }
    }
}
