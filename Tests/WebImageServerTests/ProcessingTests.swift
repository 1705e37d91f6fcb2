import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageServer
import WebImageTestServer
import WebImageTestSupport

/// The processor on real images: sizes, smart crop, formats, byte budgets, animations,
/// negotiation, and the limits checked before decoding.
@Suite(.offThePool) struct ProcessingTests {
    /// `source` processed by `options` (a path's options part), with `accept` as the request's
    /// `Accept` header.
    static func process(
        _ source: String, _ options: String, accept: String? = nil, configuration: ProcessingConfiguration = ProcessingConfiguration()
    ) async throws -> ProcessedImage {
        let parsed = try ImgproxyURLParser(configuration: configuration).options(parsing: options)
        let plan = OutputFormatPlan(options: parsed, accept: accept, configuration: configuration)
        return try await ImageProcessor().process(try SourceImages.data(source), options: parsed, format: plan)
    }

    /// The error processing gives, failing the test when it succeeds.
    static func refusal(
        _ data: Data, _ options: String, configuration: ProcessingConfiguration = ProcessingConfiguration()
    ) async throws -> ImageServerError? {
        let parsed = try ImgproxyURLParser(configuration: configuration).options(parsing: options)
        let plan = OutputFormatPlan(options: parsed, accept: nil, configuration: configuration)
        do throws(ImageServerError) {
            let result = try await ImageProcessor().process(data, options: parsed, format: plan)
            Issue.record("made \(result.format) \(result.pixelWidth)x\(result.pixelHeight)")
            return nil
        } catch {
            return error
        }
    }

    /// The result decoded again, checking that its bytes are what it says.
    static func decoded(_ result: ProcessedImage) throws -> WebImage.Image {
        #expect(ImageFormat(sniffing: result.data) == result.format)
        let image = try ImageCodersManager.shared.decode(result.data, options: ImageCoderOptions())
        #expect(image.pixelWidth == result.pixelWidth && image.pixelHeight == result.pixelHeight)
        return image
    }

    @Test func fillGivesExactlyTheBox() async throws {
        let result = try await Self.process(SourceImages.rocket, "rs:fill:300:200")
        #expect(result.pixelWidth == 300 && result.pixelHeight == 200 && result.format == .jpeg)
        _ = try Self.decoded(result)
        let square = try await Self.process(SourceImages.rocket, "rs:fill:150:150")
        #expect(square.pixelWidth == 150 && square.pixelHeight == 150)
        let portrait = try await Self.process(SourceImages.rocket, "resize:fill:100:300")
        #expect(portrait.pixelWidth == 100 && portrait.pixelHeight == 300)
    }

    @Test func fitStaysInsideTheBox() async throws {
        for (options, width, height) in [("rs:fit:300:200", 300, 200), ("rs:fit:200:200", 200, 133), ("rs:fit:300:0", 300, 200), ("rs:fit:0:100", 150, 100)] {
            let result = try await Self.process(SourceImages.rocket, options)
            #expect(result.pixelWidth == width && result.pixelHeight == height, "\(options): \(result.pixelWidth)x\(result.pixelHeight)")
        }
        // Without enlarge, a box larger than the source keeps the source's size; with it, it grows.
        let kept = try await Self.process(SourceImages.rocket, "rs:fit:1280:1280")
        #expect(kept.pixelWidth == 640 && kept.pixelHeight == 427)
        let grown = try await Self.process(SourceImages.rocket, "rs:fit:1280:1280:1")
        #expect(grown.pixelWidth == 1280 && grown.pixelHeight == 854)
        // Force stretches.
        let forced = try await Self.process(SourceImages.rocket, "rs:force:100:300:1")
        #expect(forced.pixelWidth == 100 && forced.pixelHeight == 300)
    }

    @Test func fillDownNeverEnlarges() async throws {
        // A box larger than the source: cut to the box's aspect at the source's scale.
        let result = try await Self.process(SourceImages.rocket, "rs:fill-down:1000:1000")
        #expect(result.pixelWidth == 427 && result.pixelHeight == 427)
        let wide = try await Self.process(SourceImages.rocket, "rs:fill-down:2000:500")
        #expect(wide.pixelWidth == 640 && wide.pixelHeight == 160)
        // Smaller: as fill.
        let small = try await Self.process(SourceImages.rocket, "rs:fill-down:300:200")
        #expect(small.pixelWidth == 300 && small.pixelHeight == 200)
        // Plain fill would enlarge.
        let fill = try await Self.process(SourceImages.rocket, "rs:fill:1000:1000:1")
        #expect(fill.pixelWidth == 1000 && fill.pixelHeight == 1000)
    }

    @Test func smartGravityCropsWhereLibvipsSmartcropSays() async throws {
        let result = try await Self.process(SourceImages.rocket, "rs:fill:200:200/g:sm/f:png")
        let image = try Self.decoded(result)
        #expect(image.pixelWidth == 200 && image.pixelHeight == 200)
        // The fill resizes to 300x200 first (what rs:fill:300:200 gives, here losslessly);
        // libvips' smartcrop on those pixels says where the 200x200 is cut.
        let resized = try await Self.process(SourceImages.rocket, "rs:fill:300:200/f:png")
        let thumbnail = try VipsImageRef.load("pngload_buffer", data: resized.data)
        let origin = try thumbnail.smartCropOrigin(width: 200, height: 200, interesting: "attention")
        #expect(origin.x != 50, "the centre: this test would not tell smart from centre")
        let reference = try thumbnail.call("smartcrop", input: "input", "width=200,height=200,interesting=attention").renderRGBA()
        let largest = try image.withUnsafeRGBA8Bytes { ours in
            reference.withUnsafeBytes { theirs in zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 0 }
        }
        #expect(largest == 0)
        // The centre cut differs.
        let centre = try Self.decoded(try await Self.process(SourceImages.rocket, "rs:fill:200:200/f:png"))
        #expect(centre.pixel(x: 0, y: 100) != image.pixel(x: 0, y: 100) || centre.pixel(x: 199, y: 50) != image.pixel(x: 199, y: 50))
    }

    @Test func formatOptionGivesThatFormat() async throws {
        for (options, format) in [("f:webp", ImageFormat.webP), ("f:png", .png), ("rs:fit:100:100/f:avif", .avif), ("ext:gif", .gif), ("rs:fit:50:50/f:jxl", .jxl)] {
            let result = try await Self.process(SourceImages.rocket, options)
            #expect(result.format == format && ImageFormat(sniffing: result.data) == format, "\(options)")
        }
    }

    @Test func maxBytesIsMetOrTheSmallestIsSentAsImgproxyDoes() async throws {
        let small = try await Self.process(SourceImages.rocket, "rs:fit:400:400/mb:5000")
        #expect(small.data.count <= 5000 && small.format == .jpeg && small.pixelWidth == 400)
        let unbounded = try await Self.process(SourceImages.rocket, "rs:fit:400:400")
        #expect(unbounded.data.count > 5000, "the budget must bind for this test to mean anything")
        // Out of reach: the lowest quality's result, not a refusal (imgproxy's best effort).
        let whole = try await Self.process(SourceImages.rocket, "")
        let smallest = try await Self.process(SourceImages.rocket, "mb:500")
        #expect(smallest.data.count > 500 && smallest.data.count < whole.data.count / 4 && smallest.pixelWidth == 640)
        // A lossless format has no quality to lower: sent as it is.
        let png = try await Self.process(SourceImages.rocket, "rs:fit:100:100/f:png")
        let pngBudget = try await Self.process(SourceImages.rocket, "rs:fit:100:100/f:png/mb:500")
        #expect(pngBudget.format == .png && pngBudget.data == png.data)
    }

    @Test func animatedGIFStaysAnimatedWithItsFrames() async throws {
        let source = try ImageHeader(probing: try SourceImages.data(SourceImages.loopGIF))
        let same = try await Self.process(SourceImages.loopGIF, "rs:fit:100:100")
        #expect(same.format == .gif && same.frameCount == source.frameCount && same.pixelWidth == 72 && same.pixelHeight == 48)
        let smaller = try await Self.process(SourceImages.loopGIF, "rs:fit:36:36")
        let image = try Self.decoded(smaller)
        #expect(smaller.format == .gif && image.frameCount == source.frameCount && image.pixelWidth == 36 && image.pixelHeight == 24)
        #expect(image.loopCount == source.loopCount)
        // A WebP animation becomes an animated GIF without negotiation, an animated WebP with it.
        let webp = try await Self.process(SourceImages.animatedWebP, "rs:fit:100:100")
        #expect(webp.format == .gif && webp.frameCount == 8 && webp.pixelWidth == 94 && webp.pixelHeight == 100)
        #expect(try Self.decoded(webp).frameCount == 8)
        let negotiated = try await Self.process(SourceImages.animatedWebP, "rs:fit:100:100", accept: "image/avif,image/webp", configuration: .negotiating)
        #expect(try negotiated.format == .webP && Self.decoded(negotiated).frameCount == 8)
        // A still format takes the first frame.
        let still = try await Self.process(SourceImages.loopGIF, "f:png")
        #expect(still.format == .png && still.frameCount == 1)
    }

    @Test func acceptNegotiationPicksAVIFThenWebPThenTheSource() async throws {
        #expect(try await Self.process(SourceImages.rocket, "rs:fit:100:100", accept: "image/avif,image/webp", configuration: .negotiating).format == .avif)
        #expect(try await Self.process(SourceImages.rocket, "rs:fit:100:100", accept: "image/webp", configuration: .negotiating).format == .webP)
        #expect(try await Self.process(SourceImages.rocket, "rs:fit:100:100", configuration: .negotiating).format == .jpeg)
        #expect(try await Self.process(SourceImages.alphaPNG, "rs:fit:100:100", configuration: .negotiating).format == .png)
        // Off by default, as in imgproxy: the source's format whatever `Accept` takes.
        #expect(try await Self.process(SourceImages.rocket, "rs:fit:100:100", accept: "image/avif,image/webp").format == .jpeg)
        // AVIF under 16 pixels a side falls back to JPEG (opaque) or PNG.
        let tiny = try await Self.process(SourceImages.rocket, "rs:fit:12:12", accept: "image/avif", configuration: .negotiating)
        #expect(tiny.format == .jpeg)
    }

    @Test func aSixtyMegapixelSourceIsRefusedFromItsHeader() async throws {
        // TestImageLarge.jpg (5250x3450) with its frame header saying 10000x6000: the header
        // alone is over 50 megapixels, and nothing else is read (its pixels would not decode).
        var bytes = [UInt8](try SourceImages.data("sdwebimage/TestImageLarge.jpg"))
        // The segments from the start: the frame header is the first SOF0-2 among them (an
        // EXIF thumbnail's would sit inside APP1).
        var frame = 2
        while bytes[frame] == 0xFF, !(0xC0...0xC2).contains(bytes[frame + 1]) {
            frame += 2 + Int(bytes[frame + 2]) << 8 + Int(bytes[frame + 3])
            try #require(frame + 9 < bytes.count)
        }
        try #require(bytes[frame] == 0xFF)
        bytes.replaceSubrange(frame + 5..<frame + 9, with: [0x17, 0x70, 0x27, 0x10])
        let header = try ImageHeader(probing: Data(bytes))
        #expect(header.pixelWidth == 10000 && header.pixelHeight == 6000)
        // Timed where it runs (the blocking pool), not while it waits for a thread there.
        let options = try ImgproxyURLParser().options(parsing: "rs:fit:300:300")
        let plan = OutputFormatPlan(options: options, accept: nil, configuration: ProcessingConfiguration())
        let source = Data(bytes)
        let (error, elapsed) = try await BlockingPool.run { () -> (ImageServerError?, Duration) in
            // This thread's CPU time: the work, whatever else the machine runs.
            let start = WorkBudget.threadCPUTime
            do throws(ImageServerError) {
                _ = try ImageProcessor().processNow(source, options: options, format: plan)
                return (nil, WorkBudget.threadCPUTime - start)
            } catch {
                return (error, WorkBudget.threadCPUTime - start)
            }
        }
        // A few milliseconds; reading the 60 MP of pixels would take seconds.
        #expect(elapsed < TestAllowance.time(.seconds(1)), "\(elapsed)")
        guard case .sourceTooLarge = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(error?.status == 422)
        // The real file, 18 megapixels, is under the limit.
        #expect(try await Self.process("sdwebimage/TestImageLarge.jpg", "rs:fit:300:300").pixelWidth == 300)
    }

    @Test func animationLimitsCountTheFramesProcessed() async throws {
        var configuration = ProcessingConfiguration()
        configuration.maxAnimationFrames = 4
        // The first 4 frames of 8 are processed, the others dropped (as imgproxy).
        #expect(try await Self.process(SourceImages.animatedWebP, "rs:fit:50:50", configuration: configuration).frameCount == 4)
        let data = try SourceImages.data(SourceImages.animatedWebP)
        // 8 frames of 990x1050 are 8.3 megapixels: over a 5 MP limit as an animation, not as a still.
        configuration = ProcessingConfiguration()
        configuration.maxSourceResolution = 5_000_000
        #expect(try await Self.refusal(data, "rs:fit:50:50", configuration: configuration)?.status == 422)
        #expect(try await Self.process(SourceImages.animatedWebP, "rs:fit:50:50/f:png", configuration: configuration).frameCount == 1)
        // With a frame limit instead, each frame is held to it.
        configuration.maxAnimationFrameResolution = 2_000_000
        #expect(try await Self.process(SourceImages.animatedWebP, "rs:fit:50:50", configuration: configuration).frameCount == 8)
    }

    @Test func anAnimationTooLargeToEncodeIs422() async throws {
        // 8 frames enlarged to 3000x2000 are 48 megapixels to encode: over the encoders' 40 MP
        // (`encodeMaxTotalPixelCount`), though the source (8.3 MP) is within every source limit.
        let data = try SourceImages.data(SourceImages.animatedWebP)
        let error = try await Self.refusal(data, "rs:fill:3000:2000/el:1")
        guard case .sourceTooLarge(let reason) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(error?.status == 422 && reason.contains("encode limit"), "\(reason)")
    }

    @Test func resultLimitAndSecurityOptions() async throws {
        var configuration = ProcessingConfiguration()
        configuration.maxResultDimension = 500
        let data = try SourceImages.data(SourceImages.rocket)
        // The result limit shrinks the result to fit (imgproxy since 3.29).
        let shrunk = try await Self.process(SourceImages.rocket, "", configuration: configuration)
        #expect(shrunk.pixelWidth == 500 && shrunk.pixelHeight == 334)
        #expect(try await Self.process(SourceImages.rocket, "rs:fit:500:500", configuration: configuration).pixelWidth == 500)
        configuration = ProcessingConfiguration()
        configuration.allowSecurityOptions = true
        #expect(try await Self.refusal(data, "msr:0.1", configuration: configuration)?.status == 422)
        let limited = try await Self.process(SourceImages.rocket, "mrd:100", configuration: configuration)
        #expect(limited.pixelWidth == 100 && limited.pixelHeight == 67)
    }

    @Test func unreadableSourcesAre422() async throws {
        let text = Data("not an image".utf8)
        #expect(try await Self.refusal(text, "")?.status == 422)
        let cut = try SourceImages.data(SourceImages.rocket).prefix(5000)
        let error = try await Self.refusal(Data(cut), "rs:fit:100:100")
        #expect(error?.status == 422)
        #expect(error?.publicMessage == "Broken or unsupported image")
    }

    @Test func geometryOptionsGiveImgproxysSizes() async throws {
        let cases: [(String, Int, Int)] = [
            ("rs:fit:100:100/pd:10:20", 140, 87),
            ("rs:fit:100:100/pd:10/dpr:2", 240, 173),
            ("rs:fit:100:100/ex:1", 100, 100),
            ("rs:fit:100:100/ex:1/dpr:2", 200, 200),
            ("rs:fill:100:100/dpr:2", 200, 200),
            ("c:320:320/rs:fit:100:100", 100, 100),
            ("c:0.5:0.5", 320, 214),
            ("rot:90/rs:fit:100:100", 67, 100),
            ("w:320/mh:300", 320, 300),
            ("z:0.5", 320, 214),
            ("rs:fit:100:100/rc:20", 100, 67),
        ]
        for (options, width, height) in cases {
            let result = try await Self.process(SourceImages.rocket, options + "/f:png")
            #expect(result.pixelWidth == width && result.pixelHeight == height, "\(options): \(result.pixelWidth)x\(result.pixelHeight)")
        }
    }

    @Test func paddingExtendAndRoundCornersAreTransparentOrFlattened() async throws {
        // PNG asked for, no background: transparent margins.
        let padded = try Self.decoded(try await Self.process(SourceImages.rocket, "rs:fit:100:100/pd:10/f:png"))
        #expect(padded.pixel(x: 0, y: 0)?.alpha == 0 && padded.pixel(x: 60, y: 40)?.alpha == 255)
        // The source's JPEG (a preferred format): flattened onto white, or onto the background.
        let white = try Self.decoded(try await Self.process(SourceImages.rocket, "rs:fit:100:100/rc:30"))
        let whiteCorner = try #require(white.pixel(x: 0, y: 0))
        #expect(white.format == .jpeg && whiteCorner.red > 240 && whiteCorner.green > 240 && whiteCorner.blue > 240)
        let red = try Self.decoded(try await Self.process(SourceImages.rocket, "rs:fit:100:100/pd:10/bg:ff0000"))
        let corner = try #require(red.pixel(x: 2, y: 2))
        #expect(red.format == .jpeg && corner.red > 240 && corner.green < 15 && corner.blue < 15)
        let extended = try Self.decoded(try await Self.process(SourceImages.rocket, "rs:fit:100:100/ex:1:no/f:png"))
        #expect(extended.pixelHeight == 100 && extended.pixel(x: 50, y: 0)?.alpha == 255 && extended.pixel(x: 50, y: 99)?.alpha == 0)
    }

    @Test func orientationRotationAndFlip() async throws {
        // Landscape_6 is stored 1200x1800 with EXIF orientation 6: upright 1800x1200.
        let upright = try await Self.process("exif-orientation/Landscape_6.jpg", "rs:fit:300:300")
        #expect(upright.pixelWidth == 300 && upright.pixelHeight == 200)
        let stored = try await Self.process("exif-orientation/Landscape_6.jpg", "rs:fit:300:300/ar:0")
        #expect(stored.pixelWidth == 200 && stored.pixelHeight == 300)
        // Undoing the orientation gives the stored pixels: the same as the unrotated file.
        let reference = try Self.decoded(try await Self.process("exif-orientation/Landscape_1.jpg", "rs:fit:300:300/f:png"))
        let rotated = try Self.decoded(try await Self.process("exif-orientation/Landscape_6.jpg", "rs:fit:300:300/ar:0/rot:90/f:png"))
        #expect(rotated.pixelWidth == reference.pixelWidth && rotated.pixelHeight == reference.pixelHeight)
        let flipped = try Self.decoded(try await Self.process(SourceImages.rocket, "fl:1/f:png"))
        let plain = try Self.decoded(try await Self.process(SourceImages.rocket, "f:png"))
        #expect(flipped.pixel(x: 0, y: 10) == plain.pixel(x: 639, y: 10))
    }

    @Test func trimCutsBordersBeforeResizing() async throws {
        // The padded PNG's red border, trimmed: the photo's own size again.
        let framed = try await Self.process(SourceImages.rocket, "pd:20/bg:ff0000/f:png")
        #expect(framed.pixelWidth == 680 && framed.pixelHeight == 467)
        let parsed = try ImgproxyURLParser().options(parsing: "t:10/f:png")
        let plan = OutputFormatPlan(options: parsed, accept: nil, configuration: ProcessingConfiguration())
        let trimmed = try await ImageProcessor().process(framed.data, options: parsed, format: plan)
        #expect(trimmed.pixelWidth == 640 && trimmed.pixelHeight == 427)
    }

    @Test func filtersChangeThePixelsOfEveryFrame() async throws {
        let plain = try Self.decoded(try await Self.process(SourceImages.rocket, "rs:fit:200:200/f:png"))
        for filter in ["bl:3", "sh:2", "pix:8"] {
            let filtered = try Self.decoded(try await Self.process(SourceImages.rocket, "rs:fit:200:200/f:png/" + filter))
            #expect(filtered.pixelWidth == 200 && filtered.pixelHeight == 133)
            #expect(try PixelComparison.largestDifference(filtered, plain) > 20, "\(filter)")
        }
        // An animation: the last frame is pixelated too (8x8 blocks from the top-left corner).
        let animated = try Self.decoded(try await Self.process(SourceImages.animatedWebP, "rs:fit:200:200/pix:8", accept: "image/webp"))
        let last = try #require(animated.frame(at: animated.frameCount - 1))
        #expect(animated.frameCount == 8 && last.pixel(x: 9, y: 9) == last.pixel(x: 15, y: 15) && last.pixel(x: 16, y: 16) == last.pixel(x: 23, y: 20))
        // A smart crop before resizing.
        let cut = try await Self.process(SourceImages.rocket, "c:300:300:sm/rs:fit:100:100")
        #expect(cut.pixelWidth == 100 && cut.pixelHeight == 100)
    }

    @Test func skipProcessingSendsTheSourceAsItIs() async throws {
        let data = try SourceImages.data(SourceImages.rocket)
        let result = try await Self.process(SourceImages.rocket, "skp:jpg/rs:fit:10:10")
        #expect(result.data == data && result.format == .jpeg)
        // Another format asked for: processed.
        #expect(try await Self.process(SourceImages.rocket, "skp:jpg/rs:fit:10:10/f:png").pixelWidth == 10)
    }

    @Test func svgSourcesAreRasterised() async throws {
        let result = try await Self.process("sdwebimage/TestImage.svg", "rs:fit:64:64")
        #expect(result.format == .png && max(result.pixelWidth, result.pixelHeight) == 64)
        _ = try Self.decoded(result)
    }
}
