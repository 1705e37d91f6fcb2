import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// APNG output and `encodeMaxPixelSize` on animations.
@Suite(.offThePool) struct AnimatedEncodingTests {
    @Test(arguments: ["sdwebimage/TestImageAnimated.apng", "sdwebimage/TestImage.gif", "sdwebimage/TestLoopCount.gif"])
    func anAnimationWrittenAsPNGIsAnAPNGOfTheSameFrames(file: String) throws {
        let original = try TestImages.decoded(try TestImages.data(file))
        let png = try ImageCodersManager.shared.encode(original, format: .png, options: ImageCoderOptions())
        #expect(ImageFormat(sniffing: png) == .png)
        let reread = try TestImages.decoded(png)
        #expect(reread.isAnimated && reread.frameCount == original.frameCount && reread.loopCount == original.loopCount)
        #expect(try ImageHeader(probing: png).frameCount == original.frameCount)
        for index in 0..<original.frameCount {
            #expect(abs(reread.frameDuration(at: index) - original.frameDuration(at: index)) < 0.0005, "frame \(index)")
        }
        // PNG is lossless: the frames come back as they were.
        for index in [0, original.frameCount / 2, original.frameCount - 1] {
            let before = try #require(original.frame(at: index))
            let after = try #require(reread.frame(at: index))
            #expect(try TransformInput.largestDifference(before, after) == 0, "frame \(index)")
        }
    }

    @Test func encodeFirstFrameOnlyWritesAStillPNG() throws {
        let original = try TestImages.decoded(try TestImages.data("sdwebimage/TestImageAnimated.webp"))
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = true
        let png = try ImageCodersManager.shared.encode(original, format: .png, options: options)
        let reread = try TestImages.decoded(png)
        #expect(!reread.isAnimated && reread.pixelWidth == 990)
    }

    @Test(arguments: [ImageFormat.png, .gif, .webP])
    func encodeMaxPixelSizeScalesEveryFrame(format: ImageFormat) throws {
        // The frames decoded once, held in memory (an animation made from them).
        let decoded = try TestImages.decoded(try TestImages.data("sdwebimage/TestImageAnimated.webp"))
        let original = try #require(ImageCoderHelper.frames(from: decoded).flatMap(ImageCoderHelper.animatedImage))
        var options = ImageCoderOptions()
        options.encodeMaxPixelSize = CGSize(width: 100, height: 100)
        let data = try ImageCodersManager.shared.encode(original, format: format, options: options)
        let reread = try TestImages.decoded(data)
        // 990x1050 fitted in 100x100.
        #expect(reread.frameCount == 8 && reread.pixelWidth == 94 && reread.pixelHeight == 100, "\(format)")
        for index in 0..<8 {
            #expect(abs(reread.frameDuration(at: index) - 0.1) < 0.0005)
            #expect(reread.frame(at: index)?.pixelHeight == 100)
        }
    }
}
