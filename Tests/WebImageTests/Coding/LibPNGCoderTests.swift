import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// The libpng engine gives what the libvips coder gives on 8-bit PNGs, and hands over the rest.
@Suite(.offThePool) struct LibPNGCoderTests {
    static func decodeBoth(_ data: Data, options: ImageCoderOptions = ImageCoderOptions()) throws -> (ours: WebImage.Image, libvips: WebImage.Image) {
        (try LibPNGCoder.shared.decode(data, options: options), try VipsImageCoder.shared.decode(data, options: options))
    }

    /// Every sample of two RGBA images, alpha included, equal.
    static func identical(_ first: WebImage.Image, _ second: WebImage.Image) throws -> Bool {
        try first.withUnsafeRGBA8Bytes { a in try second.withUnsafeRGBA8Bytes { b in a.elementsEqual(b) } }
    }

    @Test func everyPngSuiteFileDecodesToTheSamePixelsAsLibvips() throws {
        // Palette, grey at 1 to 8 bits, interlaced, with gamma, chroma or text chunks, alpha and
        // transparency: the same samples, alpha included (neither engine applies gAMA); 16-bit
        // files are handed over.
        let files = try TestImages.files(in: "pngsuite")
        #expect(files.count > 50)
        var readByLibpng = 0
        var withAlpha = 0
        for file in files {
            let data = try TestImages.data(file)
            let (ours, libvips) = try Self.decodeBoth(data)
            #expect(ours.hasAlpha == libvips.hasAlpha, "\(file)")
            #expect(try Self.identical(ours, libvips), "\(file)")
            // The engine itself, not the coder (which would hand a failure to libvips).
            do {
                let direct = try LibPNG.decode(data, maxPixels: 10_000, allowsAlpha: true, colourProfile: nil)
                #expect(try Self.identical(try direct.image(), libvips), "\(file)")
                readByLibpng += 1
                if libvips.hasAlpha { withAlpha += 1 }
            } catch LibPNG.Refusal.sixteenBitOrAlpha {
                continue
            }
        }
        #expect(readByLibpng > 40 && withAlpha > 5, "\(readByLibpng) read, \(withAlpha) with alpha")
    }

    /// Our reader (libdeflate, SSE2 unfiltering) gives libpng's samples byte for byte on every
    /// file it takes, refuses what libpng refuses, and takes the common files: 8-bit samples of
    /// every colour type (transparency too), not interlaced, among them the benchmark's photos.
    @Test func ourReaderGivesLibpngsSamples() throws {
        var files = try TestImages.files(in: "pngsuite").map { ($0, try TestImages.data($0)) }
        files += try TestImages.files(in: "fuzz-regressions").filter { $0.hasSuffix(".png") }.map { ($0, try TestImages.data($0)) }
        files += try ["photos/astronaut.png", "photos/camera.png", "photos/motorcycle_left.png", "libjpeg-turbo/vgl_5674_0098.png"]
            .map { ($0, try TestImages.data($0)) }
        files += try ["IndexedPNG.png", "RGBA16PNG.png", "TestEXIF.png", "TestImage.png", "TestImageAnimated.apng", "TestImageLarge.png"]
            .map { ("sdwebimage/" + $0, try TestImages.data("sdwebimage/" + $0)) }
        files += try Self.alphaPNGs()
        var taken: [String] = []
        for (name, data) in files {
            for allowsAlpha in [true, false] {
                let libpng = Result { () throws(LibPNG.Refusal) in
                    try LibPNG.decode(data, maxPixels: 1 << 24, allowsAlpha: allowsAlpha, colourProfile: nil, reader: .libpngOnly)
                }
                let ours = Result { () throws(LibPNG.Refusal) in
                    try LibPNG.decode(data, maxPixels: 1 << 24, allowsAlpha: allowsAlpha, colourProfile: nil, reader: .oursOnly)
                }
                switch ours {
                case .success(let pixels):
                    let theirs = try #require(try? libpng.get(), "\(name): libpng refuses what ours reads")
                    #expect(pixels.width == theirs.width && pixels.height == theirs.height, "\(name)")
                    #expect(pixels.withUnsafeBytes { a in theirs.withUnsafeBytes { b in a.elementsEqual(b) } }, "\(name)")
                    if allowsAlpha { taken.append(name) }
                case .failure(.leftToLibpng):
                    continue
                case .failure(let refusal):
                    #expect(throws: refusal) { try libpng.get() }
                }
            }
        }
        for common in ["photos/astronaut.png", "photos/camera.png", "photos/motorcycle_left.png", "pngsuite/basn0g08.png",
                       "pngsuite/basn2c08.png", "pngsuite/basn3p08.png", "pngsuite/basn4a08.png", "pngsuite/basn6a08.png",
                       "pngsuite/ftbrn2c08.png", "pngsuite/ftbbn3p08.png", "TestImage.png as a palette with tRNS"] {
            #expect(taken.contains(common), "\(common) left to libpng")
        }
        // Interlaced and 16-bit files, and animations, are libpng's.
        #expect(!taken.contains { $0.contains("/ibasn") || $0.hasSuffix("16.png") || $0.hasSuffix(".apng") }, "\(taken)")
    }

    /// A thumbnail from the thread's scratch bitmap is the whole decoded bitmap resized, sample
    /// for sample, whichever reader decodes the file (ours, or libpng's for interlaced ones),
    /// turned and weighted by alpha alike; a refusal is the decode's.
    @Test func aThumbnailIsTheWholeBitmapResized() throws {
        var files = try TestImages.files(in: "pngsuite").map { ($0, try TestImages.data($0)) }
        files += try ["photos/astronaut.png", "sdwebimage/TestImage.png", "sdwebimage/IndexedPNG.png"].map { ($0, try TestImages.data($0)) }
        var compared = 0
        for (name, data) in files {
            for (hasAlpha, orientation) in [(true, 1), (false, 6)] {
                let whole = Result { () throws(LibPNG.Refusal) in
                    try LibPNG.decode(data, maxPixels: 1 << 24, allowsAlpha: hasAlpha, colourProfile: nil)
                }
                guard case .success(let pixels) = whole else {
                    #expect(throws: LibPNG.Refusal.self, "\(name)") {
                        try LibPNG.thumbnail(data, maxPixels: 1 << 24, size: (1, 1), orientation: 1, hasAlpha: hasAlpha, colourProfile: nil)
                    }
                    continue
                }
                let stored = (width: max(1, pixels.width * 2 / 3), height: max(1, pixels.height / 2))
                let size = orientation >= 5 ? (width: stored.height, height: stored.width) : stored
                let expected = try pixels.resampled(to: size, orientation: orientation, hasAlpha: hasAlpha)
                let thumbnail = try LibPNG.thumbnail(data, maxPixels: 1 << 24, size: size, orientation: orientation, hasAlpha: hasAlpha, colourProfile: nil)
                #expect(thumbnail.width == size.width && thumbnail.height == size.height, "\(name)")
                #expect(thumbnail.withUnsafeBytes { a in expected.withUnsafeBytes { b in a.elementsEqual(b) } }, "\(name)")
                compared += 1
            }
        }
        #expect(compared > 60)
    }

    /// A file our reader takes, broken in a way only libpng can judge, is libpng's answer.
    @Test func ourReaderLeavesDamageToLibpng() throws {
        let intact = [UInt8](try TestImages.data("photos/camera.png"))
        let idat = try #require(intact.indices.dropLast(4).first { Array(intact[$0..<($0 + 4)]) == Array("IDAT".utf8) })
        var flipped = intact
        flipped[idat + 100] ^= 0x55
        // Cut in the middle of the image data, and after the last IDAT (no IEND).
        let iend = try #require(intact.indices.dropLast(4).last { Array(intact[$0..<($0 + 4)]) == Array("IEND".utf8) })
        for broken in [flipped, Array(intact.prefix(intact.count / 2)), Array(intact.prefix(iend - 4))] {
            #expect(throws: LibPNG.Refusal.leftToLibpng) {
                try LibPNG.decode(Data(broken), maxPixels: 1 << 20, allowsAlpha: true, colourProfile: nil, reader: .oursOnly)
            }
            #expect(throws: LibPNG.Refusal.corrupt) {
                try LibPNG.decode(Data(broken), maxPixels: 1 << 20, allowsAlpha: true, colourProfile: nil)
            }
        }
    }

    @Test func aBrokenChecksumOrTooManyPixelsIsRefused() throws {
        var bytes = [UInt8](try TestImages.data("photos/astronaut.png"))
        // A byte inside the first IDAT chunk's data: its CRC no longer matches.
        let idat = try #require(bytes.indices.dropLast(4).first { Array(bytes[$0..<($0 + 4)]) == Array("IDAT".utf8) })
        bytes[idat + 100] ^= 0x55
        let broken = Data(bytes)
        #expect(throws: LibPNG.Refusal.corrupt) { try LibPNG.decode(broken, maxPixels: 1 << 20, allowsAlpha: false, colourProfile: nil) }
        #expect(throws: ImageCodingError.self) { try LibPNGCoder.shared.decode(broken, options: ImageCoderOptions()) }
        let intact = try TestImages.data("photos/astronaut.png")
        #expect(throws: LibPNG.Refusal.tooManyPixels) {
            try LibPNG.decode(intact, maxPixels: 512 * 511, allowsAlpha: false, colourProfile: nil)
        }
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
                // The same Lanczos-3 (after a box shrink past 4x, as libvips does), within rounding:
                // libvips' 8-bit resize is up to 11 levels from the exact result (6-bit weights
                // in its vector path, clipping between passes), ours within 2 (ResamplingTests).
                let difference = try PixelDifference(ours, libvips)
                #expect(difference.mean < 1 && difference.largest <= 11, "\(width)x\(height): \(difference)")
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

    @Test func keepsAlphaAndHandsOverSixteenBitFiles() throws {
        // Alpha: read by libpng when allowed, transparency kept.
        let rgba = try TestImages.data("sdwebimage/TestImage.png")
        #expect(throws: LibPNG.Refusal.sixteenBitOrAlpha) {
            try LibPNG.decode(rgba, maxPixels: 1 << 20, allowsAlpha: false, colourProfile: nil)
        }
        let transparent = try LibPNGCoder.shared.decode(rgba, options: ImageCoderOptions())
        #expect(transparent.hasAlpha && transparent.pixel(x: 0, y: 0)?.alpha == 0)
        #expect(try Self.identical(transparent, try VipsImageCoder.shared.decode(rgba, options: ImageCoderOptions())))
        // 16-bit without alpha, lazily: libpng refuses it when the pixels are asked for, libvips reads it.
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        let data = try TestImages.data("pngsuite/basn0g16.png")
        let sixteen = try LibPNGCoder.shared.decode(data, options: lazy)
        #expect(try PixelDifference(sixteen, try VipsImageCoder.shared.decode(data, options: ImageCoderOptions())).largest == 0)
    }

    /// How far our alpha thumbnail is from libvips': alpha differences, and colour differences
    /// weighted by the pixel's alpha. libvips filters premultiplied pixels in floating point
    /// with nothing clamped between its two passes; we premultiply in 8 bits and clamp to 8
    /// bits between the passes, as Pillow does: hard alpha edges, where Lanczos rings, differ
    /// by up to a few tens of levels, the rest by a level or two.
    static func alphaDifference(_ ours: WebImage.Image, _ libvips: WebImage.Image) throws
        -> (alpha: Int, meanAlpha: Double, colour: Double, meanColour: Double) {
        try #require(ours.pixelWidth == libvips.pixelWidth && ours.pixelHeight == libvips.pixelHeight)
        return try ours.withUnsafeRGBA8Bytes { a in
            try libvips.withUnsafeRGBA8Bytes { b in
                var alpha = 0
                var alphaTotal = 0
                var colour = 0.0
                var total = 0.0
                for pixel in 0..<(a.count / 4) {
                    let alphaDelta = abs(Int(a[pixel * 4 + 3]) - Int(b[pixel * 4 + 3]))
                    alpha = max(alpha, alphaDelta)
                    alphaTotal += alphaDelta
                    let weight = Double(max(a[pixel * 4 + 3], b[pixel * 4 + 3])) / 255
                    for band in 0..<3 {
                        let weighted = Double(abs(Int(a[pixel * 4 + band]) - Int(b[pixel * 4 + band]))) * weight
                        colour = max(colour, weighted)
                        total += weighted
                    }
                }
                return (alpha, Double(alphaTotal) / Double(a.count / 4), colour, total / Double(a.count / 4 * 3))
            }
        }
    }

    /// RGBA, grey + alpha (interlaced too), and TestImage.png saved by libvips as a palette with
    /// transparency (tRNS).
    static func alphaPNGs() throws -> [(String, Data)] {
        var files = try ["sdwebimage/TestImage.png", "pngsuite/basn6a08.png", "pngsuite/basn4a08.png", "pngsuite/ibasn6a08.png"]
            .map { ($0, try TestImages.data($0)) }
        let palette = try VipsImageRef.load("pngload_buffer", data: try TestImages.data("sdwebimage/TestImage.png"))
            .save("pngsave_buffer", options: "palette=true")
        files.append(("TestImage.png as a palette with tRNS", palette))
        return files
    }

    @Test func alphaThumbnailsAreNearlyLibvips() throws {
        for (name, data) in try Self.alphaPNGs() {
            // Read by libpng itself, to the same samples as libvips.
            let direct = try LibPNG.decode(data, maxPixels: 1 << 20, allowsAlpha: true, colourProfile: nil)
            #expect(try Self.identical(try direct.image(), try VipsImageCoder.shared.decode(data, options: ImageCoderOptions())), "\(name)")
            for (width, height) in [(100.0, 100.0), (25, 25), (7, 19)] {
                var options = ImageCoderOptions()
                options.decodeThumbnailPixelSize = CGSize(width: width, height: height)
                let (ours, libvips) = try Self.decodeBoth(data, options: options)
                #expect(ours.hasAlpha && libvips.hasAlpha, "\(name)")
                let difference = try Self.alphaDifference(ours, libvips)
                // At 7x7 every pixel of TestImage.png's thumbnail is an edge: a mean of 1.5 levels.
                #expect(difference.alpha <= 24 && difference.meanAlpha < 2 && difference.colour <= 24 && difference.meanColour < 1,
                        "\(name) \(width)x\(height): \(difference)")
                // Shrunk: ours, not libvips' handed back. Not shrunk (32x32 into 100x100): the
                // decode itself, the same samples.
                let shrunk = ours.pixelWidth < direct.width
                #expect(try Self.identical(ours, libvips) != shrunk, "\(name) \(width)x\(height)")
            }
        }
    }

    /// A transparent pixel's colour does not bleed: a red square on transparent black, shrunk,
    /// keeps pure red wherever it is visible.
    @Test func transparentPixelsDoNotBleedIntoVisibleOnes() throws {
        let square = PixelBuffer(width: 64, height: 64, bands: 4) { bytes in
            for y in 0..<64 {
                for x in 0..<64 where (16..<48).contains(x) && (16..<48).contains(y) {
                    bytes[(y * 64 + x) * 4] = 255
                    bytes[(y * 64 + x) * 4 + 3] = 255
                }
            }
        }
        let small = try square.resampled(to: (24, 24), hasAlpha: true)
        small.withUnsafeBytes { bytes in
            for pixel in 0..<(24 * 24) where bytes[pixel * 4 + 3] > 16 {
                #expect(bytes[pixel * 4] >= 250 && bytes[pixel * 4 + 1] <= 4 && bytes[pixel * 4 + 2] <= 4, "pixel \(pixel)")
            }
        }
        // Filtered as colours, the black around darkens the visible edge.
        let straight = try square.resampled(to: (24, 24))
        #expect(straight.withUnsafeBytes { bytes in (0..<(24 * 24)).contains { bytes[$0 * 4 + 3] > 16 && bytes[$0 * 4] < 250 } })
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
