import Foundation
import MetricsTestKit
import Testing
import WebImageSupport
import WebImage
import WebImageTestServer
@testable import WebImageServer

/// Paths `/<any>/<W>x<H>/<percent-escaped source URL>`: a fit thumbnail as JPEG. Only for the
/// serving side's tests, until they run on imgproxy's parser.
struct ThumbnailPathParser: ImageRequestParser {
    /// Runs before each processing (a test's gate), then the thumbnail is made.
    var beforeProcessing: @Sendable () async -> Void = {}

    func imageRequest(path: Substring, accept: String?) throws(ImageServerError) -> ImageRequest {
        let parts = path.split(separator: "/", maxSplits: 2)
        guard parts.count == 3, let x = parts[1].firstIndex(of: "x"),
              let width = Int(parts[1][..<x]), let height = Int(parts[1][parts[1].index(after: x)...]),
              let text = String(parts[2]).removingPercentEncoding, let url = URL(string: text)
        else { throw ImageServerError.badPath("not W x H / source") }
        let before = beforeProcessing
        return ImageRequest(
            source: .remote(url), resultKey: "\(width)x\(height)|\(url.absoluteString)", variesWithAccept: false,
            loggedPath: "/\(parts[1])/\(parts[2])"
        ) { source in
            await before()
            let options = { () -> ImageCoderOptions in
                var options = ImageCoderOptions()
                options.decodeThumbnailPixelSize = CGSize(width: width, height: height)
                return options
            }()
            let data = try await BlockingPool.run { () throws -> Data in
                let image = try ImageCodersManager.shared.decode(source.data, options: options)
                guard let data = image.encodedData(format: .jpeg) else { throw ImageServerError.unprocessable(log: "encode") }
                return data
            }
            return ProcessedImage(data: data, format: .jpeg)
        }
    }
}

@Suite struct ServingTests {
    /// The server path of a `size` thumbnail of the origin's `image`, `query` added to the source URL.
    static func path(_ origin: TestServer, _ image: String, size: String = "300x200", query: String = "") -> String {
        let source = (origin.url("/images/" + image).absoluteString + query).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/sig/\(size)/\(source)"
    }

    @Test func aThumbnailIsMadeOnceThenServedFromMemoryThenFromDiskAfterARestart() async throws {
        let origin = try await TestServer.start()
        defer { Task { await origin.shutdown() } }
        let server = try await ServerUnderTest.start(parser: ThumbnailPathParser()) { $0.allowsLoopbackSourceAddresses = true }
        let path = Self.path(origin, "photos/rocket.jpg")
        let first = try await server.get(path)
        #expect(first.status == 200 && first.header("content-type") == "image/jpeg" && first.header("x-cache") == "miss")
        let image = try ImageCodersManager.shared.decode(first.body, options: ImageCoderOptions())
        #expect(image.pixelWidth <= 300 && image.pixelHeight <= 200 && (image.pixelWidth == 300 || image.pixelHeight == 200))
        #expect(first.header("cache-control") == "public, max-age=31536000")
        let tag = try #require(first.header("etag"))
        #expect(first.header("x-request-id")?.count == 20)

        let second = try await server.get(path, headers: ["X-Request-ID": "abc-123"])
        #expect(second.status == 200 && second.header("x-cache") == "memory" && second.body == first.body)
        #expect(second.header("x-request-id") == "abc-123")
        let notModified = try await server.get(path, headers: ["If-None-Match": tag])
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("etag") == tag)
        #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)

        // The same cache folder after a restart: a disk hit, the same bytes and tag.
        let folder = server.cacheFolder
        await server.stopKeepingCache()
        let restarted = try await ServerUnderTest.start(parser: ThumbnailPathParser()) {
            $0.allowsLoopbackSourceAddresses = true
            $0.cacheDirectory = folder
        }
        defer { Task { await restarted.stop() } }
        let third = try await restarted.get(path)
        #expect(third.status == 200 && third.header("x-cache") == "disk" && third.body == first.body && third.header("etag") == tag)
        // Another size of the same source comes from the source cache, not the origin.
        let other = try await restarted.get(Self.path(origin, "photos/rocket.jpg", size: "100x100"))
        #expect(other.status == 200 && other.header("x-cache") == "miss")
        #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)
    }

    @Test func fiftyIdenticalRequestsAtOnceFetchTheSourceOnceAndProcessOnce() async throws {
        let origin = try await TestServer.start()
        defer { Task { await origin.shutdown() } }
        let metrics = TestMetrics()
        let server = try await ServerUnderTest.start(parser: ThumbnailPathParser(), metrics: metrics)
        defer { Task { await server.stop() } }
        let path = Self.path(origin, "photos/astronaut.png", query: "?delay=300")
        let replies = try await withThrowingTaskGroup(of: ServerUnderTest.Reply.self) { group in
            for _ in 0..<50 { group.addTask { try await server.get(path) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 200 && $0.body == replies[0].body })
        #expect(origin.statistics.totalRequests == 1)
        #expect(try metrics.expectCounter("webimage_server_processed_total").totalValue == 1)
        #expect(try metrics.expectCounter("webimage_server_requests_total", [("status", "200"), ("format", "jpg")]).totalValue == 50)
    }

    @Test func withEveryWorkerBusyAndTheQueueFullARequestIs429AtOnce() async throws {
        let origin = try await TestServer.start()
        defer { Task { await origin.shutdown() } }
        let gate = WorkerSlotsTests.Gate()
        let arrived = Counter()
        let parser = ThumbnailPathParser(beforeProcessing: { arrived.add(1); await gate.wait() })
        let metrics = TestMetrics()
        let server = try await ServerUnderTest.start(parser: parser, metrics: metrics) {
            $0.workers = 1
            $0.requestsQueueSize = 1
        }
        defer { Task { await server.stop() } }
        let busy = Task { try await server.get(Self.path(origin, "photos/rocket.jpg", size: "10x10")) }
        while arrived.value < 1 { await Task.yield() }
        let queued = Task { try await server.get(Self.path(origin, "photos/rocket.jpg", size: "20x20")) }
        // Once the second waits in the queue, a third is refused at once.
        while (try? metrics.expectGauge("webimage_server_queue_depth").lastValue) != 1 { await Task.yield() }
        let started = ContinuousClock.now
        let refused = try await server.get(Self.path(origin, "photos/rocket.jpg", size: "30x30"))
        #expect(refused.status == 429 && refused.header("retry-after") == "1")
        #expect(refused.body == Data("Too many requests\n".utf8))
        #expect(ContinuousClock.now - started < .seconds(5))
        gate.open()
        #expect(try await busy.value.status == 200)
        #expect(try await queued.value.status == 200)
    }

    @Test func aClientThatGoesAwayStopsItsProcessingWhenAlone() async throws {
        let origin = try await TestServer.start()
        defer { Task { await origin.shutdown() } }
        let waiting = Gate2()
        let parser = ThumbnailPathParser(beforeProcessing: { await waiting.waitCancellable() })
        let server = try await ServerUnderTest.start(parser: parser)
        defer { Task { await server.stop() } }
        let request = Task { try await server.get(Self.path(origin, "photos/rocket.jpg"), deadline: .seconds(30)) }
        while !waiting.isWaiting { await Task.yield() }
        request.cancel()
        _ = try? await request.value
        // The server sees the connection close and cancels the work nobody else waits for.
        for _ in 0..<100_000 where !waiting.sawCancellation { await Task.yield() }
        #expect(waiting.sawCancellation)
    }

    @Test func aRequestOverTheTimeoutIs503() async throws {
        let origin = try await TestServer.start()
        defer { Task { await origin.shutdown() } }
        let server = try await ServerUnderTest.start(parser: ThumbnailPathParser()) { $0.timeout = 0.5 }
        defer { Task { await server.stop() } }
        let slow = try await server.get(Self.path(origin, "photos/rocket.jpg", query: "?delay=3000"))
        #expect(slow.status == 503 && slow.body == Data("Timeout\n".utf8) && slow.header("cache-control") == "no-store")
    }

    @Test func anOriginErrorIs404AndIsNeverStored() async throws {
        let origin = try await TestServer.start()
        defer { Task { await origin.shutdown() } }
        let server = try await ServerUnderTest.start(parser: ThumbnailPathParser())
        defer { Task { await server.stop() } }

        let missing = Self.path(origin, "photos/no-such-image.jpg")
        let firstMissing = try await server.get(missing)
        let secondMissing = try await server.get(missing)
        #expect(firstMissing.status == 404 && secondMissing.status == 404, "\(firstMissing.status) \(String(decoding: secondMissing.body, as: UTF8.self))")
        #expect(origin.requestCount("/images/photos/no-such-image.jpg") == 2)
        let broken = try await server.get(Self.path(origin, "photos/rocket.jpg", query: "?status=403"))
        #expect(broken.status == 404, "\(broken.status) \(String(decoding: broken.body, as: UTF8.self))")
        #expect(broken.status == 404 && String(decoding: broken.body, as: UTF8.self) == "Source is unreachable\n")
        #expect(!String(decoding: broken.body, as: UTF8.self).contains("127.0.0.1"))
    }
}
