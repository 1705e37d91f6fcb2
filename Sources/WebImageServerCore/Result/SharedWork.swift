import WebImageSupport

/// Identical work in flight done once: the first caller for a key starts it, later callers of
/// the same key wait for its value. A caller whose task is cancelled leaves at once; when the
/// last one leaves, the work is cancelled. The work runs in a task of its own, so a leaving
/// first caller does not stop it for the others. Once it ends, the next caller starts anew.
final class SharedWork<Value: Sendable>: Sendable {
    /// One run of the work. Its fields are read and written only under `SharedWork.flights`'
    /// lock, which is what makes it safe to share.
    private final class Flight: @unchecked Sendable {
        var task: Task<Void, Never>?
        var result: Result<Value, any Error>?
        var waiting: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        /// Callers that were cancelled before their continuation arrived.
        var leftEarly: Set<UInt64> = []
        /// Callers that have not left.
        var callers = 0
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextCaller: UInt64 = 0
    }

    private let state = Locked(State())

    /// How many callers wait for the work under `key` now (0 when none runs).
    func callers(forKey key: String) -> Int {
        state.withLock { $0.flights[key]?.callers ?? 0 }
    }

    /// The value of `work` for `key`, shared with every caller of `key` while it runs; `joined`
    /// is true when another caller had started it.
    func value(forKey key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> (value: Value, joined: Bool) {
        let (flight, caller, isNew) = state.withLock { state -> (Flight, UInt64, Bool) in
            state.nextCaller += 1
            if let flight = state.flights[key] {
                flight.callers += 1
                return (flight, state.nextCaller, false)
            }
            let flight = Flight()
            flight.callers = 1
            state.flights[key] = flight
            return (flight, state.nextCaller, true)
        }
        if isNew {
            let task = Task {
                let result: Result<Value, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                let waiting = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
                    flight.result = result
                    if state.flights[key] === flight { state.flights[key] = nil }
                    defer { flight.waiting = [:] }
                    return Array(flight.waiting.values)
                }
                for continuation in waiting { continuation.resume(with: result) }
            }
            let cancelNow = state.withLock { _ -> Bool in
                flight.task = task
                return flight.callers == 0 && flight.result == nil
            }
            if cancelNow { task.cancel() }
        }
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let ready = state.withLock { _ -> Result<Value, any Error>? in
                    if let result = flight.result { return result }
                    if flight.leftEarly.remove(caller) != nil { return .failure(CancellationError()) }
                    flight.waiting[caller] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let (continuation, task) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
                guard flight.result == nil else { return (nil, nil) }
                flight.callers -= 1
                let continuation = flight.waiting.removeValue(forKey: caller)
                if continuation == nil { flight.leftEarly.insert(caller) }
                guard flight.callers == 0 else { return (continuation, nil) }
                // Nobody waits any more: stop the work, and let the next caller start anew.
                if state.flights[key] === flight { state.flights[key] = nil }
                return (continuation, flight.task)
            }
            continuation?.resume(throwing: CancellationError())
            task?.cancel()
        }
        return (value, !isNew)
    }
}
