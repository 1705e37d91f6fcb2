import Foundation
import LibVips
import Testing
import WebImage

/// The libpng engine gives what the libvips coder gives on opaque PNGs, and hands over the rest.
@Suite struct LibPNGCoderTests {
    static func decodeBoth(_ data: Data, options: ImageCoderOptions = ImageCoderOptions()) throws -> (ours: WebImage.Image, libvips: WebImage.Image) {
        (try LibPNGCoder.shared.decode(data, options: options), try VipsImageCoder.shared.decode(data, options: options))
    }

    @Test func everyPngSuiteFileDecodesToTheSamePixelsAsLibvips() throws {
        // Palette, grey at 1 to 8 bits, interlaced, with gamma, chroma or text chunks: the same
        // samples (neither engine applies gAMA); alpha, transparency and 16-bit files are handed over.
        let files = try TestImages.files(in: "pngsuite")
        #expect(files.count > 50)
        var readByLibpng = 0
        for file in files {
            let data = try TestImages.data(file)
            let (ours, libvips) = try Self.decodeBoth(data)
            #expect(ours.hasAlpha == libvips.hasAlpha, "\(file)")
            #expect(try PixelDifference(ours, libvips).largest == 0, "\(file)")
            // The engine itself, not the coder (which would hand a failure to libvips).
            do {
                let direct = try LibPNG.decodeOpaque(data, maxPixels: 10_000, colourProfile: nil)
                #expect(!libvips.hasAlpha, "\(file)")
                #expect(try PixelDifference(try direct.image(), libvips).largest == 0, "\(file)")
                readByLibpng += 1
            } catch LibPNG.Refusal.notOpaqueEightBit {
                continue
            }
        }
        #expect(readByLibpng > 20)
    }

    @Test func aBrokenChecksumOrTooManyPixelsIsRefused() throws {
        var bytes = [UInt8](try TestImages.data("photos/astronaut.png"))
        // A byte inside the first IDAT chunk's data: its CRC no longer matches.
        let idat = try #require(bytes.indices.dropLast(4).first { Array(bytes[$0..<($0 + 4)]) == Array("IDAT".utf8) })
        bytes[idat + 100] ^= 0x55
        let broken = Data(bytes)
        #expect(throws: LibPNG.Refusal.corrupt) { try LibPNG.decodeOpaque(broken, maxPixels: 1 << 20, colourProfile: nil) }
        #expect(throws: ImageCodingError.self) { try LibPNGCoder.shared.decode(broken, options: ImageCoderOptions()) }
        let intact = try TestImages.data("photos/astronaut.png")
        #expect(throws: LibPNG.Refusal.tooManyPixels) { try LibPNG.decodeOpaque(intact, maxPixels: 512 * 511, colourProfile: nil) }
    }

    @Test(arguments: [0.1, 0.5, 0.99], [false, true])
    func aTruncatedPNGIsAnError(fraction: Double, lazy: Bool) throws {
        let data = try TestImages.data("photos/astronaut.png")
        let cut = data.prefix(Int(Double(data.count) * fraction))
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = lazy
        options.decodeThumbnailPixelSize = CGSize(width: 100, height: 100)
        do {
            let image = try LibPNGCoder.shared.decode(cut, options: options)
            // A lazy image may get as far as its header: its pixels then fail.
            #expect(lazy)
            #expect(throws: (any Error).self) { try image.withUnsafeRGBA8Bytes { $0.count } }
        } catch {
            // A truncated PNG is corrupt data, not an unknown format.
            guard case .corruptData(let format, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(format == .png)
        }
    }

    @Test func thumbnailsHaveLibvipsSizesAndNearlyItsPixels() throws {
        let data = try TestImages.data("photos/astronaut.png")
        var largest = 0
        for (width, height) in [(300.0, 200.0), (100, 100), (37, 500), (512, 10), (64, 0)] {
            for keepAspect in [true, false] {
                var options = ImageCoderOptions()
                options.decodeThumbnailPixelSize = CGSize(width: width, height: height)
                options.decodePreserveAspectRatio = keepAspect
                let (ours, libvips) = try Self.decodeBoth(data, options: options)
                #expect(ours.pixelWidth == libvips.pixelWidth && ours.pixelHeight == libvips.pixelHeight, "\(width)x\(height)")
                // The same Lanczos-3 (after a box shrink past 4x, as libvips does), within rounding.
                let difference = try PixelDifference(ours, libvips)
                #expect(difference.mean < 1 && difference.largest <= 8, "\(width)x\(height): \(difference)")
                largest = max(largest, difference.largest)
            }
        }
        // Ours, not libvips' handed back: the resamplers round differently somewhere.
        #expect(largest > 0)
    }

    @Test func aLazyThumbnailEncodesWithoutABitmapFirst() throws {
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 120, height: 120)
        options.decodeUseLazyDecoding = true
        let image = try LibPNGCoder.shared.decode(try TestImages.data("photos/astronaut.png"), options: options)
        #expect(!image.isDecoded && image.pixelWidth == 120 && image.pixelHeight == 120)
        let jpeg = try ImageCodersManager.shared.encode(image, format: .jpeg, options: ImageCoderOptions())
        let back = try TestImages.decoded(jpeg)
        #expect(back.pixelWidth == 120 && back.pixelHeight == 120)
    }

    @Test func handsOverAlphaAndSixteenBitFiles() throws {
        // Alpha: libvips' reading, transparency kept.
        #expect(throws: LibPNG.Refusal.notOpaqueEightBit) {
            try LibPNG.decodeOpaque(try TestImages.data("sdwebimage/TestImage.png"), maxPixels: 1 << 20, colourProfile: nil)
        }
        let transparent = try LibPNGCoder.shared.decode(try TestImages.data("sdwebimage/TestImage.png"), options: ImageCoderOptions())
        #expect(transparent.hasAlpha && transparent.pixel(x: 0, y: 0)?.alpha == 0)
        // 16-bit without alpha, lazily: libpng refuses it when the pixels are asked for, libvips reads it.
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        let data = try TestImages.data("pngsuite/basn0g16.png")
        let sixteen = try LibPNGCoder.shared.decode(data, options: lazy)
        #expect(try PixelDifference(sixteen, try VipsImageCoder.shared.decode(data, options: ImageCoderOptions())).largest == 0)
    }

    @Test func anEmbeddedProfileIsConverted() throws {
        // rocket.jpg's pixels and Adobe RGB profile, saved as PNG by libvips.
        let png = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data("photos/rocket.jpg")).save("pngsave_buffer")
        #expect(try VipsImageRef.load("pngload_buffer", data: png).iccProfile != nil)
        let (ours, libvips) = try Self.decodeBoth(png)
        #expect(try PixelDifference(ours, libvips).largest <= 1)
        let raw = try VipsImageRef.load("pngload_buffer", data: png).render()
        #expect(try PixelDifference(ours, raw).mean > 3)
    }
}
