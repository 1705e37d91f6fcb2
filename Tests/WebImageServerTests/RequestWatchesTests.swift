import NIOCore
import Testing
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// Requests in flight: cancelled when their client's connection goes or their time runs out, and
/// nothing kept per request once answered, however many requests one keep-alive connection serves.
@Suite(.offThePool) struct RequestWatchesTests {
    /// Longer than any test runs: only the event the test sends ends the work.
    static let never = TimeAmount.hours(1)

    /// A connection's "client gone" promise, on a real event loop (the test client's).
    static func connection() -> EventLoopPromise<Void> {
        ServerUnderTest.client.eventLoopGroup.next().makePromise(of: Void.self)
    }

    @Test func requestsAnsweredOnOneConnectionLeaveNothingBehind() async throws {
        let waiters = RequestWatches()
        let connection = Self.connection()
        for index in 0..<100 {
            #expect(try await waiters.run(timeout: Self.never, clientGone: connection.futureResult) { index } == index)
        }
        #expect(waiters.counts == (requests: 0, connections: 1))
        connection.succeed()
        // Callbacks run in the order they were added: the waiters' first.
        try await connection.futureResult.get()
        #expect(waiters.counts == (requests: 0, connections: 0))
    }

    @Test func theClientGoingCancelsItsRequestsInFlight() async throws {
        let waiters = RequestWatches()
        let connection = Self.connection()
        let started = TestGate()
        let requests = (0..<2).map { _ in
            Task {
                try await waiters.run(timeout: Self.never, clientGone: connection.futureResult) {
                    started.open()
                    // Work that only its cancellation ends.
                    try await Task.sleep(for: .seconds(600))
                }
            }
        }
        await started.wait(untilOpened: 2)
        connection.succeed()
        for request in requests {
            await #expect(throws: CancellationError.self) { try await request.value }
        }
        #expect(waiters.counts == (requests: 0, connections: 0))
        // A request on a connection already gone is cancelled at once.
        await #expect(throws: CancellationError.self) {
            try await waiters.run(timeout: Self.never, clientGone: connection.futureResult) { try await Task.sleep(for: .seconds(600)) }
        }
    }
}
