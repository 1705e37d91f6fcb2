import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// The 8-bit premultiply and unpremultiply steps (our row kernels, region by region) against
/// libvips' own, which work in floating point, on a real image with alpha.
@Suite(.offThePool) struct PremultipliedPixelsTests {
    static func alphaImage() throws -> VipsImageRef {
        try VipsImageRef.load("pngload_buffer", data: try TestImages.data(TransformInput.alphaImage))
    }

    /// The largest difference of one sample between two RGBA renders of one size.
    static func largestDifference(_ first: PixelBuffer, _ second: PixelBuffer) throws -> Int {
        try #require(first.width == second.width && first.height == second.height && first.bands == second.bands)
        return first.withUnsafeBytes { a in
            second.withUnsafeBytes { b in
                SampleDifference(a, bands: first.bands, b, bands: second.bands, pixels: first.width * first.height, channels: first.bands).largest
            }
        }
    }

    /// libvips' steps in floating point, rounded to 8 bits at the end (its cast alone truncates).
    static func rounded(_ image: VipsImageRef) throws -> PixelBuffer {
        try image.call("round", "round=rint").call("cast", "format=uchar").renderRGBA()
    }

    @Test func premultiplyingInEightBitsMatchesLibvips() throws {
        let image = try Self.alphaImage()
        let ours = try image.premultipliedEightBit().renderRGBA()
        #expect(try Self.largestDifference(ours, try Self.rounded(image.call("premultiply"))) == 0)
        // The image has both transparent and half-covered pixels: the colours did change.
        #expect(try Self.largestDifference(ours, try image.renderRGBA()) > 100)
    }

    @Test func unpremultiplyingInEightBitsMatchesLibvips() throws {
        let premultiplied = try Self.alphaImage().premultipliedEightBit()
        let ours = try premultiplied.unpremultipliedEightBit().renderRGBA()
        // A level apart at most, where the quotient ends in exactly one half (ours rounds it down).
        #expect(try Self.largestDifference(ours, try Self.rounded(premultiplied.call("unpremultiply"))) <= 1)
    }

    @Test func anAlphaBandDroppedAndAddedBackIsTheImageItWasDroppedFrom() throws {
        let photo = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data(TransformInput.photo))
        let rgba = try photo.alphaBand(adding: true)
        let dropped = try rgba.alphaBand(adding: false)
        #expect(dropped.bands == 3 && !dropped.hasAlpha)
        #expect(try dropped.alphaBand(adding: true) === rgba)
        #expect(try dropped.addingOpaqueAlpha() === rgba)
        // Rendered as RGBA it gives that image's pixels: the photo's, opaque.
        #expect(try Self.largestDifference(try dropped.renderRGBA(), try photo.renderRGBA()) == 0)
    }

    /// Round corners make the premultiplied pixels alongside the straight ones, for a blur after
    /// them to take: within a level of premultiplying the straight ones.
    @Test(arguments: [TransformInput.alphaImage, TransformInput.photo])
    func roundCornersKeepTheirPremultipliedPixels(file: String) throws {
        let image = try VipsImageRef.load(file.hasSuffix("png") ? "pngload_buffer" : "jpegload_buffer", data: try TestImages.data(file))
        let straight = try image.withAlpha().roundingCorners(radius: 40, corners: 15)
        let premultiplied = try image.premultipliedEightBit().roundingCorners(radius: 40, corners: 15, premultiplied: true)
        let kept = straight.keeping(premultiplied: premultiplied)
        #expect(try kept.premultipliedEightBit() === premultiplied)
        #expect(try Self.largestDifference(try kept.renderRGBA(), try straight.renderRGBA()) == 0)
        let computed = try straight.premultipliedEightBit().renderRGBA()
        #expect(try Self.largestDifference(try premultiplied.renderRGBA(), computed) <= 1)
        // The corner pixel is transparent in both; premultiplied, its colour is gone too (the
        // photo's corner is a dark blue, 17 33 58).
        let corner = try premultiplied.renderRGBA().withUnsafeBytes { Array($0.prefix(4)) }
        let straightCorner = try straight.renderRGBA().withUnsafeBytes { Array($0.prefix(4)) }
        #expect(corner == [0, 0, 0, 0] && straightCorner[3] == 0)
        if file == TransformInput.photo { #expect(straightCorner[0...2] == [17, 33, 58]) }
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
