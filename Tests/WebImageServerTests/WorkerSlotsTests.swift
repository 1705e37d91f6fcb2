import WebImageSupport
import WebImageTestServer
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

@Suite(.offThePool) struct WorkerSlotsTests {
    /// Slots whose every change of the busy and queued counts is an event on `changes`.
    static func observedSlots(workers: Int, queueSize: Int) -> (slots: WorkerSlots, changes: AsyncStream<Void>) {
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self)
        let slots = WorkerSlots(workers: workers, queueSize: queueSize) { _, _ in continuation.yield() }
        return (slots, changes)
    }

    @Test func aFullQueueRefusesAtOnceAndAFreedSlotGoesToTheNextInLine() async throws {
        let (slots, changes) = Self.observedSlots(workers: 1, queueSize: 1)
        let gate = TestGate()
        let first = Task { try await slots.withSlot { await gate.wait(); return 1 } }
        #expect(await eventually(within: TestAllowance.eventWait, on: changes) { slots.busy == 1 })
        let second = Task { try await slots.withSlot { 2 } }
        #expect(await eventually(within: TestAllowance.eventWait, on: changes) { slots.queued == 1 })
        await #expect(throws: ImageServerError.tooManyRequests) { try await slots.withSlot { 3 } }
        gate.open()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(slots.busy == 0 && slots.queued == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let (slots, changes) = Self.observedSlots(workers: 1, queueSize: 0)
        let gate = TestGate()
        let holder = Task { try await slots.withSlot { await gate.wait() } }
        #expect(await eventually(within: TestAllowance.eventWait, on: changes) { slots.busy == 1 })
        let waiter = Task { try await slots.withSlot { "ran" } }
        #expect(await eventually(within: TestAllowance.eventWait, on: changes) { slots.queued == 1 })
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(slots.queued == 0)
        gate.open()
        try await holder.value
        #expect(slots.busy == 0)
        #expect(try await slots.withSlot { "free again" } == "free again")
    }

    @Test func atMostWorkersRunAtOnce() async throws {
        let slots = WorkerSlots(workers: 3, queueSize: 0)
        let running = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    try await slots.withSlot {
                        running.add(1)
                        await Task.yield()
                        running.add(-1)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(running.peak <= 3 && running.peak >= 1)
    }
}

/// A counter that remembers its highest value.
final class Counter: Sendable {
    private let state = Locked((value: 0, peak: 0))
    func add(_ amount: Int) { state.withLock { $0.value += amount; $0.peak = max($0.peak, $0.value) } }
    var peak: Int { state.withLock { $0.peak } }
    var value: Int { state.withLock { $0.value } }
}
