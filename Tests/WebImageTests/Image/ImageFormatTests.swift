import Foundation
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite(.offThePool) struct ImageFormatTests {
    static let expected: [(String, ImageFormat)] = [
        ("sdwebimage/TestImage.jpg", .jpeg), ("sdwebimage/TestImage.png", .png), ("sdwebimage/TestImage.gif", .gif),
        ("sdwebimage/TestImageStatic.webp", .webP), ("sdwebimage/TestImageAnimated.webp", .webP),
        ("sdwebimage/TestImage.heic", .heic), ("sdwebimage/TestImage.heif", .heif), ("sdwebimage/TestImage.pdf", .pdf),
        ("sdwebimage/TestImage.svg", .svg), ("sdwebimage/TestImageAnimated.apng", .png),
        ("libjpeg-turbo/shira_bird8.bmp", .bmp), ("libjpeg-turbo/testimgari.jpg", .jpeg), ("webp/lossless1.webp", .webP),
        ("photos/no_time_for_that_tiny.gif", .gif), ("pngsuite/basn0g01.png", .png),
    ]

    @Test(arguments: expected)
    func sniffsEachFormatFromItsBytes(file: String, format: ImageFormat) throws {
        #expect(ImageFormat(sniffing: try TestImages.data(file)) == format)
    }

    @Test func sniffsEveryTestFileAsItsExtensionSays() throws {
        for folder in ["sdwebimage", "photos", "webp", "libjpeg-turbo", "exif-orientation", "pngsuite"] {
            for file in try TestImages.files(in: folder) {
                let byExtension = ImageFormat(fileExtension: URL(fileURLWithPath: file).pathExtension)
                let sniffed = ImageFormat(sniffing: try TestImages.data(file))
                // An .apng is a PNG; a .heif may be HEIC-branded but here it is generic HEIF.
                #expect(sniffed == byExtension, "\(file)")
            }
        }
    }

    @Test func sniffsEncodedAVIFAndJXL() throws {
        let image = try #require(Image(data: try TestImages.data("photos/rocket.jpg")))
        #expect(ImageFormat(sniffing: try #require(image.encodedData(format: .avif))) == .avif)
        #expect(ImageFormat(sniffing: try #require(image.encodedData(format: .jxl))) == .jxl)
        #expect(ImageFormat(sniffing: try #require(image.encodedData(format: .tiff))) == .tiff)
    }

    @Test(arguments: [Data(), Data([0xFF, 0xD8]), Data([0x47, 0x49, 0x46])])
    func shortDataIsUndefined(data: Data) {
        #expect(ImageFormat(sniffing: data) == .undefined)
    }

    @Test func randomBytesAreUndefined() {
        var generator = SeededGenerator(seed: 0x5EED_F0_12A7)
        for _ in 0..<200 {
            var bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[0] = UInt8.random(in: 0x00...0x20, using: &generator)  // below every magic number but the JXL box, which needs 12 exact bytes
            #expect(ImageFormat(sniffing: Data(bytes)) == .undefined)
        }
    }

    @Test func mimeTypesAndExtensionsRoundTrip() {
        for format in ImageFormat.allKnown {
            #expect(ImageFormat(mimeType: format.mimeType) == format)
            #expect(ImageFormat(fileExtension: format.fileExtension) == format)
        }
        #expect(ImageFormat(mimeType: "image/jpeg; charset=binary") == .jpeg)
        #expect(ImageFormat(fileExtension: ".JPEG") == .jpeg)
        #expect(ImageFormat(mimeType: "text/html") == .undefined)
        #expect(ImageFormat.undefined.mimeType == "application/octet-stream")
        #expect(ImageFormat.webP.rawValue == 4 && ImageFormat.jxl.rawValue == 12)
    }
}
