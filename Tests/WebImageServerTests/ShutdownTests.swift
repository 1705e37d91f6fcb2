import Foundation
import Testing
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// `webimage serve` as a process: SIGTERM drains the requests in flight, then it exits 0.
@Suite(.offThePool, .timeLimit(.minutes(TestAllowance.minutes(5)))) struct ShutdownTests {
    @Test func sigtermDuringTwentySlowRequestsLetsAllFinishThenExitsZero() async throws {
        try await withOrigin { origin in
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-shutdown-tests-" + UUID().uuidString)
            defer { try? FileManager.default.removeItem(at: cache) }
            try await withServeProcess([
                "--allow-loopback-source-addresses", "--workers", "20", "--cache-dir", cache.path,
                // Limits a busy machine does not reach: the test is of the drain, not of the limits.
                "--timeout", "120", "--download-timeout", "60", "--shutdown-timeout", "120",
            ]) { server in
                // 20 distinct sources, each of whose heads the origin sends after 1.5 s.
                let requests = (0..<20).map { n in
                    Task { try await ServerUnderTest.get(ServingTests.path(origin, "photos/rocket.jpg", query: "?delay=1500&n=\(n)"), port: server.port) }
                }
                #expect(await origin.wait { $0.requests["/images/photos/rocket.jpg"] == 20 })
                server.signal(SIGTERM)
                for request in requests {
                    let reply = try await request.value
                    #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
                }
                // Gone (its port is not probed: another test's server may be given it by now).
                #expect(await server.exitStatus() == 0)
            }
        }
    }
}
