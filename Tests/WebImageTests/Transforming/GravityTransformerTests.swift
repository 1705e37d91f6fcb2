import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestSupport

/// The gravity transformers (crop by gravity, smart crop, extend, padding) against libvips'
/// own operations on the same pixels, on decoded and lazy images.
@Suite(.offThePool) struct GravityTransformerTests {
    /// `file`'s pixels as the library decodes them, as a libvips image (without an alpha band
    /// when opaque): the reference every result is compared with.
    static func pixels(_ file: String) throws -> VipsImageRef {
        let image = try TransformInput.image(file)
        let pixels = try VipsImageRef.wrapping(try image.renderedPixels())
        return image.hasAlpha ? pixels : try pixels.alphaBand(adding: false)
    }

    static func photo() throws -> VipsImageRef {
        try pixels(TransformInput.photo)
    }

    /// The largest difference of one RGBA sample between `image` and libvips' `reference`.
    static func difference(_ image: WebImage.Image, _ reference: VipsImageRef) throws -> Int {
        let expected = try reference.renderRGBA()
        try #require(image.pixelWidth == expected.width && image.pixelHeight == expected.height)
        return try image.withUnsafeRGBA8Bytes { ours in
            expected.withUnsafeBytes { theirs in
                SampleDifference(ours, bands: 4, theirs, bands: expected.bands, pixels: expected.width * expected.height, channels: 4).largest
            }
        }
    }

    @Test(arguments: [false, true])
    func gravityPlacesTheCutAsImgproxyDoes(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let size = CGSize(width: 200, height: 100)
        // (gravity, the top-left corner imgproxy's calcPosition gives in a 640x427 image)
        let cases: [(ImageGravity, Int, Int)] = [
            (.center, 220, 164),
            (.anchor(.north), 220, 0),
            (.anchor(.southEast), 440, 327),
            (.anchor(.southEast, x: .points(10), y: .points(20)), 430, 307),
            (.anchor(.west, x: .fraction(0.25), y: .points(-5)), 160, 159),
            (.anchor(.east, x: .points(1000)), 0, 164),
            (.focusPoint(x: 0.9, y: 0.1), 440, 0),
            (.focusPoint(x: 0.5, y: 0.5), 220, 164),
        ]
        for (gravity, x, y) in cases {
            let cut = try TransformInput.transform(image, GravityCroppingTransformer(size: size, gravity: gravity))
            #expect(try Self.difference(cut, try Self.photo().extractingArea(x: x, y: y, width: 200, height: 100)) == 0, "\(gravity)")
        }
        // A side of 0 or past the image keeps it; both keep the image as it is.
        let column = try TransformInput.transform(image, GravityCroppingTransformer(size: CGSize(width: 100, height: 0)))
        #expect(column.pixelWidth == 100 && column.pixelHeight == 427)
        let whole = try TransformInput.transform(image, GravityCroppingTransformer(size: CGSize(width: 1000, height: 1000)))
        #expect(whole.pixelWidth == 640 && whole.pixelHeight == 427)
    }

    @Test(arguments: [false, true])
    func smartGravityCutsWhereLibvipsSmartcropDoes(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let cut = try TransformInput.transform(image, GravityCroppingTransformer(size: CGSize(width: 200, height: 200), gravity: .smart))
        let reference = try Self.photo().call("smartcrop", input: "input", "width=200,height=200,interesting=attention")
        #expect(try Self.difference(cut, reference) == 0)
        // Not the centre: the gravity did decide.
        let centre = try TransformInput.transform(image, GravityCroppingTransformer(size: CGSize(width: 200, height: 200)))
        #expect(try TransformInput.largestDifference(cut, centre) > 50)
        let origin = try Self.photo().smartCropOrigin(width: 200, height: 200, interesting: "attention")
        #expect(try Self.difference(cut, try Self.photo().extractingArea(x: origin.x, y: origin.y, width: 200, height: 200)) == 0)
    }

    @Test func smartGravityCutsEveryFrameWhereTheFirstFrameDecides() throws {
        let animated = try TestImages.decoded(try TestImages.data("sdwebimage/TestImageAnimated.webp"))
        let size = CGSize(width: 300, height: 300)
        let cut = try TransformInput.transform(animated, GravityCroppingTransformer(size: size, gravity: .smart))
        #expect(cut.frameCount == animated.frameCount && cut.pixelWidth == 300 && cut.pixelHeight == 300)
        let firstFrame = try #require(animated.frame(at: 0))
        var first = try VipsImageRef.wrapping(try firstFrame.renderedPixels())
        if !firstFrame.hasAlpha { first = try first.alphaBand(adding: false) }
        let origin = try first.smartCropOrigin(width: 300, height: 300, interesting: "attention")
        let rect = CGRect(x: origin.x, y: origin.y, width: 300, height: 300)
        for index in [0, animated.frameCount - 1] {
            let expected = try TransformInput.transform(try #require(animated.frame(at: index)), CroppingTransformer(rect: rect))
            #expect(try TransformInput.largestDifference(try #require(cut.frame(at: index)), expected) == 0)
        }
    }

    @Test(arguments: [false, true])
    func extendPlacesTheImageOnACanvasAsLibvipsEmbedDoes(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let transparent = try TransformInput.transform(image, ExtendingTransformer(size: CGSize(width: 800, height: 500)))
        #expect(transparent.hasAlpha && transparent.pixelWidth == 800 && transparent.pixelHeight == 500)
        let expected = try Self.photo().addingOpaqueAlpha()
            .call("embed", "x=80,y=37,width=800,height=500,extend=background,background=0 0 0 0")
        #expect(try Self.difference(transparent, expected) == 0)
        // An opaque colour keeps an opaque image opaque; the gravity moves it.
        let red = RGBA8(red: 255, green: 0, blue: 0)
        let corner = try TransformInput.transform(image, ExtendingTransformer(size: CGSize(width: 700, height: 0), gravity: .anchor(.east), background: red))
        #expect(!corner.hasAlpha && corner.pixelWidth == 700 && corner.pixelHeight == 427)
        #expect(corner.pixel(x: 0, y: 0) == red && corner.pixel(x: 59, y: 426) == red)
        #expect(try Self.difference(corner, try Self.photo().call("embed", "x=60,y=0,width=700,height=427,extend=background,background=255 0 0")) == 0)
        // A canvas no larger than the image leaves it as it is.
        let same = try TransformInput.transform(image, ExtendingTransformer(size: CGSize(width: 100, height: 100)))
        #expect(same.pixelWidth == 640 && same.pixelHeight == 427 && !same.hasAlpha)
    }

    @Test(arguments: [false, true])
    func paddingAddsMarginsInCSSOrder(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.alphaImage, lazy: lazy)
        let padded = try TransformInput.transform(image, PaddingTransformer(top: 10, right: 20, bottom: 30, left: 40, background: .white))
        #expect(padded.pixelWidth == 360 && padded.pixelHeight == 340)
        let reference = try Self.pixels(TransformInput.alphaImage)
            .call("embed", "x=40,y=10,width=360,height=340,extend=background,background=255 255 255 255")
        #expect(try Self.difference(padded, reference) == 0)
        let none = try TransformInput.transform(image, PaddingTransformer(top: 0, right: 0, bottom: 0, left: -5))
        #expect(none.pixelWidth == 300 && none.pixelHeight == 300)
    }

    /// TurboJPEG's lazy images build from RGBA bitmaps: transformed, they stay opaque (and
    /// give the pixels the decoded image gives), whatever the step.
    @Test func opaqueLazyImagesFromRGBABitmapsStayOpaque() throws {
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = true
        let lazy = try TurboJPEGCoder.shared.decode(try TestImages.data(TransformInput.photo), options: options)
        let decoded = try TurboJPEGCoder.shared.decode(try TestImages.data(TransformInput.photo), options: ImageCoderOptions())
        #expect(!lazy.isDecoded && !lazy.hasAlpha)
        let transformers: [any ImageTransformer] = [
            GravityCroppingTransformer(size: CGSize(width: 300, height: 200)), BlurTransformer(radius: 2),
            SharpeningTransformer(sigma: 1), FlatteningTransformer(background: .white),
        ]
        for transformer in transformers {
            let fromLazy = try TransformInput.transform(lazy, transformer)
            let fromDecoded = try TransformInput.transform(decoded, transformer)
            #expect(!fromLazy.hasAlpha, "\(transformer.transformerKey)")
            #expect(try TransformInput.largestDifference(fromLazy, fromDecoded) <= 1, "\(transformer.transformerKey)")
        }
        // A step that does add alpha still says so.
        #expect(try TransformInput.transform(lazy, PaddingTransformer(top: 1, right: 1, bottom: 1, left: 1)).hasAlpha)
    }

    @Test func keysNameEveryParameter() {
        let keys = [
            GravityCroppingTransformer(size: CGSize(width: 3, height: 4)).transformerKey,
            GravityCroppingTransformer(size: CGSize(width: 3, height: 4), gravity: .smart).transformerKey,
            GravityCroppingTransformer(size: CGSize(width: 3, height: 4), gravity: .anchor(.north, x: .points(1))).transformerKey,
            GravityCroppingTransformer(size: CGSize(width: 3, height: 4), gravity: .anchor(.north, x: .fraction(1))).transformerKey,
            GravityCroppingTransformer(size: CGSize(width: 3, height: 4), gravity: .focusPoint(x: 0.5, y: 0.25)).transformerKey,
            ExtendingTransformer(size: CGSize(width: 3, height: 4)).transformerKey,
            ExtendingTransformer(size: CGSize(width: 3, height: 4), background: .white).transformerKey,
            PaddingTransformer(top: 1, right: 2, bottom: 3, left: 4).transformerKey,
            PaddingTransformer(top: 1, right: 2, bottom: 4, left: 3).transformerKey,
        ]
        #expect(Set(keys).count == keys.count)
        #expect(keys[0] == "GravityCroppingTransformer({3.000000,4.000000},center,p0.000000,p0.000000)")
        #expect(keys[4] == "GravityCroppingTransformer({3.000000,4.000000},fp,0.500000,0.250000)")
        #expect(keys[7] == "PaddingTransformer(1.000000,2.000000,3.000000,4.000000,#00000000)")
    }
}
