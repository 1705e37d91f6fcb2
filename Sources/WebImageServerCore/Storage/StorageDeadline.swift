/// Thrown by `StorageDeadline.run` when a storage call outlived its time.
struct StorageTimeoutError: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "no answer from the storage within \(timeout)" }
}

/// A storage call bounded in time: the call and a timer race in a task group; the first to end
/// wins and the other is cancelled (a cancelled AsyncHTTPClient request closes its connection).
enum StorageDeadline {
    /// `body`'s value, or `StorageTimeoutError` once `timeout` has passed.
    static func run<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw StorageTimeoutError(timeout: timeout)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw StorageTimeoutError(timeout: timeout) }
            return first
        }
    }
}
