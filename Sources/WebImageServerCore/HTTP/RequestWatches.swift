import NIOCore
import NIOPosix
import WebImageSupport

/// The requests in flight, each in one task that its time running out (`TIMEOUT`) or its client
/// going away cancels: a timer on an event loop and one callback on the connection's future, no
/// task of their own (a sleeping task and a task group per request were two more hand-offs). A
/// callback per request would stay on the connection's future, holding its request's task and
/// answer, until the connection closes: a keep-alive connection would keep every request it ever
/// served; so each connection has one, which cancels its requests in flight.
final class RequestWatches: Sendable {
    /// A connection's future (held, so that its identifier is not reused while it is a key) and
    /// the cancellation of each of its requests in flight, by request number.
    private struct Connection {
        let closed: EventLoopFuture<Void>
        var cancels: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state = Locked((next: UInt64(0), connections: [ObjectIdentifier: Connection]()))

    /// Runs `work` in a task of its own, cancelled when `timeout` has passed (then it throws
    /// `TimeoutError`), when `clientGone` completes (the client went away; nil: not watched) or
    /// when the caller is cancelled; returns once the work has ended.
    func run<T: Sendable>(
        timeout: TimeAmount, clientGone closed: EventLoopFuture<Void>?, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let task = Task { try await work() }
        let timedOut = Locked(false)
        let eventLoop = closed?.eventLoop ?? MultiThreadedEventLoopGroup.singleton.any()
        let timer = eventLoop.scheduleTask(in: timeout) {
            timedOut.withLock { $0 = true }
            task.cancel()
        }
        let watched = closed.map { watch($0, cancel: { task.cancel() }) }
        defer {
            timer.cancel()
            if let (key, number) = watched { state.withLock { _ = $0.connections[key]?.cancels.removeValue(forKey: number) } }
        }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch where timedOut.withLock({ $0 }) {
            throw TimeoutError()
        }
    }

    /// Adds `cancel` to the requests of the connection `closed` belongs to; the connection's first
    /// request adds the one callback that cancels them all.
    private func watch(_ closed: EventLoopFuture<Void>, cancel: @escaping @Sendable () -> Void) -> (ObjectIdentifier, UInt64) {
        let key = ObjectIdentifier(closed)
        let (number, isFirst) = state.withLock { state in
            state.next += 1
            let isFirst = state.connections[key] == nil
            state.connections[key, default: Connection(closed: closed)].cancels[state.next] = cancel
            return (state.next, isFirst)
        }
        if isFirst {
            closed.whenComplete { _ in self.cancelAll(key) }
        }
        return (key, number)
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
