internal import ImageEngine

/// Holds an operation that may start after its cancellation was requested (an async task
/// cancelled before the callback API returned), and cancels it either way.
final class OperationHolder: Sendable {
    private let state = Locked<(operation: (any WebImageOperation)?, cancelled: Bool)>((nil, false))

    /// The operation, once set.
    var operation: (any WebImageOperation)? {
        state.withLock { $0.operation }
    }

    func set(_ operation: (any WebImageOperation)?) {
        let cancelNow = state.withLock { state in
            state.operation = operation
            return state.cancelled
        }
        if cancelNow { operation?.cancel() }
    }

    func cancel() {
        let operation = state.withLock { state in
            state.cancelled = true
            return state.operation
        }
        operation?.cancel()
    }
}
