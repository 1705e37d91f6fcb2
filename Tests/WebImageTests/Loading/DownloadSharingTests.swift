import Foundation
import Synchronization
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite("Loading: shared downloads and cancellation", .offThePool) struct DownloadSharingTests {
    /// A route of `server` at `path` that sends the first half of the test image `file` at
    /// once, the rest once the returned gate opens.
    static func held(_ file: String, at path: String, on server: TestServer) throws -> TestGate {
        server.routeHeld(path, body: Array(try TestImages.data(file)), type: "application/octet-stream")
    }

    @Test func aHundredCallersOfOneURLShareOneRequest() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let gate = try Self.held("photos/rocket.jpg", at: "/held.jpg", on: server)
            let recorders = (0..<100).map { _ in downloader.recordedDownload(server.url("/held.jpg")).1 }
            // Every caller has joined the one request: now the body may come.
            #expect(downloader.currentDownloadCount == 1)
            gate.open()
            for recorder in recorders {
                let outcome = await recorder.outcome()
                #expect(outcome.image?.pixelWidth == 640 && outcome.error == nil)
            }
            #expect(server.requestCount("/held.jpg") == 1)
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test func cancellingOneOfTwoCallersFailsOnlyThatOne() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let url = server.url("/images/photos/rocket.jpg?parts=4&chunkDelay=50")
            let (first, firstRecorder) = downloader.recordedDownload(url)
            let (_, secondRecorder) = downloader.recordedDownload(url)
            first?.cancel()
            first?.cancel()   // idempotent
            let cancelled = await firstRecorder.outcome()
            #expect(cancelled.webImageError == .cancelled && cancelled.webImageError?.code == 2002 && cancelled.image == nil)
            #expect(await secondRecorder.outcome().image?.pixelWidth == 640)
            #expect(firstRecorder.completionCount == 1 && first?.isCancelled == true)
            #expect(server.requestCount("/images/photos/rocket.jpg") == 1)
        }
    }

    @Test func cancellingEveryCallerStopsTheRequestAndClosesItsConnection() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let path = "/images/photos/rocket.jpg"
            let url = server.url(path + "?chunk=1000&hold=1")   // the body never ends
            let (first, firstRecorder) = downloader.recordedDownload(url)
            let (second, secondRecorder) = downloader.recordedDownload(url)
            #expect(downloader.currentDownloadCount == 1)
            #expect(await server.wait { ($0.requests[path] ?? 0) == 1 })
            first?.cancel()
            second?.cancel()
            #expect(await firstRecorder.outcome().webImageError == .cancelled)
            #expect(await secondRecorder.outcome().webImageError == .cancelled)
            #expect(downloader.currentDownloadCount == 0)
            #expect(await server.wait { $0.abortedResponses[path] == 1 }, "the server saw the connection close before the body ended")
            #expect(server.statistics.completedResponses[path] == nil)
        }
    }

    @Test func aCancelledRequestIsNeverReused() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let url = server.url("/images/sdwebimage/TestImage.png?delay=200")
            let (token, recorder) = downloader.recordedDownload(url)
            token?.cancel()
            #expect(await recorder.outcome().webImageError == .cancelled)
            let again = try await downloader.downloadImage(with: url)
            #expect(again.image.pixelWidth == 300)
        }
    }

    @Test func cancelAllDownloadsCancelsEveryCaller() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader { $0.maxConcurrentDownloads = 1 }
            let recorders = (0..<3).map { downloader.recordedDownload(server.url("/images/photos/rocket.jpg?n=\($0)&delay=500")).1 }
            #expect(downloader.currentDownloadCount == 3)
            downloader.cancelAllDownloads()
            for recorder in recorders { #expect(await recorder.outcome().webImageError == .cancelled) }
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test func eachCallerGetsItsOwnThumbnailSizeFromOneRequest() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let url = server.url("/images/sdwebimage/TestImage.png?parts=3&chunkDelay=30")
            let sizes = [50, 100, 200, 100]
            let recorders = sizes.map { size in
                var context = WebImageContext()
                context.imageThumbnailPixelSize = CGSize(width: size, height: size)
                return downloader.recordedDownload(url, context: context).1
            }
            for (size, recorder) in zip(sizes, recorders) {
                let image = await recorder.outcome().image
                #expect(image?.pixelWidth == size && image?.pixelHeight == size)
            }
            #expect(server.requestCount("/images/sdwebimage/TestImage.png") == 1)
        }
    }

    /// Callers of one held response, each with its own thumbnail box and the same counting coder.
    static func thumbnails(
        of file: String, boxes: [Int], server: TestServer, coder: CountingCoder
    ) async throws -> [WebImage.Image?] {
        let gate = try held(file, at: "/held", on: server)
        let downloader = makeDownloader()
        let recorders = boxes.map { box in
            var context = WebImageContext()
            context.imageCoder = coder
            if box > 0 { context.imageThumbnailPixelSize = CGSize(width: box, height: box) }
            return downloader.recordedDownload(server.url("/held"), context: context).1
        }
        // Every caller has joined the one request: now the body may come.
        #expect(downloader.currentDownloadCount == 1)
        gate.open()
        var images: [WebImage.Image?] = []
        for recorder in recorders { images.append(await recorder.outcome().image) }
        #expect(server.requestCount("/held") == 1)
        return images
    }

    @Test func thumbnailsOfSeveralSizesComeFromOneDecodeOfTheOriginal() async throws {
        try await withOrigin { server async throws in
            let coder = CountingCoder()
            let boxes = [50, 200, 100]
            let images = try await Self.thumbnails(of: "photos/rocket.jpg", boxes: boxes, server: server, coder: coder)
            #expect(coder.decodeCount == 1)
            // The sizes a thumbnail decode of each box gives on its own.
            let data = try TestImages.data("photos/rocket.jpg")
            for (box, image) in zip(boxes, images) {
                var options = ImageCoderOptions()
                options.decodeThumbnailPixelSize = CGSize(width: box, height: box)
                let alone = try ImageCodersManager.shared.decode(data, options: options)
                #expect(image?.pixelWidth == alone.pixelWidth && image?.pixelHeight == alone.pixelHeight, "box \(box)")
            }
        }
    }

    @Test func aFullSizeCallerServesTheThumbnailCallersToo() async throws {
        try await withOrigin { server async throws in
            let coder = CountingCoder()
            let images = try await Self.thumbnails(of: "sdwebimage/TestImage.png", boxes: [100, 0, 30], server: server, coder: coder)
            #expect(coder.decodeCount == 1)
            #expect(images.map { $0?.pixelWidth } == [100, 300, 30])
        }
    }

    @Test func animatedImagesAreDecodedAtEachSize() async throws {
        try await withOrigin { server async throws in
            let coder = CountingCoder()
            let images = try await Self.thumbnails(of: "sdwebimage/TestImageAnimated.webp", boxes: [100, 50], server: server, coder: coder)
            // A thumbnail of an animation is every frame at that size: made by the coder, not from a still.
            #expect(coder.decodeCount == 2)
            #expect(images.map { $0?.frameCount } == [8, 8])
            #expect(images.map { $0?.pixelHeight } == [100, 50])
        }
    }

    @Test func taskCancellationCancelsTheAsyncForm() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let path = "/images/photos/rocket.jpg"
            let task = Task { try await downloader.downloadImage(with: server.url(path + "?chunk=1000&hold=1")) }
            #expect(await server.wait { ($0.requests[path] ?? 0) == 1 })
            task.cancel()
            await #expect(throws: WebImageError.cancelled) { try await task.value }
            #expect(await server.wait { $0.abortedResponses[path] == 1 })
        }
    }

    @Test func sixtyLoadsOfOneFileStartedOneAfterAnotherAreAllServed() async throws {
        // SDWebImage's test31 on a file: many requests for one file while earlier ones finish
        // (each started a millisecond after the one before); none is dropped.
        let url = TestImages.url("sdwebimage/TestImage.png")
        let loader = ImageLoadersManager.shared
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<60 {
                group.addTask {
                    try await Task.sleep(for: .milliseconds(index))
                    return try await loader.requestImage(with: url).image.pixelWidth
                }
            }
            var widths: [Int] = []
            for try await width in group { widths.append(width) }
            #expect(widths == Array(repeating: 300, count: 60))
        }
    }

    /// SDWebImage's test31 over HTTP: callers that join while the body is being decoded for the
    /// first (its decode held until they all joined) are served from that one request and that
    /// one decode.
    @Test func callersJoiningWhileTheBodyIsDecodedAreServedFromTheOneRequest() async throws {
        try await withOrigin { server in
            let downloader = makeDownloader()
            let coder = CountingCoder(holdingDecodesUntil: TestGate())
            var context = WebImageContext()
            context.imageCoder = coder
            let url = server.url("/images/sdwebimage/TestImage.png")
            let first = downloader.recordedDownload(url, context: context).1
            await coder.decoding.wait()
            let late = (0..<59).map { _ in downloader.recordedDownload(url, context: context).1 }
            #expect(downloader.currentDownloadCount == 1, "the late callers joined the download being decoded")
            coder.hold?.open()
            for recorder in [first] + late {
                let outcome = await recorder.outcome()
                #expect(outcome.image?.pixelWidth == 300 && outcome.error == nil)
            }
            #expect(server.requestCount("/images/sdwebimage/TestImage.png") == 1)
            #expect(coder.decodeCount == 1)
            #expect(downloader.currentDownloadCount == 0)
        }
    }
}

/// The shared coders, counting the decodes asked of them; with `hold`, each decode opens
/// `decoding` and then waits, on its thread, until `hold` opens.
final class CountingCoder: ImageCoder {
    private let decodes = Atomic(0)
    let hold: TestGate?
    let decoding = TestGate()

    init(holdingDecodesUntil hold: TestGate? = nil) {
        self.hold = hold
    }

    var decodeCount: Int { decodes.load(ordering: .relaxed) }

    func canDecode(from data: Data) -> Bool { ImageCodersManager.shared.canDecode(from: data) }

    func decodedImage(with data: Data, options: ImageCoderOptions) -> WebImage.Image? { try? decode(data, options: options) }

    func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> WebImage.Image {
        decoding.open()
        hold?.block()
        decodes.add(1, ordering: .relaxed)
        return try ImageCodersManager.shared.decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { ImageCodersManager.shared.canEncode(to: format) }

    func encodedData(with image: WebImage.Image, format: ImageFormat, options: ImageCoderOptions) -> Data? {
        ImageCodersManager.shared.encodedData(with: image, format: format, options: options)
    }
}
