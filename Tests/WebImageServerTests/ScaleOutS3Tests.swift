import Foundation
import Testing
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

extension Heavy {
    /// Issue 41: replicas sharing results through object storage (docs/server-shared-cache.md,
    /// scripts/scale-out-s3.sh). Three `webimage serve` processes, each with memory and a cache
    /// folder of its own, storing results in one bucket of moto (IAM authentication on), behind
    /// nginx passing every request on round robin (no cache of its own: every repeat reaches a
    /// replica).
    @Suite(.offThePool) struct ScaleOutS3Tests {
        static let bucket = "results"
        /// Distinct results, and requests for them in all.
        static let (results, requests) = (30, 300)

        /// A result's unsigned path (`signedPath` of it for a replica with a key).
        static func unsigned(_ result: Int) -> String {
            ImagePathBuilder.path(options: "rs:fit:\(100 + result):\(100 + result)", sourceURL: "local:///photos/rocket.jpg", format: "jpg", encoding: .plain)
        }

        /// A result's path for replicas without a key.
        static func path(_ result: Int) -> String { "/unsafe" + unsigned(result) }

        /// The settings a replica reads from its environment, imgproxy's names.
        static func environment(_ moto: MotoServer) -> [String: String] {
            [
                "IMGPROXY_CACHE_USE": "s3", "IMGPROXY_CACHE_BUCKET": bucket, "IMGPROXY_CACHE_PATH_PREFIX": "results",
                "IMGPROXY_CACHE_S3_ENDPOINT": moto.endpoint, "AWS_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": moto.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": moto.credentials.secretAccessKey,
            ]
        }

        /// A replica's flags: its own cache folder under `folder`, its metrics on `metricsPort`.
        static func settings(folder: URL, replica: Int, metricsPort: Int) -> [String] {
            [
                "--cache-dir", folder.appendingPathComponent("cache-\(replica)").path, "--local-filesystem-root", TestServer.imagesFolder.path,
                "--workers", "4", "--prometheus-bind", "127.0.0.1:\(metricsPort)",
            ]
        }

        /// The results the replicas made (processed), all of them together.
        static func processed(_ metricsPorts: [Int]) async throws -> Int {
            var total = 0
            for port in metricsPorts { total += Int(try await ScrapedMetrics.scrape(port: port).sum("webimage_server_processed_total")) }
            return total
        }

        /// The results the replicas wrote to the bucket, all of them together.
        static func written(_ metricsPorts: [Int]) async throws -> Int {
            var total = 0
            for port in metricsPorts {
                total += Int(try await ScrapedMetrics.scrape(port: port)
                    .sum("webimage_server_result_storage_calls_total", "operation=\"put\"", "outcome=\"written\""))
            }
            return total
        }

        /// GETs each of `paths` from 127.0.0.1 at `port`, `width` at a time; the replies in the paths' order.
        static func get(_ paths: [String], port: Int, width: Int) async throws -> [ServerUnderTest.Reply] {
            try await withThrowingTaskGroup(of: (Int, ServerUnderTest.Reply).self) { group in
                var replies = [ServerUnderTest.Reply?](repeating: nil, count: paths.count)
                for (index, path) in paths.enumerated() {
                    if index >= width, let (done, reply) = try await group.next() { replies[done] = reply }
                    group.addTask { (index, try await ServerUnderTest.get(path, port: port)) }
                }
                for try await (done, reply) in group { replies[done] = reply }
                return replies.compactMap { $0 }
            }
        }

        @Test func threeReplicasBehindNginxMakeEachResultOnceAndAReplicaStartedLaterReadsThemAll() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-scale-out-s3-" + UUID().uuidString)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await withMoto(bucket: Self.bucket, objects: []) { moto in
                let environment = Self.environment(moto)
                let metricsPorts = try (0..<3).map { _ in try FreePort.next() }
                var made: [ServerUnderTest.Reply] = []
                try await withServeProcess(Self.settings(folder: folder, replica: 0, metricsPort: metricsPorts[0]), environment: environment) { first in
                    try await withServeProcess(Self.settings(folder: folder, replica: 1, metricsPort: metricsPorts[1]), environment: environment) { second in
                        try await withServeProcess(Self.settings(folder: folder, replica: 2, metricsPort: metricsPorts[2]), environment: environment) { third in
                            try await withNginx(upstreams: [first.port, second.port, third.port], folder: folder.appendingPathComponent("nginx"), caches: false) { nginx in
                                // Each result asked for once, 6 at a time: made once, by one replica
                                // each, every replica making some.
                                made = try await Self.get((0..<Self.results).map(Self.path), port: nginx.port, width: 6)
                                #expect(made.count == Self.results && made.allSatisfy { $0.status == 200 && $0.header("x-cache") == "miss" })
                                #expect(Set(made.compactMap { $0.header("x-upstream") }).count == 3)
                                #expect(try await Self.processed(metricsPorts) == Self.results)
                                let stored = await eventually(within: TestAllowance.eventWait, every: .milliseconds(50)) {
                                    (try? await Self.written(metricsPorts)) == Self.results
                                }
                                #expect(stored)

                                // The other 270, each result 9 more times, round robin: none made again.
                                // A replica's first request for a result another made is a hit from
                                // the bucket, its next ones from its memory; each the same bytes.
                                let order = (Self.results..<Self.requests).map { ($0 + $0 / Self.results) % Self.results }
                                let repeats = try await Self.get(order.map(Self.path), port: nginx.port, width: 6)
                                #expect(repeats.count == order.count)
                                for (result, reply) in zip(order, repeats) {
                                    #expect(reply.status == 200 && ["storage", "memory"].contains(reply.header("x-cache") ?? ""))
                                    #expect(reply.body == made[result].body, "result \(result)")
                                }
                                // From the bucket exactly once on each replica a result reached that
                                // did not make it (a result's requests are 30 apart: never two at once).
                                var readers = Set<String>()
                                for (result, reply) in zip(order, repeats) where reply.header("x-upstream") != made[result].header("x-upstream") {
                                    readers.insert("\(result) \(reply.header("x-upstream") ?? "")")
                                }
                                let fromBucket = repeats.filter { $0.header("x-cache") == "storage" }.count
                                #expect(fromBucket == readers.count && fromBucket >= Self.results)
                                #expect(try await Self.processed(metricsPorts) == Self.results)
                            }
                        }
                    }
                }

                // The bucket holds, for each result, the bytes its client got.
                let configuration = try await ImageServerConfiguration.load(
                    arguments: ["webimage"] + Self.settings(folder: folder, replica: 0, metricsPort: metricsPorts[0]), environment: environment
                )
                let client = try SharedResultStoreTests.bucketClient(moto)
                for result in 0..<Self.results {
                    let object = try await client.get(try SharedResultStoreTests.objectKey(Self.path(result), configuration), maximumBytes: 1 << 20)
                    #expect(object.map { Data(buffer: $0.body) } == made[result].body, "result \(result)")
                }
                await client.shutdown()

                // A fourth replica, started after the run and signing with a key of its own (the
                // signature is not in the object's key): all 30 from the bucket, none made.
                let (key, salt) = ("73656372657431", "73616c7431")
                let signer = try URLSigner(key: URLSigningKey(hexKey: key, hexSalt: salt))
                let metricsPort = try FreePort.next()
                var signed = environment
                (signed["IMGPROXY_KEY"], signed["IMGPROXY_SALT"]) = (key, salt)
                try await withServeProcess(Self.settings(folder: folder, replica: 3, metricsPort: metricsPort), environment: signed) { late in
                    // A CDN revalidating what another replica made: the object's ETag, a 304.
                    let etag = try #require(made[0].header("etag"))
                    let revalidated = try await ServerUnderTest.get(signer.signedPath(Self.unsigned(0)), port: late.port, headers: ["If-None-Match": etag])
                    #expect(revalidated.status == 304 && revalidated.header("etag") == etag)
                    let replies = try await Self.get((1..<Self.results).map { signer.signedPath(Self.unsigned($0)) }, port: late.port, width: 6)
                    #expect(replies.map { $0.header("x-cache") } == Array(repeating: "storage", count: Self.results - 1))
                    #expect(replies.map(\.body) == made.dropFirst().map(\.body))
                    #expect(try await Self.processed([metricsPort]) == 0)
                }
            }
        }
    }
}
