import Foundation
import Testing
import WebImage

/// The TurboJPEG engine gives what the libvips coder gives, and hands over what it does not take.
@Suite struct TurboJPEGCoderTests {
    static let smallJPEGs = [
        "sdwebimage/TestImage.jpg", "sdwebimage/MonochromeTestImage.jpg", "sdwebimage/TestICCProfile.jpg",
        "libjpeg-turbo/testorig.jpg", "libjpeg-turbo/testimgint.jpg", "libjpeg-turbo/testimgari.jpg",
        "photos/rocket.jpg", "exif-orientation/Landscape_3.jpg", "exif-orientation/Landscape_5.jpg",
        "exif-orientation/Landscape_8.jpg",
    ]

    /// The largest difference of one sample, over all pixels of two equally sized images.
    static func largestDifference(_ first: WebImage.Image, _ second: WebImage.Image) throws -> Int {
        try #require(first.pixelWidth == second.pixelWidth && first.pixelHeight == second.pixelHeight)
        return try first.withUnsafeRGBA8Bytes { a in
            try second.withUnsafeRGBA8Bytes { b in
                zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
            }
        }
    }

    @Test(arguments: smallJPEGs)
    func decodesLikeLibvips(file: String) throws {
        let data = try TestImages.data(file)
        let ours = try TurboJPEGCoder.shared.decode(data, options: ImageCoderOptions())
        let libvips = try VipsImageCoder.shared.decode(data, options: ImageCoderOptions())
        // Both run libjpeg-turbo; colour conversion through lcms may round one step apart.
        #expect(try Self.largestDifference(ours, libvips) <= 3)
        #expect(ours.format == .jpeg && !ours.hasAlpha && ours.isDecoded)
    }

    @Test(arguments: smallJPEGs)
    func thumbnailsHaveLibvipsSize(file: String) throws {
        let data = try TestImages.data(file)
        for (width, height, keepAspect) in [(100.0, 100.0, true), (64.0, 40.0, false), (30.0, 0.0, true)] {
            var options = ImageCoderOptions()
            options.decodeThumbnailPixelSize = CGSize(width: width, height: height)
            options.decodePreserveAspectRatio = keepAspect
            let ours = try TurboJPEGCoder.shared.decode(data, options: options)
            let libvips = try VipsImageCoder.shared.decode(data, options: options)
            #expect(abs(ours.pixelWidth - libvips.pixelWidth) <= 1 && abs(ours.pixelHeight - libvips.pixelHeight) <= 1)
            #expect(try ours.withUnsafeRGBA8Bytes { $0.count } == ours.pixelWidth * ours.pixelHeight * 4)
        }
    }

    @Test func encodesAJPEGOfTheSameSizeAndQualityOrder() throws {
        let image = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
        var low = ImageCoderOptions()
        low.encodeCompressionQuality = 0.1
        var high = ImageCoderOptions()
        high.encodeCompressionQuality = 0.9
        let small = try TurboJPEGCoder.shared.encode(image, format: .jpeg, options: low)
        let large = try TurboJPEGCoder.shared.encode(image, format: .jpeg, options: high)
        #expect(ImageFormat(sniffing: small) == .jpeg && small.count < large.count)
        let back = try VipsImageCoder.shared.decode(large, options: ImageCoderOptions())
        #expect(back.pixelWidth == 640 && back.pixelHeight == 427)
        // Same quality scale as libvips: the two outputs are within a fifth of each other.
        let libvips = try VipsImageCoder.shared.encode(image, format: .jpeg, options: high)
        #expect(abs(large.count - libvips.count) * 5 < libvips.count)
    }

    @Test func handsOverWhatItDoesNotTake() throws {
        // Alpha to flatten: libvips blends it onto the background.
        let transparent = try TestImages.decoded(try TestImages.data("sdwebimage/TestImage.png"))
        #expect(transparent.hasAlpha)
        let flattened = try TurboJPEGCoder.shared.encode(transparent, format: .jpeg, options: ImageCoderOptions())
        #expect(try TestImages.decoded(flattened).pixel(x: 0, y: 0) == RGBA8(red: 255, green: 255, blue: 255, alpha: 255))
        // Other formats and large images go to libvips too.
        #expect(try ImageFormat(sniffing: TurboJPEGCoder.shared.encode(transparent, format: .png, options: ImageCoderOptions())) == .png)
        let large = try TurboJPEGCoder.shared.decode(try TestImages.data("sdwebimage/TestImageLarge.jpg"), options: {
            var options = ImageCoderOptions()
            options.decodeUseLazyDecoding = true
            return options
        }())
        #expect(large.pixelWidth == 5250 && large.pixelHeight == 3450)
        // A file TurboJPEG cannot read (12-bit) gets libvips' typed error.
        #expect(throws: ImageCodingError.self) { try TurboJPEGCoder.shared.decode(try TestImages.data("libjpeg-turbo/monkey12.jpg"), options: ImageCoderOptions()) }
    }

    @Test(arguments: [0.1, 0.5, 0.99])
    func aTruncatedJPEGIsAnError(fraction: Double) throws {
        let data = try TestImages.data("photos/rocket.jpg")
        let cut = data.prefix(Int(Double(data.count) * fraction))
        #expect(throws: ImageCodingError.self) { try TurboJPEGCoder.shared.decode(cut, options: ImageCoderOptions()) }
    }
}
