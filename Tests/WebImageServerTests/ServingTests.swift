import Foundation
import Metrics
import MetricsTestKit
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The serving side over loopback HTTP, with imgproxy's URLs and the package's test server as
/// the origin: caches, sharing, limits, timeouts, errors.
@Suite(.offThePool) struct ServingTests {
    /// The unsigned imgproxy path of the origin's `image` through `options`, `query` added to
    /// the source URL.
    static func path(_ origin: TestServer, _ image: String, options: String = "rs:fit:300:200", query: String = "") -> String {
        path(origin, route: "/images/" + image, options: options, query: query)
    }

    static func path(_ origin: TestServer, route: String, options: String = "rs:fit:300:200", query: String = "") -> String {
        let source = (origin.url(route).absoluteString + query).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/unsafe/\(options)/plain/\(source)@jpg"
    }

    /// A route of `origin` that sends the first half of rocket.jpg, the rest once `gate` opens.
    static func heldRocket(_ origin: TestServer, at route: String, gate: TestGate) throws {
        try held(origin, "photos/rocket.jpg", at: route, gate: gate)
    }

    /// A route of `origin` that sends the first half of the test image `image`, the rest once
    /// `gate` opens.
    static func held(_ origin: TestServer, _ image: String, at route: String, gate: TestGate) throws {
        let body = try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent(image))
        origin.routeHeld(route, body: Array(body), type: image.hasSuffix(".png") ? "image/png" : "image/jpeg", until: gate)
    }

    /// The file name a result is offered under is its source's, as Foundation's
    /// `deletingPathExtension().lastPathComponent` reads it (the cases compared with it once).
    @Test(arguments: [
        ("/photos/rocket.jpg", "rocket"), ("photos/a.b.png", "a.b"), ("/x/", "x"), ("/", ""), (".hidden", ".hidden"),
        ("/a/.b", ".b"), ("a b.c", "a b"), ("/a.", "a."), ("/a..", "a.."), ("/x/y.tar.gz", "y.tar"), ("/dir.d/", "dir"), ("//", ""),
    ])
    func theOfferedFileNameIsTheSourcesLastComponentWithoutItsExtension(path: String, stem: String) {
        #expect(ImageResponse.fileStem(path) == stem)
    }

    /// Memory hits of one result carry the same headers; a request with its own file name,
    /// attachment or URL expiry gets its own, and the next plain hit is as before.
    @Test func hitsCarryTheResultsHeadersAndARequestWithItsOwnGetsItsOwn() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let path = Self.path(origin, "photos/rocket.jpg")
                #expect(try await server.get(path).header("x-cache") == "miss")
                func fields(_ reply: ServerUnderTest.Reply) -> [String: String] { reply.headers.filter { !["date", "x-request-id"].contains($0.key) } }
                let (first, second) = (try await server.get(path), try await server.get(path))
                #expect(first.header("x-cache") == "memory" && fields(first) == fields(second), "\(first.headers)")
                #expect(first.header("content-length") == String(first.body.count) && first.header("etag") != nil)
                #expect(first.header("content-disposition") == "inline; filename=\"rocket.jpg\"")
                let named = try await server.get(Self.path(origin, "photos/rocket.jpg", options: "rs:fit:300:200/fn:poster"))
                #expect(named.header("x-cache") == "memory" && named.header("content-disposition") == "inline; filename=\"poster.jpg\"")
                let attached = try await server.get(Self.path(origin, "photos/rocket.jpg", options: "rs:fit:300:200/att:1"))
                #expect(attached.header("content-disposition") == "attachment; filename=\"rocket.jpg\"")
                let expiring = try await server.get(Self.path(origin, "photos/rocket.jpg", options: "rs:fit:300:200/exp:\(Int(Date().timeIntervalSince1970) + 100)"))
                let maxAge = expiring.header("cache-control").flatMap { Int($0.split(separator: "=").last ?? "") }
                #expect(expiring.header("x-cache") == "memory" && maxAge.map { (1...100).contains($0) } == true, "\(expiring.headers)")
                // A plain hit's headers are as they were.
                #expect(fields(try await server.get(path)) == fields(first))
            }
        }
    }

    @Test func aThumbnailIsMadeOnceThenServedFromMemoryThenFromDiskAfterARestart() async throws {
        try await withOrigin { origin in
            let configuration = ImageServerConfiguration.fetchingFromLoopback()
            let path = Self.path(origin, "photos/rocket.jpg")
            let (first, tag) = try await withRunningServer(configuration, keepingCache: true) { server in
                let first = try await server.get(path)
                #expect(first.status == 200 && first.header("content-type") == "image/jpeg" && first.header("x-cache") == "miss")
                let image = try ImageCodersManager.shared.decode(first.body, options: ImageCoderOptions())
                #expect(image.pixelWidth <= 300 && image.pixelHeight <= 200 && (image.pixelWidth == 300 || image.pixelHeight == 200))
                #expect(first.header("cache-control") == "public, max-age=31536000")
                #expect(first.header("content-disposition") == "inline; filename=\"rocket.jpg\"")
                let tag = try #require(first.header("etag"))
                let madeID = try #require(first.header("x-request-id"))
                #expect(plausibleRequestID(madeID) == madeID)

                let second = try await server.get(path, headers: ["X-Request-ID": "abc-123"])
                #expect(second.status == 200 && second.header("x-cache") == "memory" && second.body == first.body)
                #expect(second.header("x-request-id") == "abc-123")
                let third = try await server.get(path, headers: ["X-Request-ID": String(repeating: "a", count: 65)])
                let thirdID = try #require(third.header("x-request-id"))
                #expect(plausibleRequestID(thirdID) == thirdID && thirdID != madeID, "an implausible ID is replaced by a new one")
                let notModified = try await server.get(path, headers: ["If-None-Match": tag])
                #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("etag") == tag)
                // Another size: the source from memory (its second use, which writes it to disk).
                let smaller = try await server.get(Self.path(origin, "photos/rocket.jpg", options: "rs:fit:150:100"))
                #expect(smaller.status == 200 && smaller.header("x-cache") == "miss")
                #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)
                return (first, tag)
            }

            // The same cache folder after a restart: a disk hit, the same bytes and tag.
            try await withRunningServer(configuration) { restarted in
                let third = try await restarted.get(path)
                #expect(third.status == 200 && third.header("x-cache") == "disk" && third.body == first.body && third.header("etag") == tag)
                // Another size of the same source comes from the source cache on disk, not the
                // origin; and its ETag, known from the cached source's validator, answers 304
                // before any work.
                let otherPath = Self.path(origin, "photos/rocket.jpg", options: "rs:fit:100:100")
                let other = try await restarted.get(otherPath)
                #expect(other.status == 200 && other.header("x-cache") == "miss")
                #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)
                let otherTag = try #require(other.header("etag"))
                #expect(otherTag != tag)
            }
        }
    }

    /// A source used once is never written to disk (most sources are asked for at one size);
    /// its second use writes it. With no memory tier for sources, the first use writes it.
    /// (Counted after the server stops: it finishes its writes first.)
    @Test(arguments: [ImageServerConfiguration().sourceMemoryCacheSize, 0])
    func aSourceGoesToDiskOnItsSecondUseOrAtOnceWithoutAMemoryTier(memoryBytes: Int) async throws {
        try await withOrigin { origin in
            for uses in 1...2 {
                var configuration = ImageServerConfiguration.fetchingFromLoopback()
                configuration.sourceMemoryCacheSize = memoryBytes
                let image = uses == 1 ? "photos/rocket.jpg" : "photos/astronaut.png"
                try await withRunningServer(configuration, keepingCache: true) { server in
                    for size in ["rs:fit:300:200", "rs:fit:150:100"].prefix(uses) {
                        let reply = try await server.get(Self.path(origin, image, options: size))
                        #expect(reply.status == 200 && reply.header("x-cache") == "miss")
                    }
                }
                defer { try? FileManager.default.removeItem(atPath: configuration.cacheDirectory) }
                let written = Self.entries(in: URL(fileURLWithPath: configuration.cacheDirectory).appendingPathComponent("sources"))
                #expect(written == (uses == 1 && memoryBytes > 0 ? 0 : 1), "\(uses) uses")
                #expect(origin.requestCount("/images/" + image) == 1)
            }
        }
    }

    /// Entries of a store's folder (hidden names are temporaries and sidecars).
    static func entries(in folder: URL) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }.count
    }

    /// The origin holds the source until all fifty have joined the one processing (each counted
    /// as a cache miss, the step before it joins): one fetch, one processing, fifty answers.
    @Test func fiftyIdenticalRequestsAtOnceFetchTheSourceOnceAndProcessOnce() async throws {
        try await withOrigin { origin in
            let gate = TestGate()
            try Self.held(origin, "photos/astronaut.png", at: "/held.png", gate: gate)
            let metrics = TestMetrics()
            try await withRunningServer(.fetchingFromLoopback(), metrics: metrics) { server in
                let path = Self.path(origin, route: "/held.png")
                let replies = Task {
                    try await withThrowingTaskGroup(of: ServerUnderTest.Reply.self) { group in
                        for _ in 0..<50 { group.addTask { try await server.get(path) } }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }
                #expect(await origin.wait { $0.requests["/held.png"] == 1 })
                // No event tells that a request joined: the count of misses, polled.
                let joined = await eventually(within: TestAllowance.eventWait) {
                    (try? metrics.expectCounter("webimage_server_cache_lookups_total", [("tier", "miss")]).totalValue) == 50
                }
                #expect(joined, "every request missed the cache before the source came")
                gate.open()
                let answered = try await replies.value
                #expect(answered.count == 50 && answered.allSatisfy { $0.status == 200 && $0.body == answered[0].body })
                #expect(origin.statistics.totalRequests == 1)
                #expect(try metrics.expectCounter("webimage_server_processed_total").totalValue == 1)
                #expect(try metrics.expectCounter("webimage_server_requests_total", [("status", "200"), ("format", "jpg")]).totalValue == 50)
            }
        }
    }

    @Test func withEveryWorkerBusyAndTheQueueFullARequestIs429AtOnce() async throws {
        try await withOrigin { origin in
            let gate = TestGate()
            try Self.heldRocket(origin, at: "/held", gate: gate)
            let metrics = TestMetrics()
            let configuration = ImageServerConfiguration.fetchingFromLoopback {
                $0.workers = 1
                $0.requestsQueueSize = 1
            }
            try await withRunningServer(configuration, metrics: metrics) { server in
                // The first holds the one worker while its source is held at the origin.
                let busy = Task { try await server.get(Self.path(origin, route: "/held", options: "rs:fit:10:10")) }
                #expect(await origin.wait { $0.requests["/held"] == 1 })
                let queued = Task { try await server.get(Self.path(origin, route: "/held", options: "rs:fit:20:20")) }
                // Once the second waits in the queue (no event tells: the gauge, polled), a third
                // is refused.
                let waiting = await eventually(within: TestAllowance.eventWait) {
                    (try? metrics.expectGauge("webimage_server_queue_depth").lastValue) == 1
                }
                try #require(waiting, "the second request never waited in the queue")
                // At once: answered while the gate is closed, so before any slot could free.
                let refused = try await server.get(Self.path(origin, "photos/rocket.jpg", options: "rs:fit:30:30"))
                #expect(refused.status == 429 && refused.header("retry-after") == "1")
                #expect(refused.body == Data("Too many requests\n".utf8))
                #expect(!gate.isOpen && origin.statistics.completedResponses["/held"] == nil)
                gate.open()
                #expect(try await busy.value.status == 200)
                #expect(try await queued.value.status == 200)
                // The second took the first's source from the source cache.
                #expect(origin.requestCount("/held") == 1)
            }
        }
    }

    @Test func aClientThatGoesAwayStopsItsWorkWhenAlone() async throws {
        try await withOrigin { origin in
            try Self.heldRocket(origin, at: "/never", gate: TestGate())
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let request = Task { try await server.get(Self.path(origin, route: "/never"), deadline: .seconds(30)) }
                #expect(await origin.wait { $0.requests["/never"] == 1 })
                request.cancel()
                _ = try? await request.value
                // The server sees its client go and leaves the work nobody else waits for: the
                // download it was alone on is cancelled, and the origin's response cut short.
                #expect(await origin.wait { $0.abortedResponses["/never"] == 1 })
            }
        }
    }

    @Test func aRequestOverTheTimeoutIs503() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback { $0.timeout = 0.5 }) { server in
                let slow = try await server.get(Self.path(origin, "photos/rocket.jpg", query: "?delay=3000"))
                #expect(slow.status == 503 && slow.body == Data("Timeout\n".utf8) && slow.header("cache-control") == "no-store")
            }
        }
    }

    @Test func anOriginErrorIs404AndIsNeverStored() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let missing = Self.path(origin, "photos/no-such-image.jpg")
                #expect(try await server.get(missing).status == 404)
                #expect(try await server.get(missing).status == 404)
                #expect(origin.requestCount("/images/photos/no-such-image.jpg") == 2)
                let broken = try await server.get(Self.path(origin, "photos/rocket.jpg", query: "?status=403"))
                #expect(broken.status == 404 && String(decoding: broken.body, as: UTF8.self) == "Source is unreachable\n")
                #expect(!String(decoding: broken.body, as: UTF8.self).contains("127.0.0.1"))
            }
        }
    }
}
