/// Thrown by `withTimeout`, and by `RequestWatches.run` for a request, when the time ran out.
struct TimeoutError: Error {}

/// `operation`'s result, or `TimeoutError` once `seconds` have passed (the operation is then
/// cancelled, and its cancellation awaited).
func withTimeout<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimeoutError()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
