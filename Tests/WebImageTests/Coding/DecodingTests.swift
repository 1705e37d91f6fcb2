import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite(.offThePool) struct DecodingTests {
    /// Every image file of the shared folder but pngsuite/ (all 32x32, `everyPngSuiteFileDecodes`)
    /// and the 12-bit JPEG (an error, `twelveBitJPEGIsATypedError`), with its pixel size shown
    /// upright: the test images' README states the sdwebimage/, exif-orientation/ and faces/
    /// sizes; the others are as vipsheader and Pillow 13 both read them.
    static let sizes: [(String, Int, Int)] = [
        ("sdwebimage/TestImage.jpg", 80, 60), ("sdwebimage/TestImage.png", 300, 300), ("sdwebimage/TestImage.gif", 50, 50),
        ("sdwebimage/TestImageLarge.jpg", 5250, 3450), ("sdwebimage/TestImageLarge.png", 1275, 720),
        ("sdwebimage/TestImageStatic.webp", 550, 368), ("sdwebimage/TestImageAnimated.webp", 990, 1050),
        ("sdwebimage/TestLoopCount.gif", 72, 48), ("sdwebimage/TestImageAnimated.apng", 320, 240),
        ("sdwebimage/MonochromeTestImage.jpg", 165, 121), ("sdwebimage/RGBA16PNG.png", 126, 135),
        ("sdwebimage/IndexedPNG.png", 687, 123), ("sdwebimage/TestImage.heic", 1440, 960),
        ("sdwebimage/TestImage.heif", 1440, 960), ("sdwebimage/TestImage.pdf", 36, 36), ("sdwebimage/TestImage.svg", 131, 76),
        ("sdwebimage/TestEXIF.png", 150, 200), ("sdwebimage/TestICCProfile.jpg", 400, 300),
        ("sdwebimage/TestHDR.avif", 2048, 858), ("sdwebimage/TestHDR.heic", 600, 400), ("sdwebimage/TestHDR.jxl", 600, 420),
        ("sdwebimage/TestHDR.jpeg", 1662, 2493),
        ("hdr/chart-pq.avif", 360, 48), ("hdr/chart-pq.jxl", 360, 48), ("hdr/chart-pq.png", 360, 48),
        ("hdr/chart-hlg.avif", 336, 48), ("hdr/chart-hlg.png", 336, 48), ("hdr/TestHDR-avif-reference.png", 256, 107),
        ("hdr/TestHDR-heic-reference.png", 256, 171), ("hdr/TestHDR-jxl-reference.png", 256, 179),
        ("hdr/TestHDR-jpeg-gainmap-reference.png", 207, 311), ("hdr/TestHDR-ultrahdr-iso.jpg", 600, 400),
        ("hdr/TestHDR-ultrahdr-iso-xmp.jpg", 600, 400), ("hdr/TestHDR-ultrahdr-iso-reference.png", 75, 50),
        ("hdr/TestHDR-ultrahdr-iso-xmp-reference.png", 75, 50),
        ("libjpeg-turbo/testorig.jpg", 227, 149), ("libjpeg-turbo/testimgint.jpg", 227, 149),
        ("libjpeg-turbo/testimgari.jpg", 227, 149), ("libjpeg-turbo/monkey16.png", 149, 227),
        ("libjpeg-turbo/shira_bird8.bmp", 192, 144), ("libjpeg-turbo/testorig.png", 227, 149),
        ("libjpeg-turbo/vgl_5674_0098.png", 120, 96),
        ("photos/rocket.jpg", 640, 427), ("photos/astronaut.png", 512, 512), ("photos/camera.png", 512, 512),
        ("photos/no_time_for_that_tiny.gif", 14, 25), ("photos/retina.jpg", 1411, 1411),
        ("photos/motorcycle_left.png", 741, 500), ("photos/hubble_deep_field.jpg", 1000, 872),
        ("webp/lossless1.webp", 1000, 307), ("webp/lossy_alpha1.webp", 1000, 307), ("webp/very_short.webp", 63, 66),
        ("webp/alpha_filter_1_method_1.webp", 128, 128), ("webp/lossless_color_transform.webp", 512, 512),
        ("webp/test.webp", 128, 128),
        ("faces/grace-hopper.jpg", 512, 600), ("faces/city-portrait.jpg", 1200, 794), ("faces/woman-portrait.jpg", 800, 1200),
        ("faces/classroom-tanzania.jpg", 725, 544),
    ] + (0...8).map { ("exif-orientation/Landscape_\($0).jpg", 1800, 1200) }
        + (1...8).map { ("faces/astronaut-\($0).jpg", 512, 384) } + [("faces/astronaut-large-6.jpg", 1536, 1152)]

    @Test(arguments: sizes)
    func decodesToTheStatedPixelSize(file: String, width: Int, height: Int) throws {
        let image = try ImageCodersManager.shared.decode(try TestImages.data(file), options: ImageCoderOptions())
        #expect(image.pixelWidth == width && image.pixelHeight == height)
        #expect(image.isDecoded)
        #expect(image.memoryCost == width * height * 4)
        #expect(image.pixel(x: width - 1, y: height - 1) != nil)
    }

    /// A file added to the shared folder without a row in `sizes` fails here. (PngSuite has its
    /// own tests; the fuzz regression inputs are refused, in `DecodeBombTests`.)
    @Test func theSizeTableCoversEverySharedImage() throws {
        let subfolders = try FileManager.default.contentsOfDirectory(atPath: TestImages.folder.path)
            .filter { !$0.contains(".") && $0 != "pngsuite" && $0 != "fuzz-regressions" }
            .sorted()
        #expect(subfolders == ["exif-orientation", "faces", "hdr", "libjpeg-turbo", "photos", "sdwebimage", "webp"])
        let listed = Set(Self.sizes.map(\.0))
        for folder in subfolders {
            for file in try TestImages.files(in: folder) where file != "libjpeg-turbo/monkey12.jpg" {
                #expect(listed.contains(file), "\(file) has no stated size")
            }
        }
    }

    @Test(arguments: 0...8)
    func exifOrientationComesOutUpright(orientation: Int) throws {
        let image = try #require(Image(data: try TestImages.data("exif-orientation/Landscape_\(orientation).jpg")))
        #expect(image.pixelWidth == 1800 && image.pixelHeight == 1200)
        // The same upright photo every time: compare a patch of sky (top) and ground (bottom)
        // with the untagged original.
        let reference = try #require(Image(data: try TestImages.data("exif-orientation/Landscape_0.jpg")))
        for (x, y) in [(200, 150), (1600, 150), (900, 1100)] {
            let ours = try #require(image.pixel(x: x, y: y))
            let theirs = try #require(reference.pixel(x: x, y: y))
            #expect(abs(Int(ours.red) - Int(theirs.red)) < 40 && abs(Int(ours.blue) - Int(theirs.blue)) < 40, "(\(x), \(y))")
        }
    }

    /// PngSuite's rule: every file not named x* decodes (all are 32x32); every x* file fails.
    @Test func everyPngSuiteFileDecodes() throws {
        let files = try TestImages.files(in: "pngsuite")
        #expect(files.count > 50)
        for file in files {
            let data = try TestImages.data(file)
            if URL(fileURLWithPath: file).lastPathComponent.hasPrefix("x") {
                #expect(throws: ImageCodingError.self, "\(file) is corrupt") {
                    try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
                }
            } else {
                let image = try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
                #expect(image.pixelWidth == 32 && image.pixelHeight == 32, "\(file)")
            }
        }
    }

    /// The shared folder has none of PngSuite's x* files: they are rebuilt from their twins.
    @Test func rebuiltPngSuiteTwinsMatchPngSuite() throws {
        // The CRCs decoders compute for the real xcsn0g01's IDAT and xhdn0g08's IHDR.
        #expect(PngSuiteCorruptFiles.computedCRC(of: "IDAT", in: try PngSuiteCorruptFiles.original("basn0g01")) == 3_492_746_441)
        #expect(PngSuiteCorruptFiles.computedCRC(of: "IHDR", in: try PngSuiteCorruptFiles.original("basn0g08")) == 1_443_964_200)
        // Each twin, put back as PngSuite ships it, still decodes to the same pixels.
        for name in ["basn0g01", "basn0g04", "basn0g08", "basn2c08"] {
            let ours = try TestImages.decoded(try PngSuiteCorruptFiles.original(name))
            let shared = try TestImages.decoded(try TestImages.data("pngsuite/\(name).png"))
            for (x, y) in [(0, 0), (15, 15), (31, 31)] {
                #expect(ours.pixel(x: x, y: y) == shared.pixel(x: x, y: y), "\(name) (\(x), \(y))")
            }
        }
    }

    @Test(arguments: PngSuiteCorruptFiles.all)
    func corruptPngSuiteFileIsATypedError(file: PngSuiteCorruptFiles.File) throws {
        let data = try file.make()
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        for options in [ImageCoderOptions(), lazy] {
            do {
                // A lazy image that the header let through must fail when its pixels are read.
                let image = try ImageCodersManager.shared.decode(data, options: options).decoded()
                Issue.record("\(file.name) decoded to \(image) (lazy: \(options.decodeUseLazyDecoding))")
            } catch {
                switch (file.failure, error) {
                case (.notAPNG, .unknownFormat), (.corruptPNG, .corruptData(format: .png, reason: _)): break
                default: Issue.record("\(file.name) (lazy: \(options.decodeUseLazyDecoding)): \(error)")
                }
            }
        }
    }

    /// Expected values are the files' samples as pypng 0.20220715 reads them (16-bit ones raw;
    /// Pillow 13 gives the same 8-bit ones, and the high bytes of the 16-bit ones). A 16-bit
    /// sample v shows as v / 257 rounded or as v >> 8 (what libvips does): within 1 level of
    /// v / 257 either way. One or two samples are grey (with alpha); three are RGB.
    static let referencePixels: [(file: String, x: Int, y: Int, samples: [Int], bits: Int)] = [
        // 16-bit RGB
        ("pngsuite/basn2c16.png", 8, 24, [48623, 14798, 2114], 16), ("pngsuite/basn2c16.png", 20, 5, [23254, 54965, 0], 16),
        ("pngsuite/basn2c16.png", 5, 27, [54965, 8456, 2114], 16), ("pngsuite/basn2c16.png", 15, 15, [33825, 33825, 0], 16),
        // 16-bit grey
        ("pngsuite/basn0g16.png", 31, 0, [47871], 16), ("pngsuite/basn0g16.png", 8, 24, [30720], 16),
        ("pngsuite/basn0g16.png", 31, 31, [255], 16), ("pngsuite/basn0g16.png", 5, 27, [25344], 16),
        // 16-bit RGBA, 16-bit grey with alpha
        ("pngsuite/basn6a16.png", 8, 24, [61680, 0, 3854, 29597], 16), ("pngsuite/basn6a16.png", 20, 5, [18724, 65535, 0, 21141], 16),
        ("pngsuite/basn6a16.png", 0, 0, [65535, 65535, 0, 0], 16),
        ("pngsuite/basn4a16.png", 8, 24, [7709, 29597], 16), ("pngsuite/basn4a16.png", 20, 5, [37448, 21141], 16),
        ("sdwebimage/RGBA16PNG.png", 63, 67, [13107, 30583, 65535, 4369], 16),
        // 8-bit grey with alpha
        ("pngsuite/basn4a08.png", 15, 15, [131, 123], 8), ("pngsuite/basn4a08.png", 8, 24, [57, 65], 8),
        ("pngsuite/basn4a08.png", 0, 0, [255, 0], 8),
        // palette
        ("pngsuite/basn3p08.png", 15, 15, [123, 254, 0], 8), ("pngsuite/basn3p08.png", 8, 24, [255, 255, 136], 8),
        ("pngsuite/basn3p08.png", 5, 27, [255, 220, 186], 8),
        // palette with tRNS (as RGBA): ftbbn3p08's index 0 is fully transparent
        ("pngsuite/ftbbn3p08.png", 15, 15, [158, 158, 158, 255], 8), ("pngsuite/ftbbn3p08.png", 20, 5, [81, 7, 7, 255], 8),
        ("pngsuite/ftbbn3p08.png", 0, 0, [255, 255, 255, 0], 8),
        ("sdwebimage/IndexedPNG.png", 100, 60, [195, 241, 242, 29], 8), ("sdwebimage/IndexedPNG.png", 0, 0, [154, 231, 231, 50], 8),
    ]

    @Test(arguments: referencePixels)
    func normalisesSixteenBitGreyAlphaAndPaletteToRGBA8(file: String, x: Int, y: Int, samples: [Int], bits: Int) throws {
        let image = try TestImages.decoded(try TestImages.data(file))
        let pixel = try #require(image.pixel(x: x, y: y))
        let levels = samples.map { bits == 16 ? ($0 * 255 + 32767) / 65535 : $0 }
        let expected: [Int] = switch levels.count {
        case 1: [levels[0], levels[0], levels[0], 255]
        case 2: [levels[0], levels[0], levels[0], levels[1]]
        case 3: levels + [255]
        default: levels
        }
        let ours = [pixel.red, pixel.green, pixel.blue, pixel.alpha].map(Int.init)
        #expect(image.hasAlpha == [2, 4].contains(samples.count), "\(file)")
        #expect(abs(ours[3] - expected[3]) <= 1, "\(file) (\(x), \(y)) alpha: \(ours) vs \(expected)")
        // A fully transparent pixel's colour is not seen.
        if expected[3] > 0 {
            #expect(zip(ours.prefix(3), expected.prefix(3)).allSatisfy { abs($0 - $1) <= 1 }, "\(file) (\(x), \(y)): \(ours) vs \(expected)")
        }
    }

    @Test func greyJPEGComesOutGrey() throws {
        let grey = try TestImages.decoded(try TestImages.data("sdwebimage/MonochromeTestImage.jpg"))
        #expect(!grey.hasAlpha)
        // Luma as Pillow 13 (libjpeg-turbo) reads it; IDCTs may differ by a level or two.
        for (x, y, luma) in [(80, 60, 73), (20, 20, 155), (150, 100, 255)] {
            let pixel = try #require(grey.pixel(x: x, y: y))
            #expect(pixel.red == pixel.green && pixel.green == pixel.blue && pixel.alpha == 255)
            #expect(abs(Int(pixel.red) - luma) <= 2, "(\(x), \(y)): \(pixel)")
        }
    }

    @Test func keepsTransparency() throws {
        let image = try #require(Image(data: try TestImages.data("sdwebimage/TestImage.png")))
        #expect(image.hasAlpha)
        #expect(image.pixel(x: 0, y: 0)?.alpha == 0)
    }

    @Test func twelveBitJPEGIsATypedError() throws {
        #expect(throws: ImageCodingError.self) {
            try ImageCodersManager.shared.decode(try TestImages.data("libjpeg-turbo/monkey12.jpg"), options: ImageCoderOptions())
        }
    }

    @Test func scaleFactorSetsPointSize() throws {
        let image = try #require(Image(data: try TestImages.data("sdwebimage/TestImage.png"), scale: 2))
        #expect(image.scale == 2 && image.size == CGSize(width: 150, height: 150))
    }

    @Test(arguments: [("photos/rocket.jpg", 640, 427), ("photos/astronaut.png", 512, 512)])
    func lazyDecodingDefersPixels(file: String, width: Int, height: Int) throws {
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = true
        let data = try TestImages.data(file)
        let image = try ImageCodersManager.shared.decode(data, options: options)
        // A lazy image costs its encoded bytes (twice while the libvips pipeline prepared at
        // decode, which holds a copy of them, waits for the first reader), not a bitmap.
        #expect(!image.isDecoded && (data.count...2 * data.count).contains(image.memoryCost))
        let encoded = try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions())
        #expect(!image.isDecoded && image.memoryCost == data.count)
        // Later readers decode again from the bytes and see the same pixels.
        #expect(try ImageCodersManager.shared.encode(image, format: .png, options: ImageCoderOptions()) == encoded)
        #expect(image.pixel(x: 10, y: 10) != nil)
        #expect(image.isDecoded && image.memoryCost == width * height * 4)
    }

    @Test func headerProbeReadsNoPixels() throws {
        let header = try ImageHeader(probing: try TestImages.data("exif-orientation/Landscape_6.jpg"))
        #expect(header.format == .jpeg && header.pixelWidth == 1800 && header.pixelHeight == 1200 && header.orientation == 6)
        let animated = try ImageHeader(probing: try TestImages.data("sdwebimage/TestImageAnimated.webp"))
        #expect(animated.frameCount == 8 && animated.loopCount == 0)
        let apng = try ImageHeader(probing: try TestImages.data("sdwebimage/TestImageAnimated.apng"))
        #expect(apng.frameCount > 1)
    }

    /// A JPEG's header is read from its segments, without libvips: it says what libvips' decode
    /// of the file gives (upright size, alpha, colour, gain map).
    @Test func aJPEGHeaderAgreesWithLibvipsDecode() throws {
        let files = try ["exif-orientation", "libjpeg-turbo", "photos", "sdwebimage"].flatMap(TestImages.files(in:))
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".jpeg") }
        #expect(files.count >= 20)
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        for file in files {
            let data = try TestImages.data(file)
            guard let image = try? VipsImageCoder.shared.decode(data, options: lazy) else {
                // 12-bit samples: libvips 8.14 reads neither the header nor the file.
                #expect(throws: ImageCodingError.self, "\(file)") { try ImageHeader(probing: data) }
                continue
            }
            let header = try ImageHeader(probing: data)
            #expect(header.format == .jpeg && header.frameCount == 1 && header.loopCount == 0, "\(file)")
            #expect(header.pixelWidth == image.pixelWidth && header.pixelHeight == image.pixelHeight, "\(file)")
            #expect(header.hasAlpha == image.hasAlpha && header.colorInfo == image.colorInfo, "\(file)")
        }
    }
}

extension DecodingTests {
    /// libpng's reason reaches the error: libvips logs it as a warning and puts only
    /// "pngload_buffer failed" in its error buffer.
    @Test func aCorruptPNGHeaderErrorSaysWhatIsWrong() throws {
        let file = try #require(PngSuiteCorruptFiles.all.first { $0.name == "xc1n0g08" })
        #expect {
            try ImageCodersManager.shared.decode(try file.make(), options: ImageCoderOptions())
        } throws: { error in
            guard case .corruptData(format: .png, let reason) = error as? ImageCodingError else { return false }
            return reason.contains("Invalid color type in IHDR")
        }
    }
}
