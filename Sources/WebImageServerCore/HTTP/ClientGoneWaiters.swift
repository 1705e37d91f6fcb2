import NIOCore
import WebImageSupport

/// The requests in flight on each client connection, so that the client going away cancels
/// them with one callback on the connection's future. A callback per request would stay on the
/// future, holding its request's task and answer, until the connection closes: a keep-alive
/// connection would keep every request it ever served.
final class ClientGoneWaiters: Sendable {
    /// A connection's future (held, so that its identifier is not reused while it is a key) and
    /// the cancellation of each of its requests in flight, by request number.
    private struct Connection {
        let closed: EventLoopFuture<Void>
        var cancels: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state = Locked((next: UInt64(0), connections: [ObjectIdentifier: Connection]()))

    /// Runs `work`, cancelling it when `closed` completes first (the client went away).
    func run<T: Sendable>(until closed: EventLoopFuture<Void>, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await work() }
        let key = ObjectIdentifier(closed)
        let (number, isFirst) = state.withLock { state in
            state.next += 1
            let isFirst = state.connections[key] == nil
            state.connections[key, default: Connection(closed: closed)].cancels[state.next] = { task.cancel() }
            return (state.next, isFirst)
        }
        if isFirst {
            closed.whenComplete { _ in self.cancelAll(key) }
        }
        defer { state.withLock { _ = $0.connections[key]?.cancels.removeValue(forKey: number) } }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Requests in flight, and connections watched (for tests).
    var counts: (requests: Int, connections: Int) {
        state.withLock { state in (state.connections.values.reduce(0) { $0 + $1.cancels.count }, state.connections.count) }
    }

    private func cancelAll(_ key: ObjectIdentifier) {
        guard let connection = state.withLock({ $0.connections.removeValue(forKey: key) }) else { return }
        for cancel in connection.cancels.values { cancel() }
    }
}
