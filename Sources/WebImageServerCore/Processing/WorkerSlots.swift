import WebImageSupport

/// The bounded processing pool (imgproxy's `WORKERS` and `REQUESTS_QUEUE_SIZE`): at most
/// `workers` jobs hold a slot (from the start of a source fetch to the end of the encode); up to
/// `queueSize` more wait in arrival order (0 = no bound); past that a job is refused at once with
/// 429. A waiting job whose task is cancelled (its client went, or its timeout passed) leaves the
/// queue.
final class WorkerSlots: Sendable {
    private enum Waiter {
        /// Counted in the queue; its continuation is on its way.
        case reserved
        case waiting(CheckedContinuation<Void, any Error>)
        /// Cancelled before its continuation arrived.
        case cancelled
    }

    private struct State {
        var free: Int
        var queue: [(id: UInt64, waiter: Waiter)] = []
        var nextID: UInt64 = 0
    }

    let workers: Int
    let queueSize: Int
    private let state: Locked<State>
    /// Told the busy and queued counts after each change (the server's gauges).
    private let observer: @Sendable (_ busy: Int, _ queued: Int) -> Void

    init(workers: Int, queueSize: Int, observer: @escaping @Sendable (_ busy: Int, _ queued: Int) -> Void = { _, _ in }) {
        self.workers = max(1, workers)
        self.queueSize = max(0, queueSize)
        self.observer = observer
        state = Locked(State(free: max(1, workers)))
    }

    /// Tells the observer the counts as of now.
    private func report() {
        let (busy, queued) = state.withLock { (workers - $0.free, $0.queue.count) }
        observer(busy, queued)
    }

    /// Jobs holding a slot.
    var busy: Int { state.withLock { workers - $0.free } }

    /// Jobs waiting for one.
    var queued: Int { state.withLock { $0.queue.count } }

    /// Runs `body` in a slot: at once when one is free, else after waiting in the queue.
    /// Throws `ImageServerError.tooManyRequests` when the queue is full, and `CancellationError`
    /// when the task is cancelled while waiting.
    func withSlot<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        defer { report() }
        try await RequestSpan.queue.run { try await acquire() }
        report()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        let id: UInt64? = try state.withLock { state throws(ImageServerError) -> UInt64? in
            if state.free > 0 {
                state.free -= 1
                return nil
            }
            guard queueSize == 0 || state.queue.count < queueSize else { throw ImageServerError.tooManyRequests }
            state.nextID += 1
            state.queue.append((state.nextID, .reserved))
            return state.nextID
        }
        guard let id else { return }
        report()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                    if case .cancelled = state.queue[index].waiter {
                        state.queue.remove(at: index)
                        return .failure(CancellationError())
                    }
                    // A slot freed while this waiter was on its way: take it.
                    if state.free > 0 {
                        state.free -= 1
                        state.queue.remove(at: index)
                        return .success(())
                    }
                    state.queue[index].waiter = .waiting(continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                // Gone from the queue: it was given a slot, which its body releases.
                guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                switch state.queue[index].waiter {
                case .waiting(let continuation):
                    state.queue.remove(at: index)
                    return continuation
                case .reserved:
                    state.queue[index].waiter = .cancelled
                    return nil
                case .cancelled:
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Hands the slot to the first waiter whose continuation has arrived, else frees it. A waiter
    /// still on its way to the queue keeps its place: the next release serves it.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if let index = state.queue.firstIndex(where: { if case .waiting = $0.waiter { true } else { false } }),
               case .waiting(let continuation) = state.queue[index].waiter {
                state.queue.remove(at: index)
                return continuation
            }
            state.free += 1
            return nil
        }
        next?.resume()
    }
}
