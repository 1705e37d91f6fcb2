import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// `PixelBuffer.resampled`, the resize of the TurboJPEG and libpng engines, against libvips'
/// own Lanczos-3 on the same bitmap.
@Suite(.offThePool) struct ResamplingTests {
    /// rocket.jpg decoded by TurboJPEG: 640x427 RGBA, alpha 255.
    static func rocket() throws -> PixelBuffer {
        let data = try TestImages.data("photos/rocket.jpg")
        let header = try #require(TurboJPEG.header(of: data))
        return try TurboJPEG.decode(data, header: header, colourProfile: nil, orientation: 1)
    }

    /// libvips' `resize` of `pixels` to `width` x `height`, RGB, in floating point (on 8-bit
    /// images libvips 8.14 resizes with 6-bit weights in its vector path and clips between its
    /// passes: up to 11 levels from the exact result), rounded (a cast truncates).
    static func libvipsResize(_ pixels: PixelBuffer, width: Int, height: Int) throws -> PixelBuffer {
        let scale = Double(width) / Double(pixels.width)
        let vscale = Double(height) / Double(pixels.height)
        return try VipsImageRef.wrapping(pixels).call("extract_band", "band=0,n=3").call("cast", "format=float")
            .call("resize", "scale=\(scale),vscale=\(vscale)").call("round", "round=rint").call("cast", "format=uchar").render()
    }

    @Test(arguments: [(300, 200), (639, 426), (320, 214), (100, 67), (30, 20), (50, 50), (200, 5), (7, 100), (1, 1)])
    func matchesLibvipsLanczos3(width: Int, height: Int) throws {
        let source = try Self.rocket()
        let ours = try source.resampled(to: (width, height))
        #expect(ours.width == width && ours.height == height && ours.bands == 4)
        let image = try ours.image()
        let reference = try Self.libvipsResize(source, width: width, height: height)
        try #require(reference.width == width && reference.height == height)
        // Reductions past 4x go through a box shrink first in both.
        let difference = try PixelDifference(image, reference)
        #expect(difference.mean < 0.5 && difference.largest <= 3, "\(difference)")
        #expect(image.pixel(x: width - 1, y: height - 1)?.alpha == 255)
    }

    @Test func keepsAFlatImageFlat() throws {
        let grey = PixelBuffer(width: 97, height: 61, bands: 4) { bytes in
            for index in bytes.indices { bytes[index] = index % 4 == 3 ? 255 : 128 }
        }
        let resized = try grey.resampled(to: (13, 60))
        resized.withUnsafeBytes { bytes in
            #expect(bytes.enumerated().allSatisfy { $0.offset % 4 == 3 ? $0.element == 255 : $0.element == 128 })
        }
    }

    @Test func turnsTheResultUprightAsLibvipsAutorotDoes() throws {
        let source = try Self.rocket()
        for orientation in 1...8 {
            let size = orientation >= 5 ? (width: 67, height: 100) : (width: 100, height: 67)
            let ours = try source.resampled(to: size, orientation: orientation)
            #expect(ours.width == size.width && ours.height == size.height)
            let plain = try source.resampled(to: (100, 67))
            let turned = try VipsImageRef.wrapping(plain, orientation: orientation).call("autorot").render()
            #expect(turned.width == size.width && turned.height == size.height)
            #expect(ours.withUnsafeBytes { Array($0) } == turned.withUnsafeBytes { Array($0) }, "orientation \(orientation)")
        }
    }

    @Test func refusesToUpscaleOrTakeNonRGBA() throws {
        let source = try Self.rocket()
        #expect(throws: VipsError.self) { try source.resampled(to: (641, 10)) }
        #expect(throws: VipsError.self) { try source.resampled(to: (0, 10)) }
        let rgb = PixelBuffer(width: 4, height: 4, bands: 3) { _ in }
        #expect(throws: VipsError.self) { try rgb.resampled(to: (2, 2)) }
    }
}
