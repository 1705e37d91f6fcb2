import Foundation
import Logging
import Testing
@testable import WebImageServer
import WebImageTestServer
import WebImageTestSupport

/// Issue 40: the server lives in a host's process beside the host's own systems. `ImageServer.run`
/// bootstraps none of them: with `PROMETHEUS_BIND` its counters go to a registry of its own,
/// served at `/metrics`, and a host that bootstrapped `MetricsSystem` itself (a second bootstrap
/// traps) keeps its own.
@Suite(.offThePool) struct HostObservabilityTests {
    /// Two servers run one after the other in this process, each with `PROMETHEUS_BIND`: each
    /// starts (the `MetricsSystem.bootstrap` `run` once made would trap the second time), says it
    /// listens only once `/metrics` does, and serves there its own requests, its downloads and its
    /// cache lookups, not the other's; each ends when its task is cancelled.
    @Test func twoServersInOneProcessEachServeTheirOwnMetrics() async throws {
        try await withOrigin { origin in
            for round in 1...2 {
                let metricsPort = try FreePort.next()
                let configuration = ImageServerConfiguration.fetchingFromLoopback { configuration in
                    configuration.prometheusBind = ServerAddress(host: "127.0.0.1", port: metricsPort)
                }
                defer { try? FileManager.default.removeItem(atPath: configuration.cacheDirectory) }
                let (ports, listening) = AsyncStream<Int>.makeStream()
                let running = Task {
                    try await ImageServer.run(configuration: configuration, parser: try configuration.makeParser(), logger: Logger(label: "host-\(round)")) {
                        listening.yield($0)
                    }
                }
                var iterator = ports.makeAsyncIterator()
                let port = try #require(await iterator.next())
                // Asked for at once: the server said it listens only when /metrics does.
                let before = String(decoding: try await ServerUnderTest.get("/metrics", port: metricsPort).body, as: UTF8.self)
                #expect(Self.value(of: "webimage_downloads_total{result=\"success\"}", in: before) ?? 0 == 0, "round \(round)")
                let source = origin.url("/images/photos/rocket.jpg").absoluteString
                for _ in 0..<2 {
                    let reply = try await ServerUnderTest.get("/unsafe/rs:fit:60:60/plain/\(source)", port: port)
                    #expect(reply.status == 200)
                }
                let metrics = String(decoding: try await ServerUnderTest.get("/metrics", port: metricsPort).body, as: UTF8.self)
                // One download for the two requests, counted here and nowhere else.
                #expect(Self.value(of: "webimage_downloads_total{result=\"success\"}", in: metrics) == 1, "round \(round): \(metrics)")
                #expect(metrics.contains("webimage_server_requests_in_flight"), "round \(round)")
                #expect(metrics.contains("webimage_cache_lookups_total"), "round \(round)")
                running.cancel()
                try await running.value
            }
        }
    }

    /// The value of the sample line that starts with `name` (its labels included).
    static func value(of name: String, in metrics: String) -> Double? {
        metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }
}
