import Dispatch
import Testing

/// Runs a suite's test bodies on threads of their own instead of Swift's cooperative pool
/// (`@Suite(.offThePool)`; it reaches the nested suites and every test).
///
/// Why: a synchronous test function runs on the pool, and many of ours decode, encode or compare
/// large images there for seconds; on Linux the pool is as wide as the machine has cores (two
/// here), so two such bodies held every task of the process, the library's downloads and timers
/// included, and tests that wait for an event waited behind them. Here a body that computes or
/// blocks holds one thread of a queue that makes another when all are busy, and the kernel shares
/// the cores among them, the pool's threads included. The library's own tasks (`Task {}`, its
/// servers' handlers) still run on the pool, as they do in an application: only the tests' code,
/// and what it awaits directly, moves.
public struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(TestBodyExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OffThePool {
    /// Runs the suite's test bodies on threads of their own, off Swift's cooperative pool.
    public static var offThePool: OffThePool { OffThePool() }
}

/// The threads test bodies run on: a concurrent dispatch queue, which targets an overcommitting
/// root queue (a new thread whenever every thread is busy or blocked).
public final class TestBodyExecutor: TaskExecutor {
    public static let shared = TestBodyExecutor()

    /// True on one of the executor's threads.
    public static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    private static let key = DispatchSpecificKey<Bool>()
    private let queue: DispatchQueue

    private init() {
        queue = DispatchQueue(label: "swift-webimage.test-bodies", attributes: .concurrent)
        queue.setSpecific(key: Self.key, value: true)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
