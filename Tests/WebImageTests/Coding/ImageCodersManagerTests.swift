import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// A decode-only coder that claims PNG and answers with a fixed 1x1 image, to see who is asked.
private struct MarkerPNGCoder: ThrowingImageCoder {
    func canDecode(from data: Data) -> Bool { ImageFormat(sniffing: data) == .png }
    func canEncode(to format: ImageFormat) -> Bool { false }

    func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        guard let image = Image(rgba8Pixels: [1, 2, 3, 255], width: 1, height: 1) else { throw .emptyData }
        return image
    }
}

@Suite(.offThePool) struct ImageCodersManagerTests {
    @Test func theSharedManagerHasProgressiveThenLibvipsThenTurboJPEGThenLibPNGThenAPNG() {
        let types = ImageCodersManager.shared.coders.map { String(describing: type(of: $0)) }
        #expect(types == ["ProgressiveVipsCoder", "VipsImageCoder", "TurboJPEGCoder", "LibPNGCoder", "APNGCoder"])
    }

    /// The loaders pick the last coder that decodes a prefix incrementally (SDWebImage's rule);
    /// the shared set must have one for JPEG, PNG and GIF.
    @Test func theSharedManagerDecodesJPEGPNGAndGIFIncrementally() throws {
        for name in ["photos/rocket.jpg", "sdwebimage/TestImage.png", "sdwebimage/TestImage.gif"] {
            let prefix = try TestImages.data(name).prefix(200)
            let progressive = ImageCodersManager.shared.coders.reversed()
                .compactMap { $0 as? any ProgressiveImageCoder }
                .first { $0.canIncrementalDecode(from: prefix) }
            #expect(progressive != nil, "\(name)")
        }
    }

    @Test func theCoderAddedLastIsAskedFirstAndCanBeRemoved() throws {
        let png = try TestImages.data("sdwebimage/TestImage.png")
        let manager = ImageCodersManager()
        #expect(try manager.decode(png, options: ImageCoderOptions()).pixelWidth == 300)
        manager.addCoder(MarkerPNGCoder())
        #expect(try manager.decode(png, options: ImageCoderOptions()).pixelWidth == 1)
        // JPEG is not its format: the coders below still answer.
        #expect(try manager.decode(try TestImages.data("photos/rocket.jpg"), options: ImageCoderOptions()).pixelWidth == 640)
        manager.removeCoder(MarkerPNGCoder())
        #expect(try manager.decode(png, options: ImageCoderOptions()).pixelWidth == 300)
    }

    @Test func aDecodeOnlyCoderRefusesToEncodeInsteadOfLooping() throws {
        let coder = MarkerPNGCoder()
        let image = try coder.decode(try TestImages.data("sdwebimage/TestImage.png"), options: ImageCoderOptions())
        #expect(throws: ImageCodingError.unsupportedFormat(.png)) { try coder.encode(image, format: .png, options: ImageCoderOptions()) }
        #expect(coder.encodedData(with: image, format: .png, options: ImageCoderOptions()) == nil)
        #expect(coder.decodedImage(with: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), options: ImageCoderOptions()) != nil)
        // Only its own formats reach it through a manager.
        let manager = ImageCodersManager(coders: [coder])
        #expect(throws: ImageCodingError.unsupportedFormat(.jpeg)) {
            try manager.decode(try TestImages.data("photos/rocket.jpg"), options: ImageCoderOptions())
        }
        #expect(throws: ImageCodingError.unsupportedFormat(.png)) { try manager.encode(image, format: .png, options: ImageCoderOptions()) }
    }

    @Test func encodingToUndefinedPicksPNGForAlphaJPEGForOpaqueAndGIFForAnimations() throws {
        let manager = ImageCodersManager.shared
        let transparent = try TestImages.decoded(try TestImages.data("sdwebimage/TestImage.png"))
        let opaque = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
        let animated = try TestImages.decoded(try TestImages.data("sdwebimage/TestImageAnimated.webp"))
        #expect(ImageFormat(sniffing: try manager.encode(transparent, format: .undefined, options: ImageCoderOptions())) == .png)
        #expect(ImageFormat(sniffing: try manager.encode(opaque, format: .undefined, options: ImageCoderOptions())) == .jpeg)
        #expect(ImageFormat(sniffing: try manager.encode(animated, format: .undefined, options: ImageCoderOptions())) == .gif)
    }

    @Test func bytesNoCoderKnowsAreAnUnknownFormat() {
        #expect(!ImageCodersManager.shared.canDecode(from: Data("plain text, not an image".utf8)))
        #expect(throws: ImageCodingError.unknownFormat) {
            try ImageCodersManager.shared.decode(Data("plain text, not an image".utf8), options: ImageCoderOptions())
        }
    }
}
