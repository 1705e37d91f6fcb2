import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite(.offThePool) struct EncodingTests {
    @Test(arguments: [ImageFormat.jpeg, .png, .gif, .webP, .avif, .heic, .tiff, .jxl])
    func encodeThenDecodeKeepsThePixelSize(format: ImageFormat) throws {
        let image = try #require(Image(data: try TestImages.data("photos/rocket.jpg")))
        let data = try ImageCodersManager.shared.encode(image, format: format, options: ImageCoderOptions())
        #expect(ImageFormat(sniffing: data) == format)
        let decoded = try #require(Image(data: data))
        #expect(decoded.pixelWidth == 640 && decoded.pixelHeight == 427)
    }

    /// libvips writes HEIF as HEVC-coded HEIF, that is HEIC: asked for `.heif`, the encoder gives
    /// what it gives for `.heic`. What a user can rely on: a HEIF file (ISO BMFF, 'mif1' among
    /// its brands, so every HEIF reader takes it) that decodes back to the image's size.
    @Test func heifEncodesAsHEVCCodedHEIF() throws {
        let image = try #require(Image(data: try TestImages.data("photos/rocket.jpg")))
        let heif = try ImageCodersManager.shared.encode(image, format: .heif, options: ImageCoderOptions())
        let sniffed = ImageFormat(sniffing: heif)
        #expect(sniffed == .heic || sniffed == .heif, "\(sniffed)")
        let box = try #require(String(data: heif.prefix(32), encoding: .isoLatin1))
        #expect(box.dropFirst(4).hasPrefix("ftyp") && box.contains("mif1"), "\(box)")
        let decoded = try TestImages.decoded(heif)
        #expect(decoded.pixelWidth == 640 && decoded.pixelHeight == 427)
        #expect(decoded.format == sniffed)
        // The colours survive: a patch of the photo's sky, within lossy coding's error.
        let original = try #require(image.pixel(x: 320, y: 40))
        let ours = try #require(decoded.pixel(x: 320, y: 40))
        #expect(abs(Int(ours.red) - Int(original.red)) < 24 && abs(Int(ours.blue) - Int(original.blue)) < 24, "\(ours) vs \(original)")
    }

    @Test(arguments: [("sdwebimage/TestImageAnimated.webp", ImageFormat.gif), ("sdwebimage/TestLoopCount.gif", .webP),
                      ("sdwebimage/TestLoopCount.gif", .gif), ("sdwebimage/TestImageAnimated.apng", .webP)])
    func animationsKeepFrameAndLoopCounts(file: String, format: ImageFormat) throws {
        let image = try #require(Image(data: try TestImages.data(file)))
        let data = try ImageCodersManager.shared.encode(image, format: format, options: ImageCoderOptions())
        let decoded = try #require(Image(data: data))
        #expect(decoded.frameCount == image.frameCount && decoded.loopCount == image.loopCount)
        #expect(decoded.pixelWidth == image.pixelWidth && decoded.pixelHeight == image.pixelHeight)
        #expect(abs(decoded.frameDuration(at: 1) - image.frameDuration(at: 1)) < 0.011)
    }

    @Test func encodeFirstFrameOnlyWritesAStillImage() throws {
        let image = try #require(Image(data: try TestImages.data("sdwebimage/TestLoopCount.gif")))
        var options = ImageCoderOptions()
        options.encodeFirstFrameOnly = true
        let data = try ImageCodersManager.shared.encode(image, format: .gif, options: options)
        #expect(Image(data: data)?.frameCount == 1)
    }

    @Test func pngKeepsAlphaAndJPEGFlattensOntoTheBackground() throws {
        let image = try #require(Image(data: try TestImages.data("sdwebimage/TestImage.png")))
        let png = try TestImages.decoded(try #require(image.encodedData(format: .png)))
        #expect(png.hasAlpha && png.pixel(x: 0, y: 0)?.alpha == 0)
        var options = ImageCoderOptions()
        options.encodeBackgroundColor = RGBA8(red: 255, green: 0, blue: 0)
        let jpeg = try TestImages.decoded(try #require(image.encodedData(format: .jpeg, options: options)))
        let corner = try #require(jpeg.pixel(x: 0, y: 0))
        #expect(!jpeg.hasAlpha && corner.red > 200 && corner.green < 60)
    }

    @Test func lowerQualityGivesSmallerJPEG() throws {
        let image = try #require(Image(data: try TestImages.data("photos/astronaut.png")))
        var options = ImageCoderOptions()
        options.encodeCompressionQuality = 0.1
        let low = try #require(image.encodedData(format: .jpeg, options: options))
        options.encodeCompressionQuality = 0.9
        let high = try #require(image.encodedData(format: .jpeg, options: options))
        #expect(low.count < high.count)
    }

    @Test func maxFileSizeIsRespected() throws {
        let image = try #require(Image(data: try TestImages.data("photos/astronaut.png")))
        var options = ImageCoderOptions()
        options.encodeMaxFileSize = 20_000
        let fitted = try #require(image.encodedData(format: .jpeg, options: options))
        #expect(fitted.count <= 20_000 && fitted.count > 5_000)
        options.encodeMaxFileSize = 10
        let smallest = try #require(image.encodedData(format: .jpeg, options: options))
        options.encodeMaxFileSize = 0
        options.encodeCompressionQuality = 0.01
        let lowestQuality = try #require(image.encodedData(format: .jpeg, options: options))
        #expect(smallest.count <= lowestQuality.count)
    }

    @Test func maxPixelSizeScalesDown() throws {
        let image = try #require(Image(data: try TestImages.data("photos/rocket.jpg")))
        var options = ImageCoderOptions()
        options.encodeMaxPixelSize = CGSize(width: 100, height: 100)
        let decoded = try TestImages.decoded(try #require(image.encodedData(format: .png, options: options)))
        #expect(decoded.pixelWidth == 100 && abs(decoded.pixelHeight - 67) <= 1)
    }

    @Test func lazyThumbnailEncodesWithoutDecodingFirst() throws {
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = true
        options.decodeThumbnailPixelSize = CGSize(width: 300, height: 200)
        let image = try ImageCodersManager.shared.decode(try TestImages.data("sdwebimage/TestImageLarge.jpg"), options: options)
        let data = try #require(image.encodedData(format: .jpeg))
        #expect(!image.isDecoded)
        let decoded = try #require(Image(data: data))
        #expect(decoded.pixelWidth == 300 && abs(decoded.pixelHeight - 197) <= 1)
    }

    @Test func imageFromPixelsEncodes() throws {
        let pixels = [UInt8](repeating: 0x80, count: 4 * 4 * 4)
        let image = try #require(Image(rgba8Pixels: pixels, width: 4, height: 4))
        let decoded = try TestImages.decoded(try #require(image.encodedData(format: .png)))
        #expect(decoded.pixel(x: 3, y: 3) == RGBA8(red: 0x80, green: 0x80, blue: 0x80, alpha: 0x80))
        #expect(Image(rgba8Pixels: pixels, width: 5, height: 4) == nil)
    }
}
