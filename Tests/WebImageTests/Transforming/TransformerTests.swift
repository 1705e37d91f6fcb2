import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// The behaviours issue 12 lists for the transformers, each on a decoded image (pixels) and a
/// lazy one (a libvips pipeline).
@Suite(.offThePool) struct TransformerTests {
    // MARK: Resizing

    @Test(arguments: [false, true])
    func resizeModesGiveTheirSizes(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.alphaImage, lazy: lazy)
        let size = CGSize(width: 100, height: 50)
        let fill = try TransformInput.transform(image, ResizingTransformer(size: size, scaleMode: .fill))
        let fit = try TransformInput.transform(image, ResizingTransformer(size: size, scaleMode: .aspectFit))
        let cover = try TransformInput.transform(image, ResizingTransformer(size: size, scaleMode: .aspectFill))
        #expect(fill.pixelWidth == 100 && fill.pixelHeight == 50)
        #expect(fit.pixelWidth == 50 && fit.pixelHeight == 50)
        #expect(cover.pixelWidth == 100 && cover.pixelHeight == 50)
        // Aspect fill is the 100x100 resize with its centre rows cut out.
        let square = try TransformInput.transform(image, ResizingTransformer(size: CGSize(width: 100, height: 100), scaleMode: .fill))
        let centre = try TransformInput.transform(square, CroppingTransformer(rect: CGRect(x: 0, y: 25, width: 100, height: 50)))
        #expect(try TransformInput.largestDifference(cover, centre) == 0)
        #expect(fill.isDecoded == !lazy && fill.format == .png && fill.hasAlpha)
    }

    @Test func resizeUpscalesAndSizesAreInPoints() throws {
        let image = try TransformInput.image(TransformInput.alphaImage, scale: 2)
        let larger = try TransformInput.transform(image, ResizingTransformer(size: CGSize(width: 400, height: 200), scaleMode: .fill))
        #expect(larger.pixelWidth == 800 && larger.pixelHeight == 400 && larger.scale == 2)
        #expect(ResizingTransformer(size: .zero, scaleMode: .fill).transformedImage(with: image, forKey: "") == nil)
        // Past 100 megapixels a result is refused, on both forms, before any pixel is made.
        let huge = ResizingTransformer(size: CGSize(width: 20_000, height: 20_000), scaleMode: .fill)
        #expect(huge.transformedImage(with: image, forKey: "") == nil)
        #expect(huge.transformedImage(with: try TransformInput.image(TransformInput.alphaImage, lazy: true), forKey: "") == nil)
        #expect(ResizingTransformer(size: CGSize(width: 1e300, height: 1e300), scaleMode: .aspectFit).transformedImage(with: image, forKey: "") == nil)
    }

    // MARK: Cropping

    @Test(arguments: [false, true])
    func cropKeepsTheRectangleClippedToTheImage(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let original = try TransformInput.image(TransformInput.photo)
        let cropped = try TransformInput.transform(image, CroppingTransformer(rect: CGRect(x: 10, y: 10, width: 50, height: 50)))
        #expect(cropped.pixelWidth == 50 && cropped.pixelHeight == 50)
        #expect(cropped.pixel(x: 0, y: 0) == original.pixel(x: 10, y: 10))
        #expect(cropped.pixel(x: 49, y: 49) == original.pixel(x: 59, y: 59))
        let clipped = try TransformInput.transform(image, CroppingTransformer(rect: CGRect(x: 600, y: 400, width: 100, height: 100)))
        #expect(clipped.pixelWidth == 40 && clipped.pixelHeight == 27)
        #expect(clipped.pixel(x: 39, y: 26) == original.pixel(x: 639, y: 426))
        #expect(CroppingTransformer(rect: CGRect(x: 700, y: 10, width: 50, height: 50)).transformedImage(with: image, forKey: "") == nil)
        #expect(CroppingTransformer(rect: CGRect(x: 10, y: 10, width: 0, height: 50)).transformedImage(with: image, forKey: "") == nil)
    }

    // MARK: Round corners

    @Test(arguments: [false, true])
    func roundCornersMakeTheCornersTransparent(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let original = try TransformInput.image(TransformInput.photo)
        let (right, bottom) = (image.pixelWidth - 1, image.pixelHeight - 1)
        let rounded = try TransformInput.transform(image, RoundCornerTransformer(radius: 50))
        #expect(rounded.pixelWidth == 640 && rounded.pixelHeight == 427 && rounded.hasAlpha)
        for (x, y) in [(0, 0), (right, 0), (0, bottom), (right, bottom)] {
            #expect(rounded.pixel(x: x, y: y)?.alpha == 0)
        }
        #expect(rounded.pixel(x: 320, y: 213) == original.pixel(x: 320, y: 213))
        // Just inside the arc the image shows; on the straight edges too.
        #expect(rounded.pixel(x: 20, y: 20)?.alpha == 255 && rounded.pixel(x: 320, y: 0)?.alpha == 255)

        let topLeft = try TransformInput.transform(image, RoundCornerTransformer(radius: 50, corners: .topLeft))
        #expect(topLeft.pixel(x: 0, y: 0)?.alpha == 0)
        #expect(topLeft.pixel(x: right, y: 0) == original.pixel(x: right, y: 0))
        #expect(topLeft.pixel(x: right, y: bottom) == original.pixel(x: right, y: bottom))

        let red = RGBA8(red: 255, green: 0, blue: 0)
        let bordered = try TransformInput.transform(image, RoundCornerTransformer(radius: 50, borderWidth: 5, borderColor: red))
        #expect(bordered.pixel(x: 320, y: 0) == red && bordered.pixel(x: 320, y: 4) == red)
        #expect(bordered.pixel(x: 0, y: 213) == red && bordered.pixel(x: right, y: 213) == red)
        #expect(bordered.pixel(x: 320, y: 6) == original.pixel(x: 320, y: 6))
        #expect(bordered.pixel(x: 0, y: 0)?.alpha == 0)
    }

    // MARK: Flipping and rotation

    @Test(arguments: [false, true])
    func flipMirrorsThePixels(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let original = try TransformInput.image(TransformInput.photo)
        let (right, bottom) = (image.pixelWidth - 1, image.pixelHeight - 1)
        let horizontal = try TransformInput.transform(image, FlippingTransformer(horizontal: true, vertical: false))
        for y in [0, 100, bottom] {
            #expect(horizontal.pixel(x: 0, y: y) == original.pixel(x: right, y: y))
        }
        let vertical = try TransformInput.transform(image, FlippingTransformer(horizontal: false, vertical: true))
        #expect(vertical.pixel(x: 10, y: 0) == original.pixel(x: 10, y: bottom))
        let both = try TransformInput.transform(image, FlippingTransformer(horizontal: true, vertical: true))
        #expect(both.pixel(x: 0, y: 0) == original.pixel(x: right, y: bottom))
        #expect(!horizontal.hasAlpha)
    }

    @Test(arguments: [false, true])
    func rotationByAQuarterTurnWithFitSizeSwapsTheSides(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let original = try TransformInput.image(TransformInput.photo)
        let turned = try TransformInput.transform(image, RotationTransformer(angle: .pi / 2, fitSize: true))
        #expect(turned.pixelWidth == 427 && turned.pixelHeight == 640)
        // Counter-clockwise: the top-right corner goes to the top-left.
        #expect(turned.pixel(x: 0, y: 0) == original.pixel(x: 639, y: 0))
        #expect(turned.pixel(x: 426, y: 639) == original.pixel(x: 0, y: 426))
    }

    /// With alpha, the rotation interpolates premultiplied in 8 bits (as Core Graphics,
    /// SDWebImage's rotation): against the same rotation in floating point, rounded to 8 bits at
    /// the end, alpha is within 1 level and, where alpha is at least 64, every colour within 4.
    @Test(arguments: [false, true])
    func rotationWithAlphaStaysCloseToAFloatingPointRotation(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.alphaImage, lazy: lazy)
        let rotated = try TransformInput.transform(image, RotationTransformer(angle: .pi / 6, fitSize: true))
        let reference = try VipsImageRef.load("pngload_buffer", data: try TestImages.data(TransformInput.alphaImage))
            .call("premultiply").call("rotate", "angle=-30,background=0 0 0 0").call("unpremultiply")
            .call("round", "round=rint").call("cast", "format=uchar").renderRGBA()
        try #require(rotated.pixelWidth == reference.width && rotated.pixelHeight == reference.height)
        let expected = reference.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count, by: 4).map { RGBA8(red: bytes[$0], green: bytes[$0 + 1], blue: bytes[$0 + 2], alpha: bytes[$0 + 3]) }
        }
        var (alphaError, colourError) = (0, 0)
        for (ours, float) in zip(try TransformInput.pixels(rotated), expected) {
            alphaError = max(alphaError, abs(Int(ours.alpha) - Int(float.alpha)))
            guard float.alpha >= 64 else { continue }
            colourError = max(colourError, abs(Int(ours.red) - Int(float.red)), abs(Int(ours.green) - Int(float.green)), abs(Int(ours.blue) - Int(float.blue)))
        }
        #expect(alphaError <= 1 && colourError <= 4, "alpha off by \(alphaError), colour by \(colourError)")
    }

    @Test(arguments: [false, true])
    func rotationWithoutFitSizeKeepsTheSizeAndClearsTheCorners(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let rotated = try TransformInput.transform(image, RotationTransformer(angle: .pi / 4, fitSize: false))
        #expect(rotated.pixelWidth == 640 && rotated.pixelHeight == 427 && rotated.hasAlpha)
        for (x, y) in [(0, 0), (639, 0), (0, 426), (639, 426)] {
            #expect(rotated.pixel(x: x, y: y)?.alpha == 0)
        }
        #expect(rotated.pixel(x: 320, y: 213)?.alpha == 255)
    }

    /// SDWebImage's XFORM-04: rotating TestImage.png by pi/4 counter-clockwise with fitSize
    /// gives about 425x425, with (60,175) inside the black band.
    @Test func rotationIsCounterClockwiseAsInSDWebImage() throws {
        let image = try TransformInput.image(TransformInput.alphaImage)
        let rotated = try TransformInput.transform(image, RotationTransformer(angle: .pi / 4, fitSize: true))
        #expect((424...426).contains(rotated.pixelWidth) && (424...426).contains(rotated.pixelHeight))
        let pixel = try #require(rotated.pixel(x: 60, y: 175))
        #expect(pixel.alpha == 255 && pixel.red < 10 && pixel.green < 10 && pixel.blue < 10, "\(pixel)")
    }

    // MARK: Tint and blur

    @Test(arguments: [false, true])
    func tintWithOpaqueRedMakesEveryOpaquePixelRed(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.alphaImage, lazy: lazy)
        let red = RGBA8(red: 255, green: 0, blue: 0)
        let original = try TransformInput.pixels(try TransformInput.image(TransformInput.alphaImage))
        let normal = try TransformInput.pixels(try TransformInput.transform(image, TintTransformer(color: red, blendMode: .normal)))
        #expect(zip(original, normal).allSatisfy { $0.alpha < 255 || $1 == red })
        // The default, source-in, keeps the image's alpha: transparent stays transparent.
        let sourceIn = try TransformInput.pixels(try TransformInput.transform(image, TintTransformer(color: red)))
        #expect(zip(original, sourceIn).allSatisfy { $0.alpha == 255 ? $1 == red : $1.alpha == $0.alpha })
        #expect(original.contains { $0.alpha == 0 })
    }

    @Test(arguments: [false, true])
    func blurLowersThePixelVarianceOfAPhoto(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let blurred = try TransformInput.transform(image, BlurTransformer(radius: 5))
        #expect(blurred.pixelWidth == 640 && blurred.pixelHeight == 427 && !blurred.hasAlpha)
        let before = try TransformInput.lumaVariance(image)
        let after = try TransformInput.lumaVariance(blurred)
        #expect(after < before * 0.9, "variance \(before) -> \(after)")
    }

    /// With alpha, the blur runs premultiplied in 8 bits (as vImage's, SDWebImage's blur):
    /// against the same Gaussian in floating point, rounded to 8 bits at the end, alpha is
    /// within 3 levels and, where alpha is at least 64, every colour within 4.
    @Test(arguments: [false, true])
    func blurWithAlphaStaysCloseToAFloatingPointBlur(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.alphaImage, lazy: lazy)
        let blurred = try TransformInput.pixels(try TransformInput.transform(image, BlurTransformer(radius: 3)))
        let reference = try VipsImageRef.load("pngload_buffer", data: try TestImages.data(TransformInput.alphaImage))
            .call("premultiply").call("gaussblur", "sigma=3").call("unpremultiply").call("round", "round=rint").call("cast", "format=uchar")
            .renderRGBA()
        let expected = reference.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count, by: 4).map { RGBA8(red: bytes[$0], green: bytes[$0 + 1], blue: bytes[$0 + 2], alpha: bytes[$0 + 3]) }
        }
        try #require(blurred.count == expected.count)
        var (alphaError, colourError) = (0, 0)
        for (ours, float) in zip(blurred, expected) {
            alphaError = max(alphaError, abs(Int(ours.alpha) - Int(float.alpha)))
            guard float.alpha >= 64 else { continue }
            colourError = max(colourError, abs(Int(ours.red) - Int(float.red)), abs(Int(ours.green) - Int(float.green)), abs(Int(ours.blue) - Int(float.blue)))
        }
        #expect(alphaError <= 3 && colourError <= 4, "alpha off by \(alphaError), colour by \(colourError)")
        // The blur did blur: the edge between the body and the transparent background softened.
        #expect(zip(blurred, try TransformInput.pixels(image)).contains { abs(Int($0.alpha) - Int($1.alpha)) > 100 })
    }

    // MARK: Filter

    @Test(arguments: [false, true])
    func filterRunsALibvipsOperation(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let original = try TransformInput.image(TransformInput.photo)
        let inverted = try TransformInput.transform(image, FilterTransformer(operation: "invert"))
        let before = try #require(original.pixel(x: 100, y: 100))
        #expect(inverted.pixel(x: 100, y: 100) == RGBA8(red: 255 - before.red, green: 255 - before.green, blue: 255 - before.blue))
        #expect(FilterTransformer(operation: "no_such_operation").transformedImage(with: image, forKey: "") == nil)
        // Operations that read or write files, or run commands, are not filters.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("filter-\(UUID().uuidString).png").path
        for (operation, arguments) in [("pngsave", "filename=\(path)"), ("system", "cmd_format=touch \(path)"), ("pngload", "filename=\(path)")] {
            #expect(FilterTransformer(operation: operation, arguments: arguments).transformedImage(with: image, forKey: "") == nil)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func filterRunsAClosureOnEachFrame() throws {
        let animated = try TestImages.decoded(try TestImages.data("sdwebimage/TestImageAnimated.webp"))
        let filter = FilterTransformer(name: "half") { image in
            ResizingTransformer(size: CGSize(width: 99, height: 105), scaleMode: .fill).transformedImage(with: image, forKey: "")
        }
        let result = try TransformInput.transform(animated, filter)
        #expect(result.frameCount == 8 && result.frame(at: 7)?.pixelWidth == 99 && result.frame(at: 7)?.pixelHeight == 105)
        #expect(filter.transformerKey == "SDImageFilterTransformer(half)")
    }

    // MARK: Both forms of an image

    static let everyTransformer: [any ImageTransformer] = [
        // Upscales: libvips' resize on both forms.
        ResizingTransformer(size: CGSize(width: 700, height: 700), scaleMode: .aspectFill),
        ResizingTransformer(size: CGSize(width: 900, height: 900), scaleMode: .aspectFit),
        // Downscales: our resampler (a box shrink first past 4x), on a decoded image's bitmap
        // and strip by strip in a lazy pipeline.
        ResizingTransformer(size: CGSize(width: 120, height: 90), scaleMode: .fill),
        ResizingTransformer(size: CGSize(width: 120, height: 90), scaleMode: .aspectFit),
        ResizingTransformer(size: CGSize(width: 120, height: 90), scaleMode: .aspectFill),
        ResizingTransformer(size: CGSize(width: 150, height: 150), scaleMode: .fill),
        ResizingTransformer(size: CGSize(width: 33, height: 20), scaleMode: .fill),
        // Wider, lower: libvips' resize on both forms (in floating point).
        ResizingTransformer(size: CGSize(width: 700, height: 200), scaleMode: .fill),
        CroppingTransformer(rect: CGRect(x: 30, y: 40, width: 200, height: 150)),
        RoundCornerTransformer(radius: 40, corners: [.topLeft, .bottomRight], borderWidth: 3, borderColor: .black),
        RoundCornerTransformer(radius: 25.5, corners: [.topRight, .bottomLeft, .bottomRight]),
        RoundCornerTransformer(radius: 1000),
        FlippingTransformer(horizontal: true, vertical: true),
        FlippingTransformer(horizontal: true, vertical: false),
        FlippingTransformer(horizontal: false, vertical: true),
        RotationTransformer(angle: 0.3, fitSize: true),
        TintTransformer(color: RGBA8(red: 0, green: 0, blue: 255, alpha: 128), blendMode: .multiply),
        BlurTransformer(radius: 3),
        FilterTransformer(operation: "sharpen", arguments: "sigma=1.5"),
        FilterTransformer(operation: "invert"),
    ]

    @Test(arguments: [TransformInput.photo, TransformInput.alphaImage], 0..<everyTransformer.count)
    func lazyAndDecodedImagesGiveTheSamePixels(file: String, index: Int) throws {
        let transformer = Self.everyTransformer[index]
        let lazy = try TransformInput.transform(try TransformInput.image(file, lazy: true), transformer)
        let decoded = try TransformInput.transform(try TransformInput.image(file), transformer)
        #expect(!lazy.isDecoded && decoded.isDecoded)
        #expect(lazy.hasAlpha == decoded.hasAlpha && lazy.format == decoded.format)
        let difference = try TransformInput.largestDifference(lazy, decoded)
        #expect(difference <= 2, "\(transformer.transformerKey): \(difference)")
    }

    /// A chain run as one pipeline (the blur taking round corners' premultiplied pixels as
    /// they are) gives the pixels of its steps run one by one with a bitmap in between.
    @Test(arguments: [TransformInput.photo, TransformInput.alphaImage], [true, false])
    func aChainGivesThePixelsOfItsStepsOneByOne(file: String, resizeFirst: Bool) throws {
        let resize = ResizingTransformer(size: CGSize(width: 150, height: 120), scaleMode: .fill)
        let others: [any ImageTransformer] = [RoundCornerTransformer(radius: 20), BlurTransformer(radius: 2)]
        let steps = resizeFirst ? [resize] + others : others + [resize]
        let fused = try TransformInput.transform(try TransformInput.image(file, lazy: true), PipelineTransformer(transformers: steps))
        var stepwise = try TransformInput.image(file)
        for step in steps {
            stepwise = try TransformInput.transform(stepwise, step)
        }
        #expect(!fused.isDecoded && stepwise.isDecoded && fused.hasAlpha && stepwise.hasAlpha)
        #expect(try TransformInput.largestDifference(fused, stepwise) <= 2)
        // The corners are transparent and the blur reached them.
        #expect(fused.pixel(x: 0, y: 0)?.alpha == 0 && stepwise.pixel(x: 0, y: 0)?.alpha == 0)
    }

    @Test func aLazyImageStaysOnePipelineUntilEncoded() throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: true)
        let pipeline = PipelineTransformer(transformers: [
            ResizingTransformer(size: CGSize(width: 300, height: 200), scaleMode: .aspectFill),
            RoundCornerTransformer(radius: 20), BlurTransformer(radius: 1),
        ])
        let result = try TransformInput.transform(image, pipeline)
        #expect(!result.isDecoded && result.pixelWidth == 300 && result.pixelHeight == 200 && result.format == .jpeg)
        let png = try ImageCodersManager.shared.encode(result, format: .png, options: ImageCoderOptions())
        let decoded = try TestImages.decoded(png)
        #expect(decoded.pixelWidth == 300 && decoded.pixelHeight == 200 && decoded.pixel(x: 0, y: 0)?.alpha == 0)
        #expect(!result.isDecoded)
    }

    // MARK: Pipelines and animations

    /// SDWebImage's XFORM-11 (its Core Image filter step left out): the crop sets the size.
    @Test func pipelineRunsItsPartsInOrder() throws {
        let image = try TransformInput.image(TransformInput.alphaImage)
        let result = try TransformInput.transform(image, TransformerKeyTests.sdWebImagePipeline)
        #expect(result.pixelWidth == 50 && result.pixelHeight == 50)
        let failing = PipelineTransformer(transformers: [CroppingTransformer(rect: CGRect(x: 900, y: 0, width: 5, height: 5)), BlurTransformer(radius: 2)])
        #expect(failing.transformedImage(with: image, forKey: "") == nil)
    }

    @Test(arguments: ["sdwebimage/TestImageAnimated.webp", "sdwebimage/TestImageAnimated.apng", "sdwebimage/TestLoopCount.gif"])
    func animatedImagesKeepTheirFramesDurationsAndLoopCount(file: String) throws {
        let animated = try TestImages.decoded(try TestImages.data(file))
        let transformer = PipelineTransformer(transformers: [
            ResizingTransformer(size: CGSize(width: 40, height: 30), scaleMode: .aspectFill), FlippingTransformer(horizontal: true, vertical: false),
        ])
        let result = try TransformInput.transform(animated, transformer)
        #expect(result.frameCount == animated.frameCount && result.loopCount == animated.loopCount && result.isAnimated)
        #expect(result.animatedImageProvider?.animatedImageData == nil)
        for index in 0..<animated.frameCount {
            #expect(result.frameDuration(at: index) == animated.frameDuration(at: index))
            let frame = try #require(result.frame(at: index))
            #expect(frame.pixelWidth == 40 && frame.pixelHeight == 30 && !frame.isAnimated)
        }
        let last = animated.frameCount - 1
        let expected = try TransformInput.transform(try #require(animated.frame(at: last)), transformer)
        #expect(try TransformInput.largestDifference(try #require(result.frame(at: last)), expected) == 0)
        // Encoded, it is still an animation of those frames.
        let webp = try ImageCodersManager.shared.encode(result, format: .webP, options: ImageCoderOptions())
        let reread = try TestImages.decoded(webp)
        #expect(reread.frameCount == animated.frameCount && reread.pixelWidth == 40)
    }

    @Test func scaleAndFormatAreKept() throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: true, scale: 2)
        for transformer in Self.everyTransformer {
            let result = try TransformInput.transform(image, transformer)
            #expect(result.scale == 2 && result.format == .jpeg, "\(transformer.transformerKey)")
        }
    }
}
