import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// Pipelines are rendered in the calling thread, tile by tile in the shapes libvips' workers
/// use: the pixels must be those libvips' own sink makes (here through its PNG saver).
@Suite(.offThePool) struct RenderTests {
    static func libvipsOwnRender(_ image: VipsImageRef) throws -> PixelBuffer {
        try VipsImageRef.load("pngload_buffer", data: try image.save("pngsave_buffer", options: "compression=1")).render()
    }

    @Test(arguments: [
        // Whole-width strips; 128x128 tiles, the last ones cut by the edges (affine, convolution).
        ("invert", ""), ("rotate", "angle=30"), ("gaussblur", "sigma=3"),
    ])
    func renderingInThisThreadGivesLibvipsOwnPixels(operation: String, options: String) throws {
        let photo = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data(TransformInput.photo))
        let image = try photo.call(operation, options)
        let ours = try image.render()
        let theirs = try Self.libvipsOwnRender(image)
        #expect(ours.width == image.width && ours.height == image.height && ours.bands == image.bands)
        #expect(ours.width == theirs.width && ours.height == theirs.height && ours.bands == theirs.bands)
        #expect(ours.withUnsafeBytes { a in theirs.withUnsafeBytes { b in a.elementsEqual(b) } })
        // RGBA: the same colours, opaque.
        let rgba = try image.renderRGBA()
        #expect(rgba.bands == 4 && rgba.width == ours.width)
        let matches = rgba.withUnsafeBytes { four in
            ours.withUnsafeBytes { three in
                (0..<(ours.width * ours.height)).allSatisfy { pixel in
                    four[pixel * 4 + 3] == 255 && (0..<3).allSatisfy { four[pixel * 4 + $0] == three[pixel * 3 + $0] }
                }
            }
        }
        #expect(matches)
    }

    @Test func pixelsTooLargeForMemoryAreAnErrorNotAnAbort() throws {
        // 10 million pixels square: 400 TB as RGBA, more than the address space can hold. No
        // pixel is computed: the buffer is refused first.
        let huge = try VipsImageRef.placeholder(width: 10_000_000, height: 10_000_000, bands: 3)
        #expect(throws: VipsError.self) { try huge.renderRGBA() }
        #expect(throws: VipsError.self) { try huge.render() }
    }

    @Test func aFailingPipelineThrows() throws {
        // A truncated JPEG read lazily fails when its pixels are computed, not before.
        let data = try TestImages.data(TransformInput.photo)
        let truncated = try VipsImageRef.load("jpegload_buffer", data: data.prefix(data.count / 3), options: "fail=true")
        #expect(throws: VipsError.self) { try truncated.render() }
        #expect(throws: VipsError.self) { try truncated.renderRGBA() }
    }
}
