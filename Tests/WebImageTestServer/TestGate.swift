import Dispatch
import WebImageSupport

/// A gate a test opens when it decides: what waits on it (a test's task, work held on a
/// thread, a trickled body's next piece: `TestResponse.gate`) goes on then, with no polling.
/// Opened more than once it counts: a wait may be for the nth opening (a body's nth piece).
public final class TestGate: Sendable {
    private struct State {
        var opened = 0
        var nextWait = 0
        var waiting: [(id: Int, count: Int, send: @Sendable () -> Void)] = []
    }

    private let state = Locked(State())

    /// A closed gate.
    public init() {}

    /// Opens the gate once more: the waits for this many openings go on.
    public func open() {
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            state.opened += 1
            let opened = state.opened
            let ready = state.waiting.filter { $0.count <= opened }.map(\.send)
            state.waiting.removeAll { $0.count <= opened }
            return ready
        }
        for send in ready { send() }
    }

    /// True once the gate was opened.
    public var isOpen: Bool { timesOpened > 0 }

    /// How many times the gate was opened.
    public var timesOpened: Int { state.withLock { $0.opened } }

    /// Waits until the gate was opened `count` times (returns at once if it was), or until the
    /// task is cancelled (its time limit passed: a test that waits never hangs the run).
    public func wait(untilOpened count: Int = 1) async {
        let resumption = Resumption()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                resumption.set(continuation)
                let id = whenOpened(count) { resumption.resume() }
                if let id { resumption.onCancel { self.cancel(id) } }
            }
        } onCancel: {
            resumption.resume()
        }
    }

    /// Blocks the calling thread until the gate was opened `count` times: for work held where
    /// it runs (a pool's thread, a dispatch queue), as a long decode would hold it.
    public func block(untilOpened count: Int = 1) {
        let semaphore = DispatchSemaphore(value: 0)
        whenOpened(count) { semaphore.signal() }
        semaphore.wait()
    }

    /// Runs `send` once the gate was opened `count` times; returns the wait's id for `cancel`,
    /// nil when `send` ran at once.
    @discardableResult
    func whenOpened(_ count: Int, _ send: @escaping @Sendable () -> Void) -> Int? {
        let id = state.withLock { state -> Int? in
            if state.opened >= count { return nil }
            state.nextWait += 1
            state.waiting.append((state.nextWait, count, send))
            return state.nextWait
        }
        if id == nil { send() }
        return id
    }

    /// Drops a wait whose waiter went (a connection closed, a task cancelled): its `send` holds
    /// the waiter, and a gate never opened (`hold=1`) would keep it for the rest of the process.
    func cancel(_ id: Int) {
        state.withLock { $0.waiting.removeAll { $0.id == id } }
    }
}

/// One task's wait on a gate, resumed once: by the gate or by the task's cancellation,
/// whichever comes first (either may come before the continuation is there).
private final class Resumption: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var resumed = false
        var dropWait: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        let now = state.withLock { state -> Bool in
            if state.resumed { return true }
            state.continuation = continuation
            return false
        }
        if now { continuation.resume() }
    }

    /// Drops the gate's wait once this one is over (at once if it is): after a cancellation,
    /// the gate would otherwise keep it.
    func onCancel(_ drop: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.resumed { return true }
            state.dropWait = drop
            return false
        }
        if now { drop() }
    }

    func resume() {
        let (continuation, drop) = state.withLock { state -> (CheckedContinuation<Void, Never>?, (@Sendable () -> Void)?) in
            guard !state.resumed else { return (nil, nil) }
            state.resumed = true
            defer { state.continuation = nil; state.dropWait = nil }
            return (state.continuation, state.dropWait)
        }
        drop?()
        continuation?.resume()
    }
}
