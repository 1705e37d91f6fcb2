import WebImageSupport
import Testing
@testable import WebImageServer

@Suite struct SharedWorkTests {
    @Test func fiftyCallersOfOneKeyRunTheWorkOnce() async throws {
        let shared = SharedWork<Int>()
        let runs = Counter()
        let gate = WorkerSlotsTests.Gate()
        let callers = Task {
            try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for _ in 0..<50 {
                    group.addTask { try await shared.value(forKey: "k") { runs.add(1); await gate.wait(); return 42 } }
                }
                var results: [(Int, Bool)] = []
                for try await result in group { results.append(result) }
                return results
            }
        }
        while runs.value < 1 { await Task.yield() }
        gate.open()
        let results = try await callers.value
        #expect(runs.value == 1)
        #expect(results.allSatisfy { $0.0 == 42 })
        #expect(results.filter { !$0.1 }.count == 1)
    }

    @Test func oneCallerLeavingDoesNotStopTheOthersButTheLastOneDoes() async throws {
        let shared = SharedWork<Int>()
        let gate = WorkerSlotsTests.Gate()
        let started = Counter()
        let cancelled = Counter()
        let work: @Sendable () async throws -> Int = {
            started.add(1)
            await withTaskCancellationHandler { await gate.wait() } onCancel: { cancelled.add(1) }
            try Task.checkCancellation()
            return 7
        }
        let first = Task { try await shared.value(forKey: "k", work) }
        while started.value < 1 { await Task.yield() }
        let second = Task { try await shared.value(forKey: "k", work) }
        while shared.callers(forKey: "k") < 2 { await Task.yield() }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(cancelled.value == 0)
        gate.open()
        #expect(try await second.value.value == 7)

        // Alone, a leaving caller cancels the work.
        let lone = Gate2()
        let third = Task { try await shared.value(forKey: "other") { await lone.waitCancellable(); try Task.checkCancellation(); return 1 } }
        while !lone.isWaiting { await Task.yield() }
        third.cancel()
        await #expect(throws: CancellationError.self) { try await third.value }
        #expect(lone.sawCancellation)
    }
}

/// Waits until its task is cancelled, and tells whether it was.
final class Gate2: Sendable {
    private let state = Locked((waiting: false, cancelled: false))
    private let stream = AsyncStream.makeStream(of: Void.self)
    var isWaiting: Bool { state.withLock { $0.waiting } }
    func waitCancellable() async {
        state.withLock { $0.waiting = true }
        await withTaskCancellationHandler {
            for await _ in stream.stream {}
        } onCancel: {
            state.withLock { $0.cancelled = true }
            stream.continuation.finish()
        }
    }
    /// Set as the work is cancelled: synchronously, within the caller's `cancel()`.
    var sawCancellation: Bool { state.withLock { $0.cancelled } }
}
