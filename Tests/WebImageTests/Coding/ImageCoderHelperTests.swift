import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite(.offThePool) struct ImageCoderHelperTests {
    // MARK: scaledSize (SDWebImage's rules)

    @Test func scaledSizeFitsInsideAndRoundsTheOtherSideUp() {
        let fitted = ImageCoderHelper.scaledSize(
            imageSize: CGSize(width: 640, height: 427), scaleSize: CGSize(width: 300, height: 300),
            preserveAspectRatio: true, shouldScaleUp: false
        )
        // 300 / (640 / 427) = 200.16, rounded up.
        #expect(fitted == CGSize(width: 300, height: 201))
        let tall = ImageCoderHelper.scaledSize(
            imageSize: CGSize(width: 100, height: 200), scaleSize: CGSize(width: 50, height: 50),
            preserveAspectRatio: true, shouldScaleUp: false
        )
        #expect(tall == CGSize(width: 25, height: 50))
    }

    @Test func scaledSizeStretchesWithoutAspectRatio() {
        let stretched = ImageCoderHelper.scaledSize(
            imageSize: CGSize(width: 100, height: 200), scaleSize: CGSize(width: 50, height: 60),
            preserveAspectRatio: false, shouldScaleUp: false
        )
        #expect(stretched == CGSize(width: 50, height: 60))
    }

    @Test func scaledSizeScalesUpOnlyWhenAsked() {
        let box = CGSize(width: 400, height: 400)
        let image = CGSize(width: 100, height: 200)
        #expect(ImageCoderHelper.scaledSize(imageSize: image, scaleSize: box, preserveAspectRatio: true, shouldScaleUp: true)
            == CGSize(width: 200, height: 400))
        #expect(ImageCoderHelper.scaledSize(imageSize: image, scaleSize: box, preserveAspectRatio: true, shouldScaleUp: false)
            == image)
    }

    @Test(arguments: [CGSize.zero, CGSize(width: -5, height: 10), CGSize(width: Double.nan, height: 10), CGSize(width: Double.infinity, height: 1)])
    func scaledSizeOfUnusableSizesIsTheImageSize(scaleSize: CGSize) {
        let image = CGSize(width: 640, height: 427)
        #expect(ImageCoderHelper.scaledSize(imageSize: image, scaleSize: scaleSize, preserveAspectRatio: true, shouldScaleUp: false) == image)
    }

    // MARK: Decoding

    @Test func decodedImageHoldsThePixelsALazyDecodeDeferred() throws {
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        let data = try TestImages.data("photos/rocket.jpg")
        let image = try ImageCodersManager.shared.decode(data, options: lazy)
        #expect(!image.isDecoded)
        let decoded = try #require(ImageCoderHelper.decodedImage(with: image))
        #expect(decoded.isDecoded)
        let eager = try TestImages.decoded(data)
        #expect(decoded.pixel(x: 320, y: 200) == eager.pixel(x: 320, y: 200))
    }

    @Test func scaledDownImageFitsTheByteLimitWithTheAspectRatio() throws {
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        let data = try TestImages.data("photos/rocket.jpg")
        let image = try ImageCodersManager.shared.decode(data, options: lazy)
        let limit = 100_000
        let scaled = try #require(ImageCoderHelper.decodedAndScaledDownImage(with: image, limitBytes: limit))
        #expect(scaled.isDecoded)
        #expect(scaled.pixelWidth * scaled.pixelHeight * 4 <= limit)
        #expect(scaled.pixelWidth * scaled.pixelHeight * 4 > limit * 9 / 10)  // not shrunk more than needed
        let expectedHeight = Double(scaled.pixelWidth) * 427 / 640
        #expect(abs(Double(scaled.pixelHeight) - expectedHeight) <= 1)
        // The same picture: the centre keeps its colour (Lanczos over a flat-ish area).
        let full = try TestImages.decoded(data)
        let before = try #require(full.pixel(x: 320, y: 213))
        let after = try #require(scaled.pixel(x: scaled.pixelWidth / 2, y: scaled.pixelHeight / 2))
        #expect(abs(Int(before.red) - Int(after.red)) <= 24)
        #expect(abs(Int(before.green) - Int(after.green)) <= 24)
        #expect(abs(Int(before.blue) - Int(after.blue)) <= 24)
    }

    @Test func anImageUnderTheLimitKeepsItsSize() throws {
        let image = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
        let same = try #require(ImageCoderHelper.decodedAndScaledDownImage(with: image))
        #expect(same.pixelWidth == 640 && same.pixelHeight == 427)
    }

    @Test func anAnimatedImageIsNotScaledDown() throws {
        let image = try TestImages.decoded(try TestImages.data("sdwebimage/TestImageAnimated.webp"))
        let result = try #require(ImageCoderHelper.decodedAndScaledDownImage(with: image, limitBytes: 1000))
        #expect(result.frameCount == image.frameCount)
        #expect(result.pixelWidth == image.pixelWidth)
    }

    // MARK: Frames

    @Test func framesOfAnAnimationMakeTheSameAnimationAgain() throws {
        let animation = try TestImages.decoded(try TestImages.data("sdwebimage/TestImageAnimated.webp"))
        let frames = try #require(ImageCoderHelper.frames(from: animation))
        #expect(frames.count == 8)
        #expect(frames.allSatisfy { abs($0.duration - 0.1) < 1e-9 && !$0.image.isAnimated })
        let rebuilt = try #require(ImageCoderHelper.animatedImage(with: frames))
        #expect(rebuilt.frameCount == 8)
        #expect(rebuilt.loopCount == 0)
        #expect(rebuilt.frame(at: 5)?.pixel(x: 100, y: 100) == animation.frame(at: 5)?.pixel(x: 100, y: 100))
        // It encodes as any animation does: the GIF has the frames and their timing.
        let gif = try ImageCodersManager.shared.encode(rebuilt, format: .gif, options: ImageCoderOptions())
        let decoded = try TestImages.decoded(gif)
        #expect(decoded.frameCount == 8)
        #expect(abs(decoded.frameDuration(at: 3) - 0.1) < 1e-9)
    }

    @Test func framesOfAStillImageIsTheImage() throws {
        let image = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
        let frames = try #require(ImageCoderHelper.frames(from: image))
        #expect(frames.count == 1)
        #expect(frames[0].duration == 0)
        #expect(frames[0].image.pixelWidth == 640)
        #expect(ImageCoderHelper.animatedImage(with: frames).map { !$0.isAnimated && $0.pixelWidth == 640 } == true)
    }

    @Test func noFramesOrFramesOfDifferentSizesMakeNoAnimation() throws {
        #expect(ImageCoderHelper.animatedImage(with: []) == nil)
        let rocket = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
        let astronaut = try TestImages.decoded(try TestImages.data("photos/astronaut.png"))
        let frames = [ImageFrame(image: rocket, duration: 0.1), ImageFrame(image: astronaut, duration: 0.1)]
        #expect(ImageCoderHelper.animatedImage(with: frames) == nil)
    }
}
