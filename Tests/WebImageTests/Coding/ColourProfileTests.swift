import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// Images with an embedded colour profile come out in sRGB, as libvips' own ICC transform
/// would make them, on every decode path.
@Suite(.offThePool) struct ColourProfileTests {
    /// rocket.jpg carries an Adobe RGB (1998) profile.
    static let file = "photos/rocket.jpg"

    /// libvips' reading of the file (or of `data`): as stored (profile ignored) or through its ICC
    /// transform to sRGB.
    static func reference(_ data: Data? = nil, transformed: Bool) throws -> PixelBuffer {
        var image = try VipsImageRef.load("jpegload_buffer", data: try data ?? TestImages.data(file))
        if transformed { image = try image.call("icc_transform", "output_profile=srgb,embedded=true,depth=8") }
        return try image.render()
    }

    /// The largest difference of one RGB sample between `image` and a 3-band reference of the
    /// same width, over the rows both have, and how many samples differ by more than `tolerance`.
    static func difference(_ image: WebImage.Image, _ reference: PixelBuffer, tolerance: Int) throws -> (max: Int, over: Int) {
        try #require(reference.bands == 3 && reference.width == image.pixelWidth)
        let rows = min(reference.height, image.pixelHeight)
        return try image.withUnsafeRGBA8Bytes { ours in
            reference.withUnsafeBytes { theirs in
                let difference = SampleDifference(ours, bands: 4, theirs, bands: 3, pixels: reference.width * rows, channels: 3, tolerance: tolerance)
                return (difference.largest, difference.over)
            }
        }
    }

    @Test func anAdobeRGBPhotoIsConvertedLikeLibvipsDoes() throws {
        let image = try TestImages.decoded(try TestImages.data(Self.file))
        // lcms' built-in sRGB and libvips' sRGB profile differ by rounding only.
        let converted = try Self.difference(image, try Self.reference(transformed: true), tolerance: 2)
        #expect(converted.max <= 3 && converted.over < 100)
        // And the conversion did happen: many samples differ from the file's raw values.
        let raw = try Self.difference(image, try Self.reference(transformed: false), tolerance: 3)
        #expect(raw.over > 10_000)
    }

    /// Colorants in s15.16: sRGB's as lcms makes its sRGB profile (relative to D50), and the
    /// green of rocket.jpg's Adobe RGB profile.
    static let sRGBRed: [UInt32] = [0x6FA0, 0x38F5, 0x0390], sRGBGreen: [UInt32] = [0x6297, 0xB787, 0x18D9]
    static let sRGBBlue: [UInt32] = [0x249F, 0x0F84, 0xB6C3], adobeGreen: [UInt32] = [0x348D, 0xA02C, 0x0F95]

    /// rocket.jpg with the red, green and blue colorants of its profile (the tags rXYZ, gXYZ and
    /// bXYZ, whose numbers start at bytes 508, 528 and 548 of this 560-byte profile) replaced.
    static func rocket(withColorants colorants: [[UInt32]]) throws -> Data {
        var bytes = [UInt8](try TestImages.data(file))
        let tag = Array("ICC_PROFILE".utf8)
        let icc = try #require(try JPEGSegments(bytes).segments.first {
            $0.marker == 0xE2 && Array(bytes[$0.payload.prefix(tag.count)]) == tag
        })
        // "ICC_PROFILE\0", chunk 1 of 1 (14 bytes), then the profile.
        let profile = icc.payload.lowerBound + 14
        try #require(icc.payload.count == 14 + 560 && Array(bytes[profile + 500..<profile + 504]) == Array("XYZ ".utf8))
        for (index, colorant) in colorants.enumerated() {
            for (axis, value) in colorant.enumerated() {
                let start = profile + 508 + 20 * index + 4 * axis
                bytes.replaceSubrange(start..<start + 4, with: withUnsafeBytes(of: value.bigEndian, Array.init))
            }
        }
        return Data(bytes)
    }

    /// A profile whose matrix into sRGB has zeros off its diagonal, or off it only in one column,
    /// is converted through one table a channel: Adobe RGB (its green differs from sRGB's, above),
    /// and rocket.jpg's profile edited so that only its curve differs from sRGB, or its red primary,
    /// or its blue one. Each comes out as libvips' ICC transform makes it.
    @Test(arguments: [
        ("only the curve", [sRGBRed, sRGBGreen, sRGBBlue]), ("the red primary", [adobeGreen, sRGBGreen, sRGBBlue]),
        ("the blue primary", [sRGBRed, sRGBGreen, adobeGreen]),
    ])
    func aProfileThatDiffersFromSRGBInOnePrimaryOrOnlyItsCurveIsConvertedLikeLibvipsDoes(differing: String, colorants: [[UInt32]]) throws {
        let data = try Self.rocket(withColorants: colorants)
        let image = try TestImages.decoded(data)
        let converted = try Self.difference(image, try Self.reference(data, transformed: true), tolerance: 2)
        #expect(converted.max <= 3 && converted.over < 100)
        let raw = try Self.difference(image, try Self.reference(data, transformed: false), tolerance: 3)
        #expect(raw.over > 10_000)
    }

    /// A JPEG's pixels, opaque, are converted two at a time with their alpha written as 255:
    /// the same colours as the conversion that reads every pixel's bands (here libvips' RGB
    /// reading of the same file), for each kind of profile that takes that path.
    @Test(arguments: [
        ("Adobe RGB", nil), ("the red primary", [adobeGreen, sRGBGreen, sRGBBlue]), ("the blue primary", [sRGBRed, sRGBGreen, adobeGreen]),
    ])
    func opaquePixelsAreConvertedAsPixelsReadBandByBand(differing: String, colorants: [[UInt32]]?) throws {
        let data = try colorants.map(Self.rocket(withColorants:)) ?? TestImages.data(Self.file)
        let header = try #require(TurboJPEG.header(of: data))
        let source = try VipsImageRef.load("jpegload_buffer", data: data)
        let profile = try #require(source.iccProfile)
        let opaque = try TurboJPEG.decode(data, header: header, colourProfile: profile, orientation: 1)
        let rgb = try #require(try source.renderedInSRGB(from: profile))
        try #require(opaque.bands == 4 && rgb.bands == 3 && opaque.width * opaque.height == rgb.width * rgb.height)
        let (differing, notOpaque) = opaque.withUnsafeBytes { ours in
            rgb.withUnsafeBytes { theirs in
                (0..<rgb.width * rgb.height).reduce(into: (0, 0)) { counts, pixel in
                    if (0..<3).contains(where: { ours[4 * pixel + $0] != theirs[3 * pixel + $0] }) { counts.0 += 1 }
                    if ours[4 * pixel + 3] != 255 { counts.1 += 1 }
                }
            }
        }
        #expect(differing == 0 && notOpaque == 0)
    }

    @Test func lazyDecodeThenEncodeKeepsTheConversion() throws {
        let data = try TestImages.data(Self.file)
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        let image = try ImageCodersManager.shared.decode(data, options: lazy)
        let png = try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
        let roundTrip = try TestImages.decoded(png)
        let converted = try Self.difference(roundTrip, try Self.reference(transformed: true), tolerance: 2)
        #expect(converted.max <= 3 && converted.over < 100)
    }

    @Test func aThumbnailIsConvertedToo() throws {
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 320, height: 320)
        let thumbnail = try ImageCodersManager.shared.decode(try TestImages.data(Self.file), options: options)
        // libvips' thumbnail, then its ICC transform: resized first, converted after, as ours.
        // Engines may place a thumbnail's samples a fraction of a pixel apart, which shows on
        // sharp edges: compared on average, converted and not.
        let loaded = { () throws in
            try VipsImageRef.load("thumbnail_buffer", data: try TestImages.data(Self.file), options: "width=320,height=320,size=down")
        }
        let converted = try PixelDifference(
            thumbnail, try loaded().call("icc_transform", "output_profile=srgb,embedded=true,depth=8").render()
        )
        let raw = try PixelDifference(thumbnail, try loaded().render())
        let height = try loaded().height
        #expect(thumbnail.pixelWidth == 320 && thumbnail.pixelHeight == height)
        #expect(converted.mean < 1 && raw.mean > 3 * converted.mean)
    }

    /// rocket.jpg with its ICC profile cut to its first 300 bytes (a broken profile).
    static func rocketWithBrokenProfile() throws -> Data {
        var bytes = [UInt8](try TestImages.data(file))
        let tag = Array("ICC_PROFILE".utf8)
        let icc = try #require(try JPEGSegments(bytes).segments.first {
            $0.marker == 0xE2 && Array(bytes[$0.payload.prefix(tag.count)]) == tag
        })
        // "ICC_PROFILE\0", chunk 1 of 1 (14 bytes), then the first 300 profile bytes.
        let payload = Array(bytes[icc.payload.prefix(14 + 300)])
        let length = 2 + payload.count
        bytes.replaceSubrange(icc.range, with: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
        return Data(bytes)
    }

    @Test(arguments: [false, true])
    func aBrokenProfileStillDecodesOnEveryPath(lazy: Bool) throws {
        let data = try Self.rocketWithBrokenProfile()
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = lazy
        for coder in [VipsImageCoder.shared, TurboJPEGCoder.shared] as [any ImageCoder] {
            let image = try coder.decode(data, options: options)
            #expect(image.pixelWidth == 640 && image.pixelHeight == 427)
            #expect(try image.withUnsafeRGBA8Bytes { $0.count } == 640 * 427 * 4)
            var thumbnail = options
            thumbnail.decodeThumbnailPixelSize = CGSize(width: 100, height: 100)
            let small = try coder.decode(data, options: thumbnail)
            #expect(try small.withUnsafeRGBA8Bytes { $0.count } == small.pixelWidth * small.pixelHeight * 4)
        }
    }
}
