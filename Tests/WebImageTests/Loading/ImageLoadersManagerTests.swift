import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// A loader that answers every `marker:` URL with a 1x1 image, to see which loader is asked.
private struct MarkerLoader: ImageLoader {
    func canRequestImage(for url: URL?) -> Bool { url?.scheme == "marker" || url?.isFileURL == true }

    func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext?,
        progress: ImageLoaderProgress?, completed: ImageLoaderCompletion?
    ) -> (any WebImageOperation)? {
        completed?(WebImage.Image(rgba8Pixels: [1, 2, 3, 255], width: 1, height: 1), nil, nil, true)
        return nil
    }
}

@Suite("Loading: loaders manager, file and data URLs", .offThePool) struct ImageLoadersManagerTests {
    private func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-loader-\(UUID().uuidString).bin")
        try data.write(to: url)
        return url
    }

    @Test func theSharedManagerLoadsFileURLs() async throws {
        let result = try await ImageLoadersManager.shared.requestImage(with: TestImages.url("exif-orientation/Landscape_6.jpg"))
        #expect(result.image.pixelWidth == 1800 && result.image.pixelHeight == 1200)
        #expect(result.data == (try TestImages.data("exif-orientation/Landscape_6.jpg")))
    }

    @Test func theSharedManagerLoadsDataURLs() async throws {
        let png = try TestImages.data("pngsuite/basn6a08.png")
        let base64 = try #require(URL(string: "data:image/png;base64," + png.base64EncodedString()))
        let image = try await ImageLoadersManager.shared.requestImage(with: base64).image
        #expect(image.pixelWidth == 32 && image.format == .png && image.hasAlpha)

        let percentEncoded = png.map { String(format: "%%%02X", $0) }.joined()
        let percentURL = try #require(URL(string: "data:image/png," + percentEncoded))
        let fromPercent = try await ImageLoadersManager.shared.requestImage(with: percentURL).image
        #expect(try PixelDifference(fromPercent, image, tolerance: 0).largest == 0)
    }

    @Test func aDataURLThatIsNotAnImageTypeIsRefused() async throws {
        let text = try #require(URL(string: "data:text/plain;base64,aGVsbG8="))
        await #expect(throws: WebImageError.invalidDownloadContentType(mimeType: "text/plain", response: nil)) {
            try await ImageLoadersManager.shared.requestImage(with: text)
        }
        let garbage = try #require(URL(string: "data:image/png;base64,aGVsbG8="))
        await #expect(throws: WebImageError.badImageData) { try await ImageLoadersManager.shared.requestImage(with: garbage) }
    }

    @Test func emptyMissingAndCorruptFilesFailWithTypedErrors() async throws {
        let empty = try temporaryFile(Data())
        defer { try? FileManager.default.removeItem(at: empty) }
        // SDWebImage's test31: every one of several requests for an empty file fails with badImageData.
        for _ in 0..<5 {
            await #expect(throws: WebImageError.badImageData) { try await ImageLoadersManager.shared.requestImage(with: empty) }
        }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-missing-\(UUID().uuidString).png")
        do {
            _ = try await ImageLoadersManager.shared.requestImage(with: missing)
            Issue.record("a missing file loaded")
        } catch let error as URLError {
            #expect(error.code == .fileDoesNotExist)
        }
        let truncated = try temporaryFile(try TestImages.data("photos/rocket.jpg").prefix(5000))
        defer { try? FileManager.default.removeItem(at: truncated) }
        await #expect(throws: WebImageError.badImageData) { try await ImageLoadersManager.shared.requestImage(with: truncated) }
    }

    @Test func theBase64DecryptorWorksOnFiles() async throws {
        let file = try temporaryFile(Data(try TestImages.data("sdwebimage/TestImage.png").base64EncodedString().utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        var context = WebImageContext()
        context.downloadDecryptor = DownloaderDecryptor.base64
        #expect(try await ImageLoadersManager.shared.requestImage(with: file, context: context).image.pixelWidth == 300)
    }

    @Test func theLoaderAddedLastIsAskedFirst() async throws {
        let manager = ImageLoadersManager()
        let file = TestImages.url("sdwebimage/TestImage.png")
        #expect(try await manager.requestImage(with: file).image.pixelWidth == 300)
        manager.addLoader(MarkerLoader())
        #expect(manager.canRequestImage(for: URL(string: "marker:x")))
        #expect(try await manager.requestImage(with: file).image.pixelWidth == 1)
        manager.removeLoader(MarkerLoader())
        #expect(try await manager.requestImage(with: file).image.pixelWidth == 300)
        #expect(!manager.canRequestImage(for: URL(string: "marker:x")) && !manager.canRequestImage(for: nil))
        await #expect(throws: WebImageError.invalidURL) { try await manager.requestImage(with: URL(string: "ftp://example.invalid/a.png")) }
    }

    @Test func decodeOptionsReachTheCoders() async throws {
        var context = WebImageContext()
        context.imageThumbnailPixelSize = CGSize(width: 100, height: 100)
        let file = TestImages.url("photos/rocket.jpg")
        let thumbnail = try await ImageLoadersManager.shared.requestImage(with: file, context: context).image
        #expect(thumbnail.pixelWidth == 100 && thumbnail.pixelHeight == 67)
        let firstFrame = try await ImageLoadersManager.shared.requestImage(
            with: TestImages.url("sdwebimage/TestImageAnimated.webp"), options: .decodeFirstFrameOnly
        ).image
        #expect(!firstFrame.isAnimated)
        let lazy = try await ImageLoadersManager.shared.requestImage(with: file, options: .avoidDecodeImage).image
        #expect(!lazy.isDecoded && lazy.pixelWidth == 640)
        #expect(try await ImageLoadersManager.shared.requestImage(with: file).image.isDecoded)
    }

    @Test func aCancelledLocalLoadCompletesOnceWithCancelled() async throws {
        let recorder = DownloadRecorder()
        let operation = ImageLoadersManager.shared.requestImage(
            with: TestImages.url("photos/astronaut.png"), options: [], context: nil, progress: nil, completed: recorder.completion
        )
        operation?.cancel()
        #expect(await recorder.outcome().webImageError == .cancelled)
        #expect(recorder.completionCount == 1)
    }
}
