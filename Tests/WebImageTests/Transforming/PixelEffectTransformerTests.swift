import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestSupport

/// Flatten, sharpen, pixelate and trim against libvips' own operations on the same pixels.
@Suite(.offThePool) struct PixelEffectTransformerTests {
    static func pixels(_ file: String) throws -> VipsImageRef {
        try GravityTransformerTests.pixels(file)
    }

    @Test(arguments: [false, true])
    func flattenBlendsAlphaOntoTheColourAsLibvipsDoes(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.alphaImage, lazy: lazy)
        let flat = try TransformInput.transform(image, FlatteningTransformer(background: RGBA8(red: 0, green: 128, blue: 255)))
        #expect(!flat.hasAlpha && flat.pixelWidth == 300)
        let reference = try Self.pixels(TransformInput.alphaImage).flattened(red: 0, green: 128, blue: 255)
        #expect(try GravityTransformerTests.difference(flat, reference) == 0)
        #expect(flat.pixel(x: 0, y: 0) == RGBA8(red: 0, green: 128, blue: 255))
        // Nothing to flatten: the same image.
        let photo = try TransformInput.image(TransformInput.photo, lazy: lazy)
        #expect(FlatteningTransformer(background: .black).transformedImage(with: photo, forKey: "") === photo)
    }

    @Test(arguments: [false, true])
    func sharpenIsLibvipsSharpen(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let sharp = try TransformInput.transform(image, SharpeningTransformer(sigma: 1.5))
        let reference = try Self.pixels(TransformInput.photo).call("sharpen", "sigma=1.5")
        #expect(try GravityTransformerTests.difference(sharp, reference) == 0)
        // It did change the image, and added detail.
        #expect(try TransformInput.largestDifference(sharp, image) > 20)
        #expect(try TransformInput.lumaVariance(sharp) > TransformInput.lumaVariance(image))
        #expect(SharpeningTransformer(sigma: 0).transformedImage(with: image, forKey: "") === image)
    }

    @Test(arguments: [false, true])
    func pixelateMakesBlocksOfTheirMean(lazy: Bool) throws {
        let image = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let blocks = try TransformInput.transform(image, PixelatingTransformer(blockSize: 16))
        #expect(blocks.pixelWidth == 640 && blocks.pixelHeight == 427)
        // imgproxy's recipe in libvips: the last row of blocks is mirrored past the edge.
        let reference = try Self.pixels(TransformInput.photo)
            .call("embed", "x=0,y=0,width=640,height=432,extend=mirror")
            .call("shrink", "hshrink=16,vshrink=16").call("zoom", input: "input", "xfac=16,yfac=16")
            .extractingArea(x: 0, y: 0, width: 640, height: 427)
        #expect(try GravityTransformerTests.difference(blocks, reference) == 0)
        // Every block is one colour.
        for (x, y) in [(0, 0), (17, 33), (630, 420)] {
            let origin = (x / 16 * 16, y / 16 * 16)
            #expect(blocks.pixel(x: x, y: y) == blocks.pixel(x: origin.0, y: origin.1))
        }
    }

    @Test(arguments: [false, true])
    func trimCutsABorderOfOneColourBack(lazy: Bool) throws {
        let red = RGBA8(red: 200, green: 20, blue: 20)
        let framed = try TransformInput.transform(
            try TransformInput.image(TransformInput.photo, lazy: lazy), PaddingTransformer(top: 10, right: 30, bottom: 20, left: 40, background: red)
        )
        let trimmed = try TransformInput.transform(framed, TrimmingTransformer())
        #expect(trimmed.pixelWidth == 640 && trimmed.pixelHeight == 427)
        #expect(try TransformInput.largestDifference(trimmed, try TransformInput.image(TransformInput.photo)) == 0)
        // libvips' find_trim gives the same box on the framed pixels.
        let box = try Self.pixels(TransformInput.photo)
            .call("embed", "x=40,y=10,width=710,height=457,extend=background,background=200 20 20")
            .trimArea(threshold: 10, background: [200, 20, 20])
        #expect(box.x == 40 && box.y == 10 && box.width == 640 && box.height == 427)
        // Equal sides: the smaller cut on both.
        let even = try TransformInput.transform(framed, TrimmingTransformer(color: red, equalHorizontal: true, equalVertical: true))
        #expect(even.pixelWidth == 650 && even.pixelHeight == 437)
        // A colour found nowhere at the edges: nothing to cut.
        let untouched = try TransformInput.transform(framed, TrimmingTransformer(color: RGBA8(red: 0, green: 255, blue: 0)))
        #expect(untouched.pixelWidth == 710 && untouched.pixelHeight == 457)
    }

    @Test func transparentBordersAreTrimmed() throws {
        let image = try TransformInput.image(TransformInput.alphaImage)
        let trimmed = try TransformInput.transform(image, TrimmingTransformer())
        #expect(trimmed.pixelWidth < 300 && trimmed.pixelHeight < 300)
        let box = try Self.pixels(TransformInput.alphaImage).flattened(red: 255, green: 0, blue: 255)
            .trimArea(threshold: 10, background: [255, 0, 255])
        #expect(trimmed.pixelWidth == box.width && trimmed.pixelHeight == box.height)
    }

    @Test func keysNameEveryParameter() {
        let keys = [
            FlatteningTransformer(background: .white).transformerKey, FlatteningTransformer(background: .black).transformerKey,
            SharpeningTransformer(sigma: 1).transformerKey, SharpeningTransformer(sigma: 2).transformerKey,
            PixelatingTransformer(blockSize: 8).transformerKey, PixelatingTransformer(blockSize: 9).transformerKey,
            TrimmingTransformer().transformerKey, TrimmingTransformer(color: .white).transformerKey,
            TrimmingTransformer(equalHorizontal: true).transformerKey, TrimmingTransformer(equalVertical: true).transformerKey,
        ]
        #expect(Set(keys).count == keys.count)
        #expect(keys[0] == "FlatteningTransformer(#ffffffff)")
        #expect(keys[6] == "TrimmingTransformer(10.000000,(null),0,0)")
    }
}
