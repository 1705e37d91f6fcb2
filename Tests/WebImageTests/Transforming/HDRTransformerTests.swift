import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestSupport

/// The transformers on an HDR image (decoded with `decodeToHDR`: SDWebImage's four TestHDR
/// files, TestHDR.jpeg's the gain map's rendition): they work on its 16-bit samples, without
/// tone mapping first, and the result stays HDR with the source's colour; its samples are
/// libvips' own operation on the source's 16-bit samples, within a small bound.
@Suite(.offThePool) struct HDRTransformerTests {
    static let files = ["sdwebimage/TestHDR.avif", "sdwebimage/TestHDR.heic", "sdwebimage/TestHDR.jxl", "sdwebimage/TestHDR.jpeg"]

    /// The file decoded HDR at 300 pixels (a decode-time thumbnail, HDR itself).
    static func hdrImage(_ file: String) throws -> WebImage.Image {
        try HDREncodingTests.decoded(file, hdr: true, thumbnail: CGSize(width: 300, height: 300))
    }

    /// The image's 16-bit samples as a libvips image (`rgb16`, full signal at 65535): the input
    /// of the reference operations.
    static func samples(of image: WebImage.Image) throws -> VipsImageRef {
        let source = try #require(image.highBitDepth)
        return try source.build().sixteenBitNormalized(signalMax: source.signalMax).call("copy", "interpretation=rgb16")
    }

    /// The largest and the mean difference of the colour samples of `image` from `reference`'s,
    /// in codes of 65535; the sizes must match.
    static func difference(_ image: WebImage.Image, _ reference: VipsImageRef) throws -> (worst: Int, mean: Double) {
        let expected = try reference.renderSixteenBit(signalMax: 65535)
        #expect(expected.width == image.pixelWidth && expected.height == image.pixelHeight)
        guard expected.width == image.pixelWidth, expected.height == image.pixelHeight else { return (.max, .infinity) }
        return try image.withUnsafeRGBA16Samples { samples in
            let difference = expected.samples.withUnsafeBufferPointer { theirs in
                SampleDifference(samples, bands: 4, theirs, bands: expected.bands, pixels: expected.width * expected.height, channels: 3)
            }
            return (difference.largest, difference.mean)
        }
    }

    /// Still HDR, with the source's colour.
    static func expectHDR(_ result: WebImage.Image?, like source: WebImage.Image, _ note: String) throws -> WebImage.Image {
        let result = try #require(result, "\(note)")
        #expect(result.bitsPerComponent == 16 && result.isHighDynamicRange, "\(note)")
        #expect(result.colorInfo == source.colorInfo, "\(note)")
        return result
    }

    @Test(arguments: files)
    func movingPixelsGivesLibvipsOwnSamplesExactly(file: String) throws {
        let image = try Self.hdrImage(file)
        let samples = try Self.samples(of: image)
        let cases: [(any ImageTransformer, VipsImageRef)] = [
            (CroppingTransformer(rect: CGRect(x: 10, y: 20, width: 100, height: 50)), try samples.extractingArea(x: 10, y: 20, width: 100, height: 50)),
            (FlippingTransformer(horizontal: true, vertical: false), try samples.flipped(.horizontal)),
            (FlippingTransformer(horizontal: false, vertical: true), try samples.flipped(.vertical)),
            // Counter-clockwise a quarter: libvips turns clockwise three.
            (RotationTransformer(angle: .pi / 2, fitSize: true), try samples.rotated(quarterTurns: 3)),
        ]
        for (transformer, reference) in cases {
            let result = try Self.expectHDR(transformer.transformedImage(with: image, forKey: ""), like: image, "\(file) \(transformer.transformerKey)")
            let difference = try Self.difference(result, reference)
            #expect(difference.worst == 0, "\(file) \(transformer.transformerKey): \(difference)")
        }
    }

    /// A 16-bit PNG's samples (the HLG chart, 336x48) through transformers that read them out of
    /// order: a crop below the top, a vertical flip, a quarter turn. Loaded for sequential
    /// access, they failed ("vipspng: out of order read").
    @Test func aSixteenBitPNGsSamplesAreReadInAnyOrder() throws {
        let image = try HDREncodingTests.decoded("hdr/chart-hlg.png", hdr: true)
        #expect(image.colorInfo.transfer == .hlg && image.bitsPerComponent == 16)
        let samples = try Self.samples(of: image)
        let cases: [(any ImageTransformer, VipsImageRef)] = [
            (CroppingTransformer(rect: CGRect(x: 200, y: 30, width: 100, height: 15)), try samples.extractingArea(x: 200, y: 30, width: 100, height: 15)),
            (FlippingTransformer(horizontal: false, vertical: true), try samples.flipped(.vertical)),
            (RotationTransformer(angle: .pi / 2, fitSize: true), try samples.rotated(quarterTurns: 3)),
        ]
        for (transformer, reference) in cases {
            let result = try Self.expectHDR(transformer.transformedImage(with: image, forKey: ""), like: image, "\(transformer.transformerKey)")
            #expect(try Self.difference(result, reference).worst == 0, "\(transformer.transformerKey)")
        }
    }

    @Test(arguments: files)
    func resizeAndBlurAreLibvipsOnTheSixteenBitSamples(file: String) throws {
        let image = try Self.hdrImage(file)
        let samples = try Self.samples(of: image)
        let resized = try Self.expectHDR(
            ResizingTransformer(size: CGSize(width: 120, height: 120), scaleMode: .aspectFit).transformedImage(with: image, forKey: ""),
            like: image, "\(file) resize"
        )
        let scale = (Double(resized.pixelWidth) / Double(image.pixelWidth), Double(resized.pixelHeight) / Double(image.pixelHeight))
        let resizeDifference = try Self.difference(resized, try samples.resized(horizontalScale: scale.0, verticalScale: scale.1))
        // libvips' resize of 16-bit samples computes in integers between its passes; ours in floating point.
        #expect(resizeDifference.worst <= 512 && resizeDifference.mean <= 32, "\(file) resize: \(resizeDifference)")

        let blurred = try Self.expectHDR(BlurTransformer(radius: 3).transformedImage(with: image, forKey: ""), like: image, "\(file) blur")
        let blurDifference = try Self.difference(blurred, try samples.gaussianBlur(sigma: 3))
        #expect(blurDifference.worst <= 330 && blurDifference.mean <= 40, "\(file) blur: \(blurDifference)")
    }

    @Test(arguments: files)
    func roundCornersAndRotationMakeTransparentCornersAndKeepTheColours(file: String) throws {
        let image = try Self.hdrImage(file)
        let samples = try Self.samples(of: image)
        let rounded = try Self.expectHDR(RoundCornerTransformer(radius: 30).transformedImage(with: image, forKey: ""), like: image, "\(file) round")
        #expect(try Self.difference(rounded, samples).worst == 0, "colours unchanged")
        try rounded.withUnsafeRGBA16Samples { rgba in
            let width = rounded.pixelWidth
            #expect(rgba[3] == 0 && rgba[(width - 1) * 4 + 3] == 0, "the corners transparent")
            #expect(rgba[(rounded.pixelHeight / 2 * width + width / 2) * 4 + 3] == 65535, "the middle opaque")
        }
        let rotated = try Self.expectHDR(RotationTransformer(angle: .pi / 6, fitSize: false).transformedImage(with: image, forKey: ""), like: image, "\(file) rotate")
        #expect(rotated.pixelWidth == image.pixelWidth && rotated.pixelHeight == image.pixelHeight)
        let reference = try samples.withSixteenBitAlpha().rotated(degrees: -30, background: [0, 0, 0, 0])
            .centred(width: image.pixelWidth, height: image.pixelHeight, background: [0, 0, 0, 0])
        try rotated.withUnsafeRGBA16Samples { rgba in
            #expect(rgba[3] == 0, "a corner uncovered")
            let middle = (rotated.pixelHeight / 2 * rotated.pixelWidth + rotated.pixelWidth / 2) * 4
            let expected = try reference.renderSixteenBit(signalMax: 65535)
            let centre = (expected.height / 2 * expected.width + expected.width / 2) * expected.bands
            for channel in 0..<3 { #expect(abs(Int(rgba[middle + channel]) - Int(expected.samples[centre + channel])) <= 64, "\(file) rotate, centre") }
        }
    }

    /// SDR white in HDR (BT.2408): 203 cd/m², PQ code 0.5807 (SMPTE ST 2084), HLG 0.75.
    @Test(arguments: files)
    func aTintIsItsColourInTheSamplesEncoding(file: String) throws {
        let image = try Self.hdrImage(file)
        let tinted = try Self.expectHDR(TintTransformer(color: .white, blendMode: .sourceIn).transformedImage(with: image, forKey: ""), like: image, "\(file) tint")
        let white = image.colorInfo.transfer == .pq ? 0.5807 * 65535 : 0.75 * 65535
        try tinted.withUnsafeRGBA16Samples { rgba in
            for index in [0, rgba.count / 2, rgba.count - 4] {
                for channel in 0..<3 { #expect(abs(Double(rgba[index + channel]) - white) <= 40, "\(file): \(rgba[index + channel])") }
                #expect(rgba[index + 3] == 65535)
            }
        }
        // Half-transparent red over the picture: libvips' own composite of that colour.
        let red = RGBA8(red: 255, green: 0, blue: 0, alpha: 128)
        let overlaid = try Self.expectHDR(TintTransformer(color: red, blendMode: .normal).transformedImage(with: image, forKey: ""), like: image, "\(file) tint over")
        let base = try Self.samples(of: image).withSixteenBitAlpha()
        let codes = SDRColourCodes(encoding: try #require(image.highBitDepth).encoding).codes(of: red)
        let overlay = try base.linear(multipliers: [0, 0, 0, 0], addends: codes + [128 * 257]).cast(to: .ushort)
        let difference = try Self.difference(overlaid, try base.call("composite2", with: overlay, names: ("base", "overlay"), "mode=over"))
        #expect(difference.worst <= 2, "\(file) tint over: \(difference)")
    }

    @Test func aTransformedHDRImageIsWrittenHDR() throws {
        let image = try Self.hdrImage("sdwebimage/TestHDR.heic")
        let pipeline = PipelineTransformer(transformers: [
            ResizingTransformer(size: CGSize(width: 200, height: 200), scaleMode: .aspectFill), RoundCornerTransformer(radius: 20),
        ])
        let result = try Self.expectHDR(pipeline.transformedImage(with: image, forKey: ""), like: image, "pipeline")
        #expect(result.pixelWidth == 200 && result.pixelHeight == 200 && result.hasAlpha)
        let header = try ImageHeader(probing: try ImageCodersManager.shared.encode(result, format: .png, options: ImageCoderOptions()))
        #expect(header.colorInfo.transfer == .pq && header.colorInfo.bitsPerComponent == 16 && header.hasAlpha)
    }

    @Test func transformersWithoutASixteenBitStepGiveSDR() throws {
        let image = try Self.hdrImage("sdwebimage/TestHDR.avif")
        for transformer in [SharpeningTransformer(sigma: 1) as any ImageTransformer, PixelatingTransformer(blockSize: 4)] {
            let result = try #require(transformer.transformedImage(with: image, forKey: ""))
            #expect(result.bitsPerComponent == 8 && !result.isHighDynamicRange, "\(transformer.transformerKey)")
        }
    }
}
