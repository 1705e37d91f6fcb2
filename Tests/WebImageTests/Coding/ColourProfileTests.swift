import Foundation
import LibVips
import Testing
import WebImage

/// Images with an embedded colour profile come out in sRGB, as libvips' own ICC transform
/// would make them, on every decode path.
@Suite struct ColourProfileTests {
    /// rocket.jpg carries an Adobe RGB (1998) profile.
    static let file = "photos/rocket.jpg"

    /// libvips' reading of the file: as stored (profile ignored) or through its ICC transform to sRGB.
    static func reference(transformed: Bool) throws -> PixelBuffer {
        var image = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data(file))
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
                var largest = 0
                var over = 0
                for pixel in 0..<(reference.width * rows) {
                    for channel in 0..<3 {
                        let delta = abs(Int(ours[pixel * 4 + channel]) - Int(theirs[pixel * 3 + channel]))
                        largest = max(largest, delta)
                        if delta > tolerance { over += 1 }
                    }
                }
                return (largest, over)
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
        let reference = try VipsImageRef.load(
            "thumbnail_buffer", data: try TestImages.data(Self.file), options: "width=320,height=320,size=down"
        ).call("icc_transform", "output_profile=srgb,embedded=true,depth=8").render()
        let converted = try Self.difference(thumbnail, reference, tolerance: 2)
        #expect(thumbnail.pixelWidth == 320 && thumbnail.pixelHeight == reference.height)
        #expect(converted.max <= 3 && converted.over < 100)
    }
}
