import Foundation
import Testing
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

extension Heavy {
    /// The production shape on loopback (scripts/scale-out.sh): two `webimage serve` processes
    /// sharing one cache folder behind nginx (scripts/scale-out.nginx.conf: round robin,
    /// `proxy_cache`, the next server tried on an error).
    @Suite(.offThePool) struct ScaleOutTests {
        /// Results on disk, both servers together.
        static let resultCacheSize = 300 << 10

        /// The settings of a `webimage serve` on the shared `cache` folder with its metrics on `metricsPort`.
        static func settings(cache: URL, metricsPort: Int) -> [String] {
            [
                "--cache-dir", cache.path, "--result-cache-size", "\(resultCacheSize)", "--allow-loopback-source-addresses",
                "--workers", "16", "--prometheus-bind", "127.0.0.1:\(metricsPort)",
            ]
        }

        /// Requests a server answered so far (`webimage_server_requests_total`, every status).
        static func answered(metricsPort: Int) async throws -> Int {
            Int(try await ScrapedMetrics.scrape(port: metricsPort).sum("webimage_server_requests_total"))
        }

        /// Bytes of the entries in `folder` (its hidden temporary files left out, as the cache counts).
        static func size(of folder: URL) -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.reduce(0) { total, name in
                let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
                return total + ((attributes?[.size] as? Int) ?? 0)
            }
        }

        @Test func twoServersBehindNginxShareResultsSurviveAKillAndKeepTheFolderWithinItsLimit() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-scale-out-" + UUID().uuidString)
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = folder.appendingPathComponent("cache")
            try await withOrigin { origin in
                let firstMetrics = try FreePort.next()
                try await withServeProcess(Self.settings(cache: cache, metricsPort: firstMetrics)) { first in
                    let secondMetrics = try FreePort.next()
                    try await withServeProcess(Self.settings(cache: cache, metricsPort: secondMetrics)) { second in
                        try await withNginx(upstreams: [first.port, second.port], folder: folder.appendingPathComponent("nginx")) { nginx in
                            // A result one server made is read by the other from the shared folder.
                            let shared = ServingTests.path(origin, "photos/rocket.jpg", options: "rs:fill:300:200")
                            let made = try await ServerUnderTest.get(shared, port: first.port)
                            #expect(made.status == 200 && made.header("x-cache") == "miss")
                            let read = try await ServerUnderTest.get(shared, port: second.port)
                            #expect(read.status == 200 && read.header("x-cache") == "disk" && read.body == made.body)
                            #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)

                            // nginx answers repeats itself: neither server counts another request.
                            let repeated = ServingTests.path(origin, "photos/astronaut.png", options: "rs:fit:200:200")
                            let miss = try await ServerUnderTest.get(repeated, port: nginx.port)
                            #expect(miss.status == 200 && miss.header("x-cache-status") == "MISS")
                            let before = try await Self.answered(metricsPort: firstMetrics) + Self.answered(metricsPort: secondMetrics)
                            for _ in 0..<10 {
                                let hit = try await ServerUnderTest.get(repeated, port: nginx.port)
                                #expect(hit.status == 200 && hit.header("x-cache-status") == "HIT" && hit.header("x-upstream") == nil && hit.body == miss.body)
                            }
                            let after = try await Self.answered(metricsPort: firstMetrics) + Self.answered(metricsPort: secondMetrics)
                            #expect(after == before)

                            // Both writing results, one after the other through nginx (round robin: in turn): the
                            // shared folder stays within its limit, though each server writes more than the limit.
                            let results = cache.appendingPathComponent("results")
                            var largest = 0
                            for width in 100..<160 {
                                let reply = try await ServerUnderTest.get(ServingTests.path(origin, "photos/rocket.jpg", options: "rs:fit:\(width * 3):\(width * 2)"), port: nginx.port)
                                #expect(reply.status == 200 && reply.header("x-cache-status") == "MISS")
                                largest = max(largest, Self.size(of: results))
                            }
                            // What a server's last trim left: it trims in the background after a write, in
                            // another process (no event here: the folder's size, polled).
                            let trimmed = await eventually(within: TestAllowance.eventWait, every: .milliseconds(50)) { Self.size(of: results) <= Self.resultCacheSize }
                            #expect(trimmed, "\(Self.size(of: results)) bytes")
                            // Between a write and its trim, a few entries more at most.
                            #expect(largest <= Self.resultCacheSize + (64 << 10), "\(largest) bytes at most")

                            // One server killed while requests wait on it: nginx sends them to the other, and every
                            // request is answered. Each source is held at the origin for a second first.
                            let seen = origin.requestCount("/images/photos/rocket.jpg")
                            let requests = (0..<20).map { n in
                                Task {
                                    try await ServerUnderTest.get(ServingTests.path(origin, "photos/rocket.jpg", query: "?delay=1000&n=\(n)"), port: nginx.port)
                                }
                            }
                            #expect(await origin.wait { $0.requests["/images/photos/rocket.jpg"] == seen + 20 })
                            first.signal(SIGKILL)
                            var retried = 0
                            for request in requests {
                                let reply = try await request.value
                                #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
                                // $upstream_addr lists every server tried.
                                if reply.header("x-upstream")?.contains(",") == true { retried += 1 }
                            }
                            #expect(retried > 0)
                            #expect(await first.exitStatus() != 0)
                            let afterKill = try await ServerUnderTest.get(ServingTests.path(origin, "photos/rocket.jpg", options: "rs:fit:50:50"), port: nginx.port)
                            #expect(afterKill.status == 200)
                        }
                        second.signal(SIGTERM)
                        #expect(await second.exitStatus() == 0)
                    }
                }
            }
        }
    }
}
