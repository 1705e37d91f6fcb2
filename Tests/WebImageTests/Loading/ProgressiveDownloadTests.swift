import Foundation
import Metrics
import MetricsTestKit
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite("Loading: progress, partial images and events", .offThePool) struct ProgressiveDownloadTests {
    /// The server sends each of 8 parts only when the test opens its gate: after the client
    /// received the part before and, where that prefix holds a decodable image (worked out here
    /// with a coder of our own), delivered a partial image for it. Paced by events, not by time,
    /// so a busy machine cannot make the client skip parts.
    @Test(.timeLimit(.minutes(TestAllowance.minutes(1))))
    func aProgressiveJPEGTrickledInEightPartsGivesPartialImagesThenTheWholeOne() async throws {
        try await withOrigin { server async throws in
            let name = "libjpeg-turbo/testimgint.jpg"
            let data = try TestImages.data(name)
            let part = (data.count + 7) / 8
            let decodable = (1..<8).map { piece in
                let coder = ProgressiveVipsCoder(incrementalWithOptions: ImageCoderOptions())
                coder.updateIncrementalData(data.prefix(piece * part), finished: false)
                return coder.incrementalDecodedImage(options: ImageCoderOptions()) != nil
            }
            #expect(decodable.filter { $0 }.count >= 2, "the file holds at least two decodable prefixes")
            let gate = TestGate()
            server.route("/gated.jpg") { _ in
                var response = TestResponse.content(Array(data), type: "image/jpeg")
                response.chunkSize = part
                response.gate = gate
                return response
            }
            let recorder = makeDownloader().recordedDownload(server.url("/gated.jpg"), options: .progressiveLoad).1
            var expectedPartials = 0
            for piece in 1..<8 {
                await recorder.wait { received, _ in received >= piece * part }
                if decodable[piece - 1] {
                    expectedPartials += 1
                    let wanted = expectedPartials
                    await recorder.wait { _, partials in partials >= wanted }
                }
                gate.open()
            }
            let outcome = await recorder.outcome()
            let final = try #require(outcome.image)
            #expect(outcome.partialImages.count >= 2, "\(outcome.partialImages.count) partial images")
            #expect(outcome.partialImages.allSatisfy { $0.isIncremental && $0.pixelWidth == final.pixelWidth })
            #expect(!final.isIncremental)
            let plain = try TestImages.decoded(data)
            #expect(try PixelDifference(final, plain, tolerance: 0).largest == 0)
        }
    }

    @Test func withoutTheOptionOrWithADecryptorNoPartialImageIsDelivered() async throws {
        try await withOrigin { server in
            let url = server.url("/images/libjpeg-turbo/testimgint.jpg?parts=8&chunkDelay=30")
            let plain = await makeDownloader().recordedDownload(url).1.outcome()
            #expect(plain.partialImages.isEmpty && plain.image != nil)
            var context = WebImageContext()
            context.downloadDecryptor = DownloaderDecryptor { data, _ in data }
            let decrypted = await makeDownloader().recordedDownload(url, options: .progressiveLoad, context: context).1.outcome()
            #expect(decrypted.partialImages.isEmpty && decrypted.image != nil)
        }
    }

    @Test func progressIsThrottledByTheMinimumIntervalAndAlwaysReportsTheEnd() async throws {
        try await withOrigin { server in
            let size = try TestImages.data("photos/rocket.jpg").count
            let url = server.url("/images/photos/rocket.jpg?chunk=4000&chunkDelay=10")
            let every = makeDownloader().recordedDownload(url).1
            _ = await every.outcome()
            let all = every.progressReports
            // 29 pieces; the client may read several at once when it falls behind.
            #expect(all.count > 5 && all.last?.0 == size && all.allSatisfy { $0.1 == size }, "\(all)")
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.0 <= $1.0 }, "progress never goes back")

            let throttled = makeDownloader { $0.minimumProgressInterval = 0.51 }.recordedDownload(url).1
            _ = await throttled.outcome()
            let reports = throttled.progressReports
            #expect(reports.count <= 4 && reports.count >= 2, "\(reports)")
            #expect(reports.last?.0 == size)
        }
    }

    @Test func eventsArriveInOrderForEveryDownload() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let events = downloader.events
            let url = server.url("/images/sdwebimage/TestImage.jpg")
            _ = try await downloader.downloadImage(with: url)
            _ = await downloader.recordedDownload(server.url("/status/404")).1.outcome()
            var names: [String] = []
            for await event in events {
                switch event {
                case .start(let eventURL, let request):
                    #expect(request.url == eventURL)
                    names.append("start")
                case .receiveResponse(_, let response): names.append("response \(response.statusCode)")
                case .stop: names.append("stop")
                case .finish: names.append("finish")
                }
                if names.count == 6 { break }
            }
            #expect(names == ["start", "response 200", "stop", "finish", "start", "stop"])
        }
    }

    @Test func countersRecordOutcomesBytesAndRetries() async throws {
        let metrics = TestMetrics()
        try await withOrigin { server in
            let downloader = makeDownloader { $0.metricsFactory = metrics }
            let result = try await downloader.downloadImage(with: server.url("/images/photos/rocket.jpg?failFirst=1&retryAfter=0"))
            _ = await downloader.recordedDownload(server.url("/status/404")).1.outcome()
            let successes = try metrics.expectCounter("webimage_downloads_total", [("result", "success")])
            let failures = try metrics.expectCounter("webimage_downloads_total", [("result", "failure")])
            #expect(successes.totalValue == 1 && failures.totalValue == 1)
            #expect(try metrics.expectCounter("webimage_download_retries_total").totalValue == 1)
            #expect(try metrics.expectCounter("webimage_download_bytes_total").totalValue >= Int64(result.data.count))
        }
    }
}
