import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

@Suite(.offThePool) struct AnimatedImageTests {
    @Test func invalidAndVectorDataGiveNoAnimatedImage() throws {
        #expect(AnimatedImage(data: Data("invalid data".utf8)) == nil)
        #expect(AnimatedImage(data: try TestImages.data("sdwebimage/TestImage.svg")) == nil)
        #expect(AnimatedImage(data: try TestImages.data("sdwebimage/TestImage.pdf")) == nil)
    }

    @Test func gifKeepsItsBytesScaleAndFrames() throws {
        let data = try TestImages.data("sdwebimage/TestImage.gif")
        let animated = try #require(AnimatedImage(data: data, scale: 2))
        #expect(animated.scale == 2 && animated.animatedImageData == data && animated.format == .gif)
        #expect(animated.animatedImageLoopCount == 0 && animated.animatedImageFrameCount == 5 && animated.isAnimated)
        #expect(animated.animatedImageFrame(at: 1)?.scale == 2 && animated.animatedImageFrame(at: 5) == nil)
        #expect(animated.animatedImageDuration(at: 5) == 0)
        let image = animated.image
        #expect(image.isAnimated && image.frameCount == 5 && image.animatedImageProvider?.animatedImageData == data)
    }

    @Test(arguments: [("sdwebimage/TestImageAnimated.webp", 8, 990), ("sdwebimage/TestImageAnimated.apng", 101, 320)])
    func webPAndAPNGAnimate(file: String, frames: Int, width: Int) throws {
        let animated = try #require(AnimatedImage(data: try TestImages.data(file)))
        #expect(animated.animatedImageFrameCount == frames && animated.pixelWidth == width)
        #expect(animated.animatedImageFrame(at: frames - 1)?.pixelWidth == width)
    }

    @Test func scaleComesFromTheFileName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("animated-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try TestImages.data("sdwebimage/TestImage.gif")
        for (name, scale) in [("1@2x.gif", 2.0), ("plain.gif", 1.0), ("icon@3x.gif", 3.0)] {
            let path = folder.appendingPathComponent(name).path
            try data.write(to: URL(fileURLWithPath: path))
            #expect(AnimatedImage(contentsOfFile: path)?.scale == scale, "\(name)")
        }
        #expect(AnimatedImage(contentsOfFile: folder.appendingPathComponent("missing.gif").path) == nil)
    }

    @Test func preloadingHoldsEveryFrameUntilUnloaded() throws {
        let animated = try #require(AnimatedImage(data: try TestImages.data("sdwebimage/TestImage.gif")))
        #expect(!animated.isAllFramesLoaded && animated.memoryCost == 50 * 50 * 4)
        animated.preloadAllFrames()
        #expect(animated.isAllFramesLoaded && animated.memoryCost == 5 * 50 * 50 * 4)
        let frame = try #require(animated.animatedImageFrame(at: 3))
        #expect(frame.isDecoded && animated.animatedImageFrame(at: 3) === frame)
        animated.unloadAllFrames()
        #expect(!animated.isAllFramesLoaded && animated.animatedImageFrame(at: 3) !== frame)
    }

    @Test func stillDataGivesOneFrame() throws {
        let animated = try #require(AnimatedImage(data: try TestImages.data("sdwebimage/TestImage.jpg")))
        #expect(!animated.isAnimated && animated.format == .jpeg && animated.animatedImageFrameCount == 1)
        #expect(animated.animatedImageLoopCount == 0 && !animated.image.isAnimated && animated.pixelWidth == 80)
    }

    @Test func decodeFirstFrameOnlyGivesAStillImage() throws {
        let data = try TestImages.data("sdwebimage/TestImageAnimated.webp")
        var options = ImageCoderOptions()
        let animated = try #require(AnimatedImage.image(with: data, options: options))
        #expect(animated.isAnimated && animated.animatedImageProvider is AnimatedImage)
        options.decodeFirstFrameOnly = true
        let still = try #require(AnimatedImage.image(with: data, options: options))
        #expect(!still.isAnimated && still.pixelWidth == 990)
    }

    /// Stored in the image cache, an animated image's disk entry is the original file.
    @Test func theDiskCacheStoresTheOriginalBytes() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let cache = folder.imageCache()
        let data = try TestImages.data("sdwebimage/TestImageAnimated.apng")
        let animated = try #require(AnimatedImage(data: data))
        await withCheckedContinuation { done in cache.store(animated.image, forKey: "apng") { done.resume() } }
        #expect(cache.diskImageData(forKey: "apng") == data)
    }

    /// The animated coders of the manager passed in are asked first, the last added first.
    @Test func animatedCodersOfTheManagerComeFirst() throws {
        let manager = ImageCodersManager()
        manager.addCoder(RecordingAnimatedCoder())
        let data = try TestImages.data("sdwebimage/TestImage.gif")
        let before = RecordingAnimatedCoder.made.withLock { $0 }
        let animated = try #require(AnimatedImage(data: data, coders: manager))
        #expect(RecordingAnimatedCoder.made.withLock { $0 } > before && animated.animatedImageFrameCount == 5)
    }
}

/// An animated coder that counts its instances and hands the work to libvips' GIF/WebP coder.
final class RecordingAnimatedCoder: AnimatedImageCoder {
    static let made = Locked(0)
    private let base: VipsAnimatedImageCoder?

    init() { base = nil }

    init?(animatedImageData data: Data, options: ImageCoderOptions) {
        guard let base = VipsAnimatedImageCoder(animatedImageData: data, options: options) else { return nil }
        self.base = base
        Self.made.withLock { $0 += 1 }
    }

    var animatedImageData: Data? { base?.animatedImageData }
    var animatedImageFrameCount: Int { base?.animatedImageFrameCount ?? 0 }
    var animatedImageLoopCount: Int { base?.animatedImageLoopCount ?? 0 }
    func animatedImageFrame(at index: Int) -> WebImage.Image? { base?.animatedImageFrame(at: index) }
    func animatedImageDuration(at index: Int) -> TimeInterval { base?.animatedImageDuration(at: index) ?? 0 }
    func canDecode(from data: Data) -> Bool { false }
    func decodedImage(with data: Data, options: ImageCoderOptions) -> WebImage.Image? { nil }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encodedData(with image: WebImage.Image, format: ImageFormat, options: ImageCoderOptions) -> Data? { nil }
}
