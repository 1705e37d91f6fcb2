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

    /// A progressive JPEG of several megabytes, its first half sent at once in many chunks: partial
    /// images, then the whole one. Each partial decode reads one copy of the body so far (the
    /// download's metrics count them); the body is not copied once a chunk while a decode runs,
    /// which made a large progressive download quadratic. Measured, not timed: 1 and 4 MB bodies,
    /// the bytes the partial decodes read and the process's CPU time, printed as ratios.
    @Test(.timeLimit(.minutes(TestAllowance.minutes(2))))
    func aMultiMegabyteProgressiveDownloadGivesPartialImagesAndCopiesTheBodyOncePerDecode() async throws {
        var ratios: [(bytes: Int, decodes: Int, read: Int, cpu: Double)] = []
        for side in [700, 1400] {
            let data = try Self.noiseJPEG(side: side)
            let (decodes, read, cpu) = try await withOrigin { server async throws in
                let gate = server.routeHeld("/large.jpg", body: Array(data), type: "image/jpeg")
                let started = Self.processCPUTime()
                let (token, recorder) = makeDownloader().recordedDownload(server.url("/large.jpg"), options: .progressiveLoad)
                await recorder.wait { _, partials in partials >= 1 }
                gate.open()
                let outcome = await recorder.outcome()
                let final = try #require(outcome.image)
                #expect(!final.isIncremental && final.pixelWidth == side)
                #expect(!outcome.partialImages.isEmpty && outcome.partialImages.allSatisfy { $0.isIncremental && $0.pixelWidth == side })
                let metrics = try #require(token?.metrics)
                #expect(metrics.partialDecodeCount >= outcome.partialImages.count)
                // One copy of the body (as it then was) a decode, never more.
                #expect(metrics.partialDecodeBytes <= metrics.partialDecodeCount * data.count, "\(metrics)")
                return (metrics.partialDecodeCount, metrics.partialDecodeBytes, Self.processCPUTime() - started)
            }
            ratios.append((data.count, decodes, read, cpu))
        }
        let (small, large) = (ratios[0], ratios[1])
        print(
            "progressive download of \(small.bytes) and \(large.bytes) bytes (x\(Double(large.bytes) / Double(small.bytes))): "
                + "partial decodes \(small.decodes) and \(large.decodes), bytes they read x\(Double(large.read) / Double(max(1, small.read))), "
                + "process CPU time x\(large.cpu / max(small.cpu, 1e-6))"
        )
    }

    /// A progressive JPEG of noise, `side` pixels square: about 3 bytes a pixel at quality 95.
    private static func noiseJPEG(side: Int) throws -> Data {
        var generator = SeededGenerator(seed: UInt64(side))
        let pixels = (0..<side * side).flatMap { _ in
            let value = generator.next()
            return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16), 255]
        }
        var options = ImageCoderOptions()
        options.encodeInterlaced = true
        options.encodeCompressionQuality = 0.95
        return try ImageCodersManager.shared.encode(try #require(Image(rgba8Pixels: pixels, width: side, height: side)), format: .jpeg, options: options)
    }

    /// CPU seconds this process has used (every thread's).
    private static func processCPUTime() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
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
