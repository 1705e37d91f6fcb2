import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

/// A view double: what a terminal preview or a server-side renderer would be.
@MainActor private final class PreviewView: WebImageView {
    var image: WebImage.Image?
    let webImageBinding = WebImageBinding()
    var shown: [Int] = []
}

@MainActor private final class RecordingHooks: WebImageTransition, WebImageIndicator {
    var events: [String] = []
    func willSet(_ image: WebImage.Image?, on view: any WebImageView, cacheType: ImageCacheType) { events.append("willSet") }
    func didSet(_ image: WebImage.Image?, on view: any WebImageView, cacheType: ImageCacheType) { events.append("didSet") }
    func startAnimatingIndicator() { events.append("start") }
    func stopAnimatingIndicator() { events.append("stop") }
    func updateIndicatorProgress(_ progress: Double) {}
}

@MainActor @Suite("View binding", .offThePool) struct WebImageViewTests {
    private func makeManager(_ scratch: ScratchFolder) -> WebImageManager {
        WebImageManager(cache: scratch.imageCache(), loader: ImageLoadersManager(loaders: [makeDownloader(), FileImageLoader()]))
    }

    /// Sets `url` on `view` and waits for the final completion.
    private func load(_ url: URL?, on view: PreviewView, placeholder: WebImage.Image? = nil, options: WebImageOptions = [],
                      context: WebImageContext) async -> (WebImage.Image?, (any Error)?) {
        await withCheckedContinuation { continuation in
            view.setImage(with: url, placeholderImage: placeholder, options: options, context: context, completed: { image, _, error, _, finished, _ in
                if finished { continuation.resume(returning: (image, error)) }
            })
        }
    }

    @Test func setsTheImageURLAndProgressOfTheLoad() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var context = WebImageContext()
        context.customManager = makeManager(scratch)
        let view = PreviewView()
        let hooks = RecordingHooks()
        view.webImageBinding.imageTransition = hooks
        view.webImageBinding.imageIndicator = hooks
        let url = TestImages.url("sdwebimage/TestImage.png")
        let (image, error) = await load(url, on: view, context: context)
        #expect(error == nil && image?.pixelWidth == 300)
        #expect(view.image === image && view.imageURL == url)
        #expect(view.imageProgress.fractionCompleted == 1)
        #expect(hooks.events == ["start", "stop", "willSet", "didSet"])
        // A memory hit sets the image without a transition.
        hooks.events = []
        _ = await load(url, on: view, context: context)
        #expect(hooks.events == ["start", "stop"])
    }

    @Test func aNewURLCancelsTheLoadBeforeSoALateImageNeverLands() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var context = WebImageContext()
        context.customManager = makeManager(scratch)
        try await withOrigin { server async throws in
            let view = PreviewView()
            let first = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
                view.setImage(with: server.url("/images/photos/rocket.jpg?delay=300"), context: context, completed: { _, _, error, _, finished, _ in
                    if finished { continuation.resume(returning: error) }
                })
                view.setImage(with: TestImages.url("sdwebimage/TestImage.png"), context: context)
            }
            #expect((first as? WebImageError) == .cancelled)
            let (second, _) = await load(TestImages.url("sdwebimage/TestImage.png"), on: view, context: context)
            #expect(view.image === second && view.image?.pixelWidth == 300)
            #expect(view.imageURL == TestImages.url("sdwebimage/TestImage.png"))
        }
    }

    @Test func placeholdersShowAtOnceOrOnlyAfterAFailure() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var context = WebImageContext()
        context.customManager = makeManager(scratch)
        let made: WebImage.Image? = WebImage.Image(rgba8Pixels: [9, 9, 9, 255], width: 1, height: 1)
        let placeholder = try #require(made)
        let view = PreviewView()
        let missing = URL(fileURLWithPath: scratch.path + "/missing.png")
        view.setImage(with: TestImages.url("photos/rocket.jpg"), placeholderImage: placeholder, context: context)
        #expect(view.image === placeholder, "shown at once")
        view.cancelCurrentImageLoad()

        let delayed = PreviewView()
        let (image, error) = await withCheckedContinuation { continuation in
            delayed.setImage(with: missing, placeholderImage: placeholder, options: .delayPlaceholder, context: context, completed: { image, _, error, _, finished, _ in
                if finished { continuation.resume(returning: (image, error)) }
            })
            #expect(delayed.image == nil, "not before the failure")
        }
        #expect(image == nil && error != nil && delayed.image === placeholder)
    }

    /// The placeholder an app keeps beside an image's URL (a BlurHash or ThumbHash made once, by
    /// `ImageAnalysis` or the server's `/info`): painted at once from the hash, in the image's
    /// colours, then replaced by the image.
    @Test func aHashPlaceholderShowsUntilTheImageLoads() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var context = WebImageContext()
        context.customManager = makeManager(scratch)
        let url = TestImages.url("photos/rocket.jpg")
        let analysis = try ImageAnalysis(data: Data(contentsOf: url))
        let placeholders = [
            try WebImage.Image(blurHash: analysis.blurHash(), size: CGSize(width: 32, height: 21)),
            WebImage.Image(thumbHash: analysis.thumbHash),
        ]
        let average = analysis.averageColor()
        for placeholder in placeholders {
            let view = PreviewView()
            let (image, error) = await withCheckedContinuation { continuation in
                view.setImage(with: url, placeholderImage: placeholder, context: context, completed: { image, _, error, _, finished, _ in
                    if finished { continuation.resume(returning: (image, error)) }
                })
                #expect(view.image === placeholder, "shown at once")
            }
            // Painted in the image's colours: on average, the image's average.
            let painted = try ImageAnalysis(image: placeholder).averageColor()
            #expect(max(abs(Int(painted.red) - Int(average.red)), abs(Int(painted.green) - Int(average.green)), abs(Int(painted.blue) - Int(average.blue))) <= 12,
                    "\(painted) against \(average)")
            #expect(placeholder.pixelWidth > placeholder.pixelHeight, "the image's landscape shape")
            #expect(error == nil && image != nil && view.image === image && image?.pixelWidth == 640)
        }
    }

    @Test func avoidAutoSetImageLeavesTheViewAlone() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var context = WebImageContext()
        context.customManager = makeManager(scratch)
        let view = PreviewView()
        let (image, _) = await load(TestImages.url("sdwebimage/TestImage.jpg"), on: view, options: .avoidAutoSetImage, context: context)
        #expect(image?.pixelWidth == 80 && view.image == nil)
    }

    @Test func aNilURLFailsWithInvalidURL() async {
        let view = PreviewView()
        let (image, error) = await load(nil, on: view, context: WebImageContext())
        #expect(image == nil && (error as? WebImageError) == .invalidURL && view.imageURL == nil)
    }

    @Test func differentOperationKeysLoadSideBySide() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var first = WebImageContext()
        first.customManager = makeManager(scratch)
        first.setImageOperationKey = "background"
        var second = first
        second.setImageOperationKey = "foreground"
        let view = PreviewView()
        async let a = load(TestImages.url("sdwebimage/TestImage.jpg"), on: view, options: .avoidAutoSetImage, context: first)
        async let b = load(TestImages.url("sdwebimage/TestImage.png"), on: view, options: .avoidAutoSetImage, context: second)
        let (imageA, errorA) = await a
        let (imageB, errorB) = await b
        #expect(errorA == nil && errorB == nil && imageA?.pixelWidth == 80 && imageB?.pixelWidth == 300)
    }
}
