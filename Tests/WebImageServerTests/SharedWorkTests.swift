import WebImageSupport
import WebImageTestServer
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

@Suite(.offThePool) struct SharedWorkTests {
    /// The work is held until all fifty callers have joined it (no event tells when a caller
    /// joins: the count of callers, polled), so none can come after it ended and start anew.
    @Test func fiftyCallersOfOneKeyRunTheWorkOnce() async throws {
        let shared = SharedWork<Int>()
        let runs = Counter()
        let gate = TestGate()
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
        let joined = await eventually(within: TestAllowance.eventWait) { shared.callers(forKey: "k") == 50 }
        #expect(joined, "\(shared.callers(forKey: "k")) callers joined")
        gate.open()
        let results = try await callers.value
        #expect(runs.value == 1)
        #expect(results.count == 50 && results.allSatisfy { $0.0 == 42 })
        #expect(results.filter { !$0.1 }.count == 1)
    }

    @Test func oneCallerLeavingDoesNotStopTheOthersButTheLastOneDoes() async throws {
        let shared = SharedWork<Int>()
        let gate = TestGate()
        let started = TestGate()
        let cancelled = Counter()
        let work: @Sendable () async throws -> Int = {
            started.open()
            await withTaskCancellationHandler { await gate.wait() } onCancel: { cancelled.add(1) }
            try Task.checkCancellation()
            return 7
        }
        let first = Task { try await shared.value(forKey: "k", work) }
        await started.wait()
        let second = Task { try await shared.value(forKey: "k", work) }
        #expect(await eventually(within: TestAllowance.eventWait) { shared.callers(forKey: "k") == 2 })
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(cancelled.value == 0)
        gate.open()
        #expect(try await second.value.value == 7)

        // Alone, a leaving caller cancels the work: synchronously, within the caller's `cancel()`.
        let waiting = TestGate()
        let workCancelled = TestGate()
        let third = Task {
            try await shared.value(forKey: "other") {
                waiting.open()
                await withTaskCancellationHandler { await TestGate().wait() } onCancel: { workCancelled.open() }
                try Task.checkCancellation()
                return 1
            }
        }
        await waiting.wait()
        third.cancel()
        await #expect(throws: CancellationError.self) { try await third.value }
        #expect(workCancelled.isOpen)
    }
}
