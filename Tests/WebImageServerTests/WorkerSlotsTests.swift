import WebImageSupport
import Testing
@testable import WebImageServer

@Suite struct WorkerSlotsTests {
    /// Opens when told; lets a test hold a job inside its slot.
    final class Gate: Sendable {
        private let stream = AsyncStream.makeStream(of: Void.self)
        func open() { stream.continuation.finish() }
        func wait() async { for await _ in stream.stream {} }
    }

    @Test func aFullQueueRefusesAtOnceAndAFreedSlotGoesToTheNextInLine() async throws {
        let slots = WorkerSlots(workers: 1, queueSize: 1)
        let gate = Gate()
        let first = Task { try await slots.withSlot { await gate.wait(); return 1 } }
        while slots.busy < 1 { await Task.yield() }
        let second = Task { try await slots.withSlot { 2 } }
        while slots.queued < 1 { await Task.yield() }
        await #expect(throws: ImageServerError.tooManyRequests) { try await slots.withSlot { 3 } }
        gate.open()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(slots.busy == 0 && slots.queued == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let slots = WorkerSlots(workers: 1, queueSize: 0)
        let gate = Gate()
        let holder = Task { try await slots.withSlot { await gate.wait() } }
        while slots.busy < 1 { await Task.yield() }
        let waiter = Task { try await slots.withSlot { "ran" } }
        while slots.queued < 1 { await Task.yield() }
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
