import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite(.offThePool) struct ThumbnailTests {
    static func decode(_ file: String, _ configure: (inout ImageCoderOptions) -> Void) throws -> Image {
        var options = ImageCoderOptions()
        configure(&options)
        return try ImageCodersManager.shared.decode(try TestImages.data(file), options: options)
    }

    @Test(arguments: ["photos/rocket.jpg", "sdwebimage/TestImageLarge.jpg", "photos/astronaut.png", "sdwebimage/TestImageStatic.webp", "sdwebimage/TestImage.heic", "sdwebimage/TestImage.svg"])
    func aspectFitIsWithinOnePixelOfTheExactRatio(file: String) throws {
        let full = try Self.decode(file) { _ in }
        let thumbnail = try Self.decode(file) { $0.decodeThumbnailPixelSize = CGSize(width: 100, height: 100) }
        #expect(max(thumbnail.pixelWidth, thumbnail.pixelHeight) == 100)
        let exactHeight = Double(full.pixelHeight) * Double(thumbnail.pixelWidth) / Double(full.pixelWidth)
        #expect(abs(Double(thumbnail.pixelHeight) - exactHeight) <= 1)
    }

    @Test func neverUpscales() throws {
        let image = try Self.decode("sdwebimage/TestImage.jpg") { $0.decodeThumbnailPixelSize = CGSize(width: 800, height: 600) }
        #expect(image.pixelWidth == 80 && image.pixelHeight == 60)
        let stretched = try Self.decode("sdwebimage/TestImage.jpg") {
            $0.decodeThumbnailPixelSize = CGSize(width: 800, height: 600)
            $0.decodePreserveAspectRatio = false
        }
        #expect(stretched.pixelWidth == 80 && stretched.pixelHeight == 60)
    }

    @Test func stretchedThumbnailHasExactlyTheAskedSize() throws {
        let image = try Self.decode("photos/rocket.jpg") {
            $0.decodeThumbnailPixelSize = CGSize(width: 200, height: 200)
            $0.decodePreserveAspectRatio = false
        }
        #expect(image.pixelWidth == 200 && image.pixelHeight == 200)
    }

    @Test func thumbnailOfARotatedPhotoIsUpright() throws {
        let image = try Self.decode("exif-orientation/Landscape_8.jpg") { $0.decodeThumbnailPixelSize = CGSize(width: 300, height: 300) }
        #expect(image.pixelWidth == 300 && image.pixelHeight == 200)
    }

    @Test func scaleDownLimitKeepsTheBitmapUnderTheByteLimit() throws {
        let limit = 4 * 1024 * 1024
        let image = try Self.decode("sdwebimage/TestImageLarge.jpg") { $0.decodeScaleDownLimitBytes = limit }
        #expect(image.memoryCost <= limit && image.pixelWidth > 1000)
        let ratio = Double(image.pixelWidth) / Double(image.pixelHeight)
        #expect(abs(ratio - 5250.0 / 3450.0) < 0.01)
    }

    @Test func animatedThumbnailShrinksEveryFrame() throws {
        let image = try Self.decode("sdwebimage/TestImageAnimated.webp") { $0.decodeThumbnailPixelSize = CGSize(width: 99, height: 105) }
        #expect(image.pixelWidth == 99 && image.frameCount == 8)
        #expect(image.frame(at: 5)?.pixelWidth == 99)
    }
}
