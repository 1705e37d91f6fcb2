import Foundation
import Testing
import WebImage

@Suite struct AnimationTests {
    @Test func animatedWebPHasEightFramesOfOneHundredMilliseconds() throws {
        let image = try #require(Image(data: try TestImages.data("sdwebimage/TestImageAnimated.webp")))
        #expect(image.isAnimated && image.frameCount == 8 && image.loopCount == 0)
        for index in 0..<8 {
            #expect(abs(image.frameDuration(at: index) - 0.1) < 0.0001)
            let frame = try #require(image.frame(at: index))
            #expect(frame.pixelWidth == 990 && frame.pixelHeight == 1050 && !frame.isAnimated)
        }
        #expect(image.frame(at: 8) == nil)
    }

    @Test func gifKeepsItsStoredLoopCount() throws {
        let image = try #require(Image(data: try TestImages.data("sdwebimage/TestLoopCount.gif")))
        #expect(image.frameCount == 2 && image.loopCount == 1)
        #expect(abs(image.frameDuration(at: 1) - 0.5) < 0.0001)
    }

    @Test func apngHasItsFramesComposited() throws {
        let data = try TestImages.data("sdwebimage/TestImageAnimated.apng")
        let image = try #require(Image(data: data))
        #expect(image.isAnimated && image.frameCount > 1 && image.pixelWidth == 320 && image.pixelHeight == 240)
        let first = try #require(image.frame(at: 0))
        let middle = try #require(image.frame(at: image.frameCount / 2))
        // Frames differ (it moves), and every frame is a full canvas.
        #expect(middle.pixelWidth == 320 && middle.pixelHeight == 240)
        let differs = stride(from: 0, to: 320, by: 8).contains { x in
            stride(from: 0, to: 240, by: 8).contains { y in first.pixel(x: x, y: y) != middle.pixel(x: x, y: y) }
        }
        #expect(differs)
        // Going back to an earlier frame gives the same pixels as the first time.
        #expect(image.frame(at: 1)?.pixel(x: 160, y: 120) == image.frame(at: 1)?.pixel(x: 160, y: 120))
        #expect(image.frameDuration(at: 0) > 0)
    }

    @Test(arguments: ["sdwebimage/TestImageAnimated.webp", "sdwebimage/TestLoopCount.gif", "sdwebimage/TestImageAnimated.apng"])
    func decodeFirstFrameOnlyGivesAStillImage(file: String) throws {
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        let image = try ImageCodersManager.shared.decode(try TestImages.data(file), options: options)
        #expect(!image.isAnimated && image.frameCount == 1)
    }

    @Test func animatedCoderGivesFramesOnDemand() throws {
        let coder = try #require(VipsAnimatedImageCoder(animatedImageData: try TestImages.data("photos/no_time_for_that_tiny.gif"), options: ImageCoderOptions()))
        #expect(coder.animatedImageFrameCount == 24 && coder.animatedImageData != nil)
        #expect(coder.animatedImageFrame(at: 23)?.pixelWidth == 14)
        #expect(VipsAnimatedImageCoder(animatedImageData: try TestImages.data("sdwebimage/TestImageStatic.webp"), options: ImageCoderOptions()) == nil)
    }
}
