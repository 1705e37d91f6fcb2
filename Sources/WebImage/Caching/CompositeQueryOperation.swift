import Foundation
internal import ImageEngine

/// A query over several caches: completes exactly once, with the first result offered or with
/// nothing found when cancelled; cancelling it cancels the queries it started.
final class CompositeQueryOperation: WebImageOperation {
    private struct State {
        var completion: ImageCacheQueryCompletion?
        var children: [any WebImageOperation] = []
        var cancelled = false
        /// Completed: children are no longer kept (one that keeps its completion, which holds
        /// this operation, would make a cycle).
        var finished = false
    }

    private let state: Locked<State>

    init(completion: ImageCacheQueryCompletion?) {
        state = Locked(State(completion: completion))
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Tracks a query started for this one (cancelled at once if this one already is; not
    /// kept if this one already completed).
    func add(_ child: (any WebImageOperation)?) {
        guard let child else { return }
        let cancelNow = state.withLock { state in
            if !state.cancelled, !state.finished { state.children.append(child) }
            return state.cancelled
        }
        if cancelNow { child.cancel() }
    }

    func cancel() {
        let (children, completion) = state.withLock { state in
            state.cancelled = true
            defer {
                state.children = []
                state.completion = nil
            }
            return (state.children, state.completion)
        }
        children.forEach { $0.cancel() }
        completion?(nil, nil, .none)
    }

    /// Completes with this result unless already completed.
    func finish(_ image: Image?, _ data: Data?, _ cacheType: ImageCacheType) {
        let completion = state.withLock { state in
            defer {
                state.completion = nil
                state.children = []
                state.finished = true
            }
            return state.completion
        }
        completion?(image, data, cacheType)
    }
}
