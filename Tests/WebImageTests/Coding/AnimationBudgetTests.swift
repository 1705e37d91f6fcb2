import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

/// Issue 35: the animation budget (`decodeTimeBudget.animation`) bounds a pass over an
/// animation's frames as an encoder reads them, the shaping of each frame (its copy, colour
/// conversion and thumbnail) included; and a thumbnail of an animation to a still format reads
/// one frame.
@Suite(.offThePool) struct AnimationBudgetTests {
    /// 249 "restore previous" one-pixel frames on 2000x2000 (7 KB): each frame a 4 MP canvas to
    /// compose, copy and shrink.
    static let restorePreviousFrames = DecodeWorkBombTests.gifOfOnePixelFrames(side: 2000, frames: 249)

    static func thumbnailOptions(animationBudget: Duration) -> ImageCoderOptions {
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = true
        options.decodeThumbnailPixelSize = CGSize(width: 100, height: 100)
        options.decodeTimeBudget.animation = animationBudget
        return options
    }

    @Test func anAnimatedThumbnailOfRestorePreviousFramesStopsAtTheAnimationBudget() throws {
        // Before: 8 s of CPU to a GIF thumbnail, exit 0, whatever the budget (the frames were
        // decoded into a temporary file by libvips' workers, and shrunk outside the budget).
        let options = Self.thumbnailOptions(animationBudget: .milliseconds(300))
        let image = try ImageCodersManager.shared.decode(Self.restorePreviousFrames, options: options)
        #expect(image.frameCount == 249 && image.pixelWidth == 100)
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: ImageCodingError.self) {
            try ImageCodersManager.shared.encode(image, format: .gif, options: options)
        }
        guard case .overLimit(.gif, let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains("time budget"), "\(reason)")
        // The budget is CPU time, and wall time on a shared machine looser: about 0.4 s of CPU
        // here, where main took 10 s of CPU (its workers decoding every frame into a temporary
        // file) before its budget noticed.
        #expect(clock.now - start < TestAllowance.time(.seconds(5)), "took \(clock.now - start)")
    }

    @Test func aThumbnailOfAnAnimationToAStillFormatReadsOneFrame() throws {
        // An animation budget that one frame spends: a second frame read would be refused.
        let options = Self.thumbnailOptions(animationBudget: .nanoseconds(1))
        let image = try ImageCodersManager.shared.decode(Self.restorePreviousFrames, options: options)
        // (PNG is not among them: an animated image is written as APNG.)
        for format in [ImageFormat.jpeg, .tiff, .webP] {
            var still = options
            still.encodeFirstFrameOnly = format == .webP
            let data = try ImageCodersManager.shared.encode(image, format: format, options: still)
            let decoded = try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
            #expect(decoded.pixelWidth == 100 && decoded.frameCount == 1, "\(format)")
        }
        // The same image to an animated format reads every frame, and the budget stops it.
        #expect(throws: ImageCodingError.self) { try ImageCodersManager.shared.encode(image, format: .gif, options: options) }
    }
}
