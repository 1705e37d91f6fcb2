import Foundation
import LibVips
import Testing
import WebImage

/// The 8-bit premultiply and unpremultiply steps (our row kernels, region by region) against
/// libvips' own, which work in floating point, on a real image with alpha.
@Suite struct PremultipliedPixelsTests {
    static func alphaImage() throws -> VipsImageRef {
        try VipsImageRef.load("pngload_buffer", data: try TestImages.data(TransformInput.alphaImage))
    }

    /// The largest difference of one sample between two RGBA renders of one size.
    static func largestDifference(_ first: PixelBuffer, _ second: PixelBuffer) throws -> Int {
        try #require(first.width == second.width && first.height == second.height && first.bands == second.bands)
        return first.withUnsafeBytes { a in
            second.withUnsafeBytes { b in zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0 }
        }
    }

    @Test func premultiplyingInEightBitsMatchesLibvips() throws {
        let image = try Self.alphaImage()
        let ours = try image.premultipliedEightBit().renderRGBA()
        let theirs = try image.call("premultiply").call("cast", "format=uchar").renderRGBA()
        #expect(try Self.largestDifference(ours, theirs) <= 1)
        // The image has both transparent and half-covered pixels: the colours did change.
        #expect(try Self.largestDifference(ours, try image.renderRGBA()) > 100)
    }

    @Test func unpremultiplyingInEightBitsMatchesLibvips() throws {
        let premultiplied = try Self.alphaImage().premultipliedEightBit()
        let ours = try premultiplied.unpremultipliedEightBit().renderRGBA()
        let theirs = try premultiplied.call("unpremultiply").call("cast", "format=uchar").renderRGBA()
        #expect(try Self.largestDifference(ours, theirs) <= 1)
    }

    @Test func anUnpremultipliedImageGivesBackItsPremultipliedSource() throws {
        let premultiplied = try Self.alphaImage().premultipliedEightBit()
        #expect(try premultiplied.unpremultipliedEightBit().premultipliedEightBit() === premultiplied)
        // An opaque image premultiplied is itself with an opaque alpha band.
        let photo = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data(TransformInput.photo))
        let opaque = try photo.premultipliedEightBit()
        #expect(opaque.bands == 4 && opaque.hasAlpha)
        #expect(try Self.largestDifference(try opaque.renderRGBA(), try photo.renderRGBA()) == 0)
    }
}
