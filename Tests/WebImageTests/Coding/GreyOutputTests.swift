import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// A grey source is written grey (one band, two with alpha) to the formats that hold grey, as
/// imgproxy keeps B_W and GREY16, while its pixels stay grey; a 16-bit one stays 16-bit with
/// `decodeToHDR` and `encodeKeepsHDR`. Read back as a user would: the file's own header
/// (PNG's IHDR, JPEG's frame) and libvips' interpretation of it.
@Suite(.offThePool) struct GreyOutputTests {
    /// PNG's bit depth and colour type (0 grey, 2 RGB, 4 grey with alpha, 6 RGBA).
    static func ihdr(_ png: Data) throws -> (bitDepth: Int, colourType: Int) {
        let bytes = [UInt8](png.prefix(26))
        try #require(bytes.count == 26 && bytes[12...15].elementsEqual("IHDR".utf8))
        return (Int(bytes[24]), Int(bytes[25]))
    }

    /// The number of components a JPEG's frame header gives (1: grey).
    static func jpegComponents(_ jpeg: Data) throws -> Int {
        let bytes = [UInt8](jpeg)
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC2).contains(marker) { return Int(bytes[index + 9]) }
            index += 2 + length
        }
        Issue.record("no frame header")
        return 0
    }

    static func interpretation(_ data: Data, loader: String) throws -> (bands: Int, name: String) {
        let image = try VipsImageRef.load(loader, data: data)
        return (image.bands, image.interpretationName)
    }

    static func thumbnailOptions(_ side: Int) -> ImageCoderOptions {
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: side, height: side)
        return options
    }

    /// A grey JPEG made from a repository photo (libvips' own conversion and saver).
    static func greyJPEG() throws -> Data {
        let photo = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data("photos/rocket.jpg"))
        return try photo.inColourSpace(.grey).save("jpegsave_buffer", options: "Q=90")
    }

    @Test(arguments: ["pngsuite/basn0g08.png", "pngsuite/basn0g16.png", "pngsuite/basn0g04.png"])
    func aGreyPNGStaysOneBandThroughAThumbnailWithItsPixels(file: String) throws {
        let image = try ImageCodersManager.shared.decode(try TestImages.data(file), options: Self.thumbnailOptions(16))
        #expect(image.colorInfo.isGrey && image.pixelWidth == 16)
        let png = try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
        #expect(try Self.ihdr(png) == (8, 0))
        #expect(try Self.interpretation(png, loader: "pngload_buffer") == (1, "b-w"))
        // The same samples as the RGBA image held: PNG is lossless.
        let again = try ImageCodersManager.shared.decode(png, options: ImageCoderOptions())
        #expect(try image.withUnsafeRGBA8Bytes { a in try again.withUnsafeRGBA8Bytes { b in a.elementsEqual(b) } })
    }

    @Test func aGreyPNGWithAlphaKeepsBothBands() throws {
        let image = try ImageCodersManager.shared.decode(try TestImages.data("pngsuite/basn4a08.png"), options: Self.thumbnailOptions(16))
        let png = try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
        #expect(try Self.ihdr(png) == (8, 4))
        #expect(try Self.interpretation(png, loader: "pngload_buffer") == (2, "b-w"))
        let again = try ImageCodersManager.shared.decode(png, options: ImageCoderOptions())
        #expect(try image.withUnsafeRGBA8Bytes { a in try again.withUnsafeRGBA8Bytes { b in a.elementsEqual(b) } })
    }

    @Test func aGreyJPEGStaysOneComponentThroughAThumbnail() throws {
        let source = try Self.greyJPEG()
        #expect(try Self.jpegComponents(source) == 1)
        let image = try ImageCodersManager.shared.decode(source, options: Self.thumbnailOptions(100))
        #expect(image.colorInfo.isGrey && image.pixelWidth == 100)
        let jpeg = try ImageCodersManager.shared.encode(image, format: .jpeg, options: ImageCoderOptions())
        #expect(try Self.jpegComponents(jpeg) == 1)
        #expect(try Self.interpretation(jpeg, loader: "jpegload_buffer") == (1, "b-w"))
        // A colour photo stays colour.
        let colour = try ImageCodersManager.shared.decode(try TestImages.data("photos/rocket.jpg"), options: Self.thumbnailOptions(100))
        #expect(!colour.colorInfo.isGrey)
        #expect(try Self.jpegComponents(try ImageCodersManager.shared.encode(colour, format: .jpeg, options: ImageCoderOptions())) == 3)
    }

    @Test func aGreyImageWithAlphaWrittenToJPEGIsGreyOnAGreyBackgroundAndColourOnAColouredOne() throws {
        let image = try ImageCodersManager.shared.decode(try TestImages.data("pngsuite/basn4a08.png"), options: ImageCoderOptions())
        #expect(try Self.jpegComponents(try ImageCodersManager.shared.encode(image, format: .jpeg, options: ImageCoderOptions())) == 1)
        var red = ImageCoderOptions()
        red.encodeBackgroundColor = RGBA8(red: 255, green: 0, blue: 0)
        #expect(try Self.jpegComponents(try ImageCodersManager.shared.encode(image, format: .jpeg, options: red)) == 3)
    }

    @Test func aGreySourceMadeColourIsWrittenInColour() throws {
        let image = try ImageCodersManager.shared.decode(try TestImages.data("pngsuite/basn0g08.png"), options: ImageCoderOptions())
        let tinted = try #require(TintTransformer(color: RGBA8(red: 255, green: 0, blue: 0), blendMode: .normal).transformedImage(with: image, forKey: "grey"))
        let png = try ImageCodersManager.shared.encode(tinted, format: .png, options: ImageCoderOptions())
        #expect(try Self.ihdr(png).colourType == 6 || Self.ihdr(png).colourType == 2)
        #expect(try Self.interpretation(png, loader: "pngload_buffer").name == "srgb")
    }

    /// A grey WebP made by libvips from a grey photo: lossy (libwebp's decode then rounds green
    /// one below red and blue for some pixels) or lossless (exact).
    static func greyWebP(lossless: Bool) throws -> Data {
        let grey = try VipsImageRef.load("jpegload_buffer", data: try greyJPEG())
        return try grey.save("webpsave_buffer", options: lossless ? "lossless=true" : "Q=80")
    }

    @Test(arguments: [false, true])
    func aGreyWebPIsWrittenGreyToPNGAndJPEGThroughAThumbnail(lossless: Bool) throws {
        let source = try Self.greyWebP(lossless: lossless)
        #expect(try Self.interpretation(source, loader: "webpload_buffer").bands == 3)
        let image = try ImageCodersManager.shared.decode(source, options: Self.thumbnailOptions(100))
        #expect(image.pixelWidth == 100)
        let png = try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
        #expect(try Self.ihdr(png) == (8, 0))
        // Each sample the blue one of the decoded image (which red equals).
        let again = try ImageCodersManager.shared.decode(png, options: ImageCoderOptions())
        let blues = try image.withUnsafeRGBA8Bytes { bytes in stride(from: 2, to: bytes.count, by: 4).map { bytes[$0] } }
        let greys = try again.withUnsafeRGBA8Bytes { bytes in stride(from: 0, to: bytes.count, by: 4).map { bytes[$0] } }
        #expect(blues == greys)
        let jpeg = try ImageCodersManager.shared.encode(image, format: .jpeg, options: ImageCoderOptions())
        #expect(try Self.jpegComponents(jpeg) == 1)
        #expect(try Self.interpretation(jpeg, loader: "jpegload_buffer") == (1, "b-w"))
    }

    @Test func aGreyWebPWithAlphaKeepsBothBands() throws {
        let png = try VipsImageRef.load("pngload_buffer", data: try TestImages.data("pngsuite/basn4a08.png"))
        let source = try png.save("webpsave_buffer", options: "lossless=true")
        let image = try ImageCodersManager.shared.decode(source, options: ImageCoderOptions())
        #expect(image.hasAlpha && !image.colorInfo.isGrey)
        let written = try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
        #expect(try Self.ihdr(written) == (8, 4))
        #expect(try Self.interpretation(written, loader: "pngload_buffer") == (2, "b-w"))
        let again = try ImageCodersManager.shared.decode(written, options: ImageCoderOptions())
        #expect(try image.withUnsafeRGBA8Bytes { a in try again.withUnsafeRGBA8Bytes { b in a.elementsEqual(b) } })
    }

    @Test func aColourWebPStaysColour() throws {
        for file in ["webp/test.webp", "webp/lossless1.webp"] {
            let image = try ImageCodersManager.shared.decode(try TestImages.data(file), options: ImageCoderOptions())
            let png = try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
            #expect([2, 6].contains(try Self.ihdr(png).colourType), "\(file)")
            let jpeg = try ImageCodersManager.shared.encode(image, format: .jpeg, options: ImageCoderOptions())
            #expect(try Self.jpegComponents(jpeg) == 3, "\(file)")
        }
    }

    @Test func formatsWithoutGreyGetColour() throws {
        let image = try ImageCodersManager.shared.decode(try TestImages.data("pngsuite/basn0g08.png"), options: ImageCoderOptions())
        let webP = try ImageCodersManager.shared.encode(image, format: .webP, options: ImageCoderOptions())
        #expect(try Self.interpretation(webP, loader: "webpload_buffer") == (3, "srgb"))
    }

    @Test(arguments: [
        ("pngsuite/basn0g16.png", 0, 1, "grey16"), ("pngsuite/basn4a16.png", 4, 2, "grey16"),
        ("pngsuite/basn2c16.png", 2, 3, "rgb16"), ("libjpeg-turbo/monkey16.png", 2, 3, "rgb16"),
    ])
    func aSixteenBitPNGStaysSixteenBitWithHDRKept(file: String, colourType: Int, bands: Int, interpretation: String) throws {
        var options = ImageCoderOptions()
        options.decodeToHDR = true
        let image = try ImageCodersManager.shared.decode(try TestImages.data(file), options: options)
        let png = try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
        #expect(try Self.ihdr(png) == (16, colourType), "\(file)")
        #expect(try Self.interpretation(png, loader: "pngload_buffer") == (bands, interpretation), "\(file)")
        // Without decodeToHDR, 8 bits as before.
        let eight = try ImageCodersManager.shared.encode(
            try ImageCodersManager.shared.decode(try TestImages.data(file), options: ImageCoderOptions()), format: .png, options: ImageCoderOptions()
        )
        #expect(try Self.ihdr(eight).bitDepth == 8, "\(file)")
    }
}
