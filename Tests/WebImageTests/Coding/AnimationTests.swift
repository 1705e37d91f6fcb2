import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite(.offThePool) struct AnimationTests {
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

    /// An animation of `frames` frames and its loop count, with `decodeFrameLimit`, and the same
    /// file decoded whole, at full size and as a thumbnail.
    @Test(arguments: [
        ("sdwebimage/TestImageAnimated.webp", 8), ("photos/no_time_for_that_tiny.gif", 24),
        ("sdwebimage/TestLoopCount.gif", 2), ("sdwebimage/TestImageAnimated.apng", 101),
    ])
    func aFrameLimitKeepsTheFirstFrames(file: String, frames: Int) throws {
        let data = try TestImages.data(file)
        for thumbnail in [CGSize.zero, CGSize(width: 40, height: 40)] {
            var options = ImageCoderOptions()
            options.decodeThumbnailPixelSize = thumbnail
            let whole = try ImageCodersManager.shared.decode(data, options: options)
            #expect(whole.frameCount == frames)
            for limit in [3, frames, frames + 5] {
                options.decodeFrameLimit = limit
                let cut = try ImageCodersManager.shared.decode(data, options: options)
                let kept = min(limit, frames)
                #expect(cut.frameCount == kept && cut.loopCount == whole.loopCount, "\(file) limit \(limit)")
                #expect((0..<kept).map { cut.frameDuration(at: $0) } == (0..<kept).map { whole.frameDuration(at: $0) })
                #expect(cut.frame(at: kept) == nil && cut.frameDuration(at: kept) == 0)
                for index in 0..<kept {
                    let (cutFrame, wholeFrame) = (try #require(cut.frame(at: index)), try #require(whole.frame(at: index)))
                    #expect(cutFrame.pixelWidth == wholeFrame.pixelWidth && cutFrame.pixelHeight == wholeFrame.pixelHeight)
                    #expect(try cutFrame.withUnsafeRGBA8Bytes(Array.init) == wholeFrame.withUnsafeRGBA8Bytes(Array.init), "\(file) frame \(index)")
                }
            }
            // One frame is a still: the first frame alone, as `decodeFirstFrameOnly` gives it.
            options.decodeFrameLimit = 1
            let still = try ImageCodersManager.shared.decode(data, options: options)
            options.decodeFrameLimit = .max
            options.decodeFirstFrameOnly = true
            let first = try ImageCodersManager.shared.decode(data, options: options)
            #expect(!still.isAnimated && still.frameCount == 1)
            #expect(try still.withUnsafeRGBA8Bytes(Array.init) == first.withUnsafeRGBA8Bytes(Array.init))
        }
    }

    @Test func animatedCoderGivesFramesOnDemand() throws {
        let coder = try #require(VipsAnimatedImageCoder(animatedImageData: try TestImages.data("photos/no_time_for_that_tiny.gif"), options: ImageCoderOptions()))
        #expect(coder.animatedImageFrameCount == 24 && coder.animatedImageData != nil)
        #expect(coder.animatedImageFrame(at: 23)?.pixelWidth == 14)
        #expect(VipsAnimatedImageCoder(animatedImageData: try TestImages.data("sdwebimage/TestImageStatic.webp"), options: ImageCoderOptions()) == nil)
    }

    /// TestImageAnimated.apng (101 frames) with the body of chunk number `occurrence` of `type`
    /// changed by `change`, its CRC recomputed unless `fixingCRC` is false.
    static func patchedAPNG(
        _ type: String, occurrence: Int = 0, fixingCRC: Bool = true, _ change: (inout [UInt8]) -> Void
    ) throws -> Data {
        var bytes = [UInt8](try TestImages.data("sdwebimage/TestImageAnimated.apng"))
        var offset = 8
        var seen = 0
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let body = (offset + 8)..<(offset + 8 + length)
            if String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == type {
                if seen == occurrence {
                    var patched = Array(bytes[body])
                    change(&patched)
                    bytes.replaceSubrange(body, with: patched)
                    if fixingCRC {
                        let crc = BadInputTests.crc32(Data(bytes[(offset + 4)..<body.upperBound]))
                        bytes.replaceSubrange(body.upperBound..<(body.upperBound + 4), with: withUnsafeBytes(of: crc.bigEndian, Array.init))
                    }
                    return Data(bytes)
                }
                seen += 1
            }
            offset = body.upperBound + 4
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    static func setUInt32(_ value: UInt32, at offset: Int, in body: inout [UInt8]) {
        body.replaceSubrange(offset..<(offset + 4), with: withUnsafeBytes(of: value.bigEndian, Array.init))
    }

    /// acTL announces 101 frames; announcing one more or one fewer makes the file malformed.
    @Test(arguments: [UInt32(100), 102])
    func apngWhoseFramesDoNotMatchItsAnimationControlIsAnError(announced: UInt32) throws {
        let data = try Self.patchedAPNG("acTL") { Self.setUInt32(announced, at: 0, in: &$0) }
        #expect(throws: ImageCodingError.self) { try ImageCodersManager.shared.decode(data, options: ImageCoderOptions()) }
        #expect(Image(data: data) == nil)
    }

    /// A damaged frame deep in the file (its chunk's CRC left as stored) fails the whole decode,
    /// not just that frame when it is drawn.
    @Test(arguments: ["fdAT", "fcTL", "tEXt"])
    func apngWithADamagedChunkIsAnError(type: String) throws {
        let data = try Self.patchedAPNG(type, occurrence: type == "tEXt" ? 0 : 50, fixingCRC: false) { $0[$0.count / 2] ^= 0x10 }
        #expect {
            try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
        } throws: { error in
            guard case let .corruptData(format, reason) = error as? ImageCodingError else { return false }
            return format == .png && reason.contains("CRC")
        }
    }

    /// num_plays is 32-bit unsigned: 2^31 and more pass what libvips' loop metadata (a C int)
    /// holds. Read as Int32.max; written as the most GIF and WebP store (16 bits).
    @Test(arguments: [UInt32(1) << 31, .max])
    func apngLoopCountPastInt32IsClampedAndEncodes(plays: UInt32) throws {
        let data = try Self.patchedAPNG("acTL") { Self.setUInt32(plays, at: 4, in: &$0) }
        let image = try TestImages.decoded(data)
        #expect(image.frameCount == 101 && image.loopCount == Int(Int32.max))
        #expect(try ImageHeader(probing: data).loopCount == Int(Int32.max))
        for format in [ImageFormat.gif, .webP] {
            let encoded = try TestImages.decoded(try ImageCodersManager.shared.encode(image, format: format, options: ImageCoderOptions()))
            #expect(encoded.frameCount == 101 && encoded.loopCount == 65535, "\(format)")
        }
    }

    /// A canvas over the pixel limit is refused as such, before a canvas is allocated; so is one
    /// whose RGBA8 bytes would not fit in an Int even when the caller lifts the limit.
    @Test func apngCanvasOverThePixelLimitIsRefused() throws {
        let huge = try Self.patchedAPNG("IHDR") {
            Self.setUInt32(100_000, at: 0, in: &$0)
            Self.setUInt32(100_000, at: 4, in: &$0)
        }
        #expect(throws: ImageCodingError.tooManyPixels(width: 100_000, height: 100_000, limit: ImageCoderOptions.defaultMaxPixelCount)) {
            try ImageCodersManager.shared.decode(huge, options: ImageCoderOptions())
        }
        let largest = try Self.patchedAPNG("IHDR") {
            Self.setUInt32(0x7FFF_FFFF, at: 0, in: &$0)
            Self.setUInt32(0x7FFF_FFFF, at: 4, in: &$0)
        }
        var unlimited = ImageCoderOptions()
        unlimited.decodeMaxPixelCount = .max
        #expect(throws: ImageCodingError.tooManyPixels(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, limit: Int.max / 4)) {
            try ImageCodersManager.shared.decode(largest, options: unlimited)
        }
    }
}
