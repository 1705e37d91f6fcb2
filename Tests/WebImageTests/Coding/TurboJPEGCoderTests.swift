import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

/// The TurboJPEG engine gives what the libvips coder gives, and hands over what it does not take.
@Suite(.offThePool) struct TurboJPEGCoderTests {
    static let smallJPEGs = [
        "sdwebimage/TestImage.jpg", "sdwebimage/MonochromeTestImage.jpg", "sdwebimage/TestICCProfile.jpg",
        "libjpeg-turbo/testorig.jpg", "libjpeg-turbo/testimgint.jpg", "libjpeg-turbo/testimgari.jpg",
        "photos/rocket.jpg", "exif-orientation/Landscape_3.jpg", "exif-orientation/Landscape_5.jpg",
        "exif-orientation/Landscape_8.jpg",
    ]

    /// The largest difference of one sample, over all pixels of two equally sized images.
    static func largestDifference(_ first: WebImage.Image, _ second: WebImage.Image) throws -> Int {
        try #require(first.pixelWidth == second.pixelWidth && first.pixelHeight == second.pixelHeight)
        return try first.withUnsafeRGBA8Bytes { a in
            try second.withUnsafeRGBA8Bytes { b in
                SampleDifference(a, bands: 4, b, bands: 4, pixels: first.pixelWidth * first.pixelHeight, channels: 4).largest
            }
        }
    }

    @Test(arguments: smallJPEGs)
    func decodesLikeLibvips(file: String) throws {
        let data = try TestImages.data(file)
        let ours = try TurboJPEGCoder.shared.decode(data, options: ImageCoderOptions())
        let libvips = try VipsImageCoder.shared.decode(data, options: ImageCoderOptions())
        // Both run libjpeg-turbo; colour conversion through lcms may round one step apart.
        #expect(try Self.largestDifference(ours, libvips) <= 3)
        #expect(ours.format == .jpeg && !ours.hasAlpha && ours.isDecoded)
    }

    @Test(arguments: ["photos/rocket.jpg", "sdwebimage/MonochromeTestImage.jpg", "libjpeg-turbo/testimgari.jpg",
                      "exif-orientation/Landscape_5.jpg", "exif-orientation/Landscape_6.jpg", "sdwebimage/TestImageLarge.jpg"])
    func thumbnailsMatchLibvips(file: String) throws {
        let data = try TestImages.data(file)
        // Boxes chosen to land on every DCT scale and on rounding ties (450x297 on the 1800x1200 photos).
        for width in [10.0, 55, 64, 150, 299, 450, 1000] {
            for height in [0.0, 36, 46, 100, 297] {
                for keepAspect in [true, false] {
                    var options = ImageCoderOptions()
                    options.decodeThumbnailPixelSize = CGSize(width: width, height: height)
                    options.decodePreserveAspectRatio = keepAspect
                    options.decodeUseLazyDecoding = true
                    let ours = try TurboJPEGCoder.shared.decode(data, options: options)
                    let libvips = try VipsImageCoder.shared.decode(data, options: options)
                    #expect(ours.pixelWidth == libvips.pixelWidth && ours.pixelHeight == libvips.pixelHeight, "\(width)x\(height)")
                }
            }
        }
        // libvips' thumbnail of the file loaded at the DCT scale ours decodes at: the same
        // Lanczos-3 resize, colour conversion and orientation, so nearly the same pixels.
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 100, height: 100)
        let ours = try TurboJPEGCoder.shared.decode(data, options: options)
        #expect(try ours.withUnsafeRGBA8Bytes { $0.count } == ours.pixelWidth * ours.pixelHeight * 4)
        let header = try #require(TurboJPEG.header(of: data))
        let upright = try VipsImageRef.load("jpegload_buffer", data: data)
        let stored = upright.orientation >= 5 ? (ours.pixelHeight, ours.pixelWidth) : (ours.pixelWidth, ours.pixelHeight)
        let shrink = TurboJPEG.shrink(header, covering: (width: stored.0, height: stored.1))
        let reference = try VipsImageRef.load("jpegload_buffer", data: data, options: "shrink=\(shrink)")
            .call("thumbnail_image", "width=\(ours.pixelWidth),height=\(ours.pixelHeight),size=force")
        // libvips' 8-bit resize is a few levels from the exact result (6-bit weights in its
        // vector path: ResamplingTests), ours within 2.
        let difference = try PixelDifference(ours, try Self.sRGB(reference).render())
        #expect(difference.mean < 0.5 && difference.largest <= 6, "\(difference)")
    }

    /// `image` in 8-bit sRGB, as libvips converts it: its profile through icc_transform, grey to sRGB.
    static func sRGB(_ image: VipsImageRef) throws -> VipsImageRef {
        if image.hasICCProfile, let profile = image.iccProfile, profile.range(of: Data("sRGB".utf8)) == nil {
            return try image.call("icc_transform", "output_profile=srgb,embedded=true,depth=8")
        }
        return image.bands < 3 ? try image.call("colourspace", "space=srgb") : image
    }

    /// A thumbnail of every EXIF orientation sample: the same upright picture as orientation 1's.
    @Test func everyOrientationGivesTheSameUprightThumbnail() throws {
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 150, height: 150)
        let upright = try TurboJPEGCoder.shared.decode(try TestImages.data("exif-orientation/Landscape_1.jpg"), options: options)
        for orientation in 2...8 {
            let turned = try TurboJPEGCoder.shared.decode(try TestImages.data("exif-orientation/Landscape_\(orientation).jpg"), options: options)
            #expect(turned.pixelWidth == upright.pixelWidth && turned.pixelHeight == upright.pixelHeight)
            // The samples are separate JPEG encodes of the turned picture: close, not equal.
            #expect(try PixelDifference(turned, upright).mean < 2, "orientation \(orientation)")
        }
    }

    /// TurboJPEG keeps a decoder per thread: one that stopped at a broken file must not fail
    /// (and hand to libvips) the next good file on that thread. TurboJPEG 2.1 leaves a decoder
    /// that failed on a 12-bit header unable to read any header after it.
    @Test func aBrokenFileDoesNotSpoilTheNextDecodeOnItsThread() throws {
        let data = try TestImages.data("photos/rocket.jpg")
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 100, height: 100)
        let before = try TurboJPEGCoder.shared.decode(data, options: options)
        // libvips' thumbnail differs from ours: a decode handed to libvips would show.
        #expect(try PixelDifference(before, try VipsImageCoder.shared.decode(data, options: options)).largest > 0)
        for broken in [data.prefix(data.count / 2), try TestImages.data("libjpeg-turbo/monkey12.jpg")] {
            #expect(throws: ImageCodingError.self) { try TurboJPEGCoder.shared.decode(broken, options: options) }
            let after = try TurboJPEGCoder.shared.decode(data, options: options)
            #expect(try PixelDifference(after, before).largest == 0)
        }
    }

    @Test func concurrentDecodesGiveWhatSerialDecodesGive() async throws {
        let files = Self.smallJPEGs
        var thumbnail = ImageCoderOptions()
        thumbnail.decodeThumbnailPixelSize = CGSize(width: 120, height: 90)
        let options = thumbnail
        let serial = try files.map { try TurboJPEGCoder.shared.decode(try TestImages.data($0), options: options) }
        let parallel = try await withThrowingTaskGroup(of: (Int, WebImage.Image).self) { group in
            for round in 0..<4 {
                for (index, file) in files.enumerated() {
                    let data = try TestImages.data(file)
                    group.addTask {
                        // Every other round truncated first, to interleave failures with decodes.
                        if round % 2 == 1 { _ = try? await BlockingPool.run { try TurboJPEGCoder.shared.decode(data.prefix(data.count / 3), options: options) } }
                        return (index, try await BlockingPool.run { try TurboJPEGCoder.shared.decode(data, options: options) })
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(parallel.count == files.count * 4)
        for (index, image) in parallel {
            #expect(try PixelDifference(image, serial[index]).largest == 0, "\(files[index])")
        }
    }

    /// Progressive photos: TestImageLarge.jpg and MonochromeTestImage.jpg as they are,
    /// rocket.jpg and hubble_deep_field.jpg saved progressive (4:2:0 and 4:4:4) by libvips, and
    /// rocket.jpg with its chroma AC scans split at coefficient 4 (a fixture).
    static func progressiveJPEGs() throws -> [(String, Data)] {
        var files = try ["sdwebimage/TestImageLarge.jpg", "sdwebimage/MonochromeTestImage.jpg"].map { ($0, try TestImages.data($0)) }
        files.append(("rocket-progressive-split-chroma.jpg", try TestImages.fixture("rocket-progressive-split-chroma.jpg")))
        for (file, options) in [("photos/rocket.jpg", "interlace=true,Q=85"), ("photos/hubble_deep_field.jpg", "interlace=true,Q=95")] {
            let saved = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data(file)).save("jpegsave_buffer", options: options)
            files.append(("\(file) progressive", saved))
        }
        return files
    }

    /// At 1/8 a progressive file is read from its DC scans alone: the same pixels as libvips'
    /// reading of the whole file at 1/8, sample for sample.
    @Test func progressiveFilesAtOneEighthReadOnlyTheirDCScansToTheSamePixels() throws {
        for (name, data) in try Self.progressiveJPEGs() {
            let header = try #require(TurboJPEG.header(of: data))
            let used = (width: header.width / 8, height: header.height / 8)
            // Resampled to its own size: a copy, so the decode itself is compared.
            let ours = try TurboJPEG.thumbnail(data, header: header, shrink: 8, size: used, colourProfile: nil, orientation: 1)
            let image = try ours.image()
            var reference = try VipsImageRef.load("jpegload_buffer", data: data, options: "shrink=8")
            if reference.bands < 3 { reference = try reference.call("colourspace", "space=srgb") }
            #expect(try PixelDifference(image, try reference.render()).largest == 0, "\(name)")
            // Less to read: the scans a 1/8 decode skips are left out.
            let read = try #require(TurboJPEG.scansReadAtOneEighth(of: data), "\(name)")
            #expect(read.count < data.count * 3 / 4, "\(name)")
        }
    }

    /// Scans a 1/8 decode does not need are not read at all: one filled with invalid Huffman
    /// codes stops a reading of the whole file, not ours. Baseline files have nothing to skip.
    @Test func theSkippedScansAreNotRead() throws {
        let original = try TestImages.data("sdwebimage/TestImageLarge.jpg")
        var bytes = [UInt8](original)
        // The last scan: AC coefficients only (its spectral selection starts above 0).
        let scan = try #require(Self.scanStarts(bytes).last)
        let components = Int(bytes[scan + 4])
        #expect(bytes[scan + 5 + 2 * components] > 0)
        let entropy = scan + 8 + 2 * components
        var end = entropy
        while !(bytes[end] == 0xFF && bytes[end + 1] != 0 && !(0xD0...0xD7).contains(bytes[end + 1])) { end += 1 }
        // All one bits (0xFF, stuffed with 0x00): never a valid Huffman code.
        for index in stride(from: entropy, to: end - 1, by: 2) { (bytes[index], bytes[index + 1]) = (0xFF, 0x00) }
        let broken = Data(bytes)
        #expect(throws: VipsError.self) { try VipsImageRef.load("jpegload_buffer", data: broken, options: "shrink=8,fail_on=warning").render() }
        let header = try #require(TurboJPEG.header(of: broken))
        let used = (width: header.width / 8, height: header.height / 8)
        let ours = try TurboJPEG.thumbnail(broken, header: header, shrink: 8, size: used, colourProfile: nil, orientation: 1)
        let intact = try VipsImageRef.load("jpegload_buffer", data: original, options: "shrink=8").render()
        #expect(try PixelDifference(try ours.image(), intact).largest == 0)
        #expect(TurboJPEG.scansReadAtOneEighth(of: try TestImages.data("photos/rocket.jpg")) == nil)
    }

    /// Where each scan (0xFF 0xDA) of a JPEG starts.
    static func scanStarts(_ bytes: [UInt8]) throws -> [Int] {
        var starts: [Int] = []
        var index = try JPEGSegments(bytes).scanStart
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF && bytes[index + 1] == 0xDA { starts.append(index) }
            if bytes[index] == 0xFF && bytes[index + 1] == 0xD9 { break }
            index += 1
        }
        return starts
    }

    @Test func aProgressiveFileCutShortIsStillAnErrorAtOneEighth() throws {
        let data = try TestImages.data("sdwebimage/TestImageLarge.jpg")
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 100, height: 100)
        for fraction in [0.1, 0.5, 0.99] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            #expect(throws: ImageCodingError.self, "\(fraction)") { try TurboJPEGCoder.shared.decode(cut, options: options) }
        }
    }

    static func rocketWithStrayBytes() throws -> Data {
        var bytes = [UInt8](try TestImages.data("photos/rocket.jpg"))
        bytes.insert(contentsOf: [0x00, 0x00], at: try JPEGSegments(bytes).scanStart)
        return Data(bytes)
    }

    @Test func strayBytesDecodeLikeLibvipsAndATruncatedStreamIsStillAnError() throws {
        let data = try Self.rocketWithStrayBytes()
        let ours = try TurboJPEGCoder.shared.decode(data, options: ImageCoderOptions())
        #expect(try Self.largestDifference(ours, try VipsImageCoder.shared.decode(data, options: ImageCoderOptions())) <= 3)
        for fraction in [0.5, 0.9] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            #expect(throws: ImageCodingError.self) { try TurboJPEGCoder.shared.decode(cut, options: ImageCoderOptions()) }
            var lazy = ImageCoderOptions()
            lazy.decodeUseLazyDecoding = true
            let image = try TurboJPEGCoder.shared.decode(cut, options: lazy)
            #expect(throws: (any Error).self) { try image.withUnsafeRGBA8Bytes { $0.count } }
        }
    }

    @Test func onlyRGBProfilesAreConvertedHere() throws {
        let adobe = try #require(try VipsImageRef.load("jpegload_buffer", data: try TestImages.data("photos/rocket.jpg")).iccProfile)
        #expect(ColourConversion.supports(adobe))
        let cmyk = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data("photos/rocket.jpg"))
            .call("icc_transform", "output_profile=cmyk,embedded=true")
        let cmykProfile = try #require(cmyk.iccProfile)
        #expect(!ColourConversion.supports(cmykProfile))
        #expect(!ColourConversion.supports(Data(adobe.prefix(300))))
        #expect(!ColourConversion.supports(Data("not a profile".utf8)))
        // A CMYK JPEG goes to libvips, which converts it.
        let cmykJPEG = try cmyk.save("jpegsave_buffer")
        let image = try TurboJPEGCoder.shared.decode(cmykJPEG, options: ImageCoderOptions())
        #expect(image.pixelWidth == 640 && !image.hasAlpha)
        #expect(try Self.largestDifference(image, try VipsImageCoder.shared.decode(cmykJPEG, options: ImageCoderOptions())) == 0)
    }

    @Test func encodesAJPEGOfTheSameSizeAndQualityOrder() throws {
        let image = try TestImages.decoded(try TestImages.data("photos/rocket.jpg"))
        var low = ImageCoderOptions()
        low.encodeCompressionQuality = 0.1
        var high = ImageCoderOptions()
        high.encodeCompressionQuality = 0.9
        let small = try TurboJPEGCoder.shared.encode(image, format: .jpeg, options: low)
        let large = try TurboJPEGCoder.shared.encode(image, format: .jpeg, options: high)
        #expect(ImageFormat(sniffing: small) == .jpeg && small.count < large.count)
        let back = try VipsImageCoder.shared.decode(large, options: ImageCoderOptions())
        #expect(back.pixelWidth == 640 && back.pixelHeight == 427)
        // Same quality scale as libvips: the two outputs are within a fifth of each other.
        let libvips = try VipsImageCoder.shared.encode(image, format: .jpeg, options: high)
        #expect(abs(large.count - libvips.count) * 5 < libvips.count)
    }

    /// Default options, their time budget stretched under a sanitizer as the tests' bounds are:
    /// a whole-suite ThreadSanitizer run, about 5 times slower, had the 2000x2000 thumbnail of
    /// TestImageLarge.jpg (18 MP, progressive) below stopped by its 2 s budget.
    static var sanitizerOptions: ImageCoderOptions {
        var options = ImageCoderOptions()
        let budget = options.decodeTimeBudget
        options.decodeTimeBudget = DecodeTimeBudget(
            thumbnail: TestAllowance.time(budget.thumbnail), fullSize: TestAllowance.time(budget.fullSize),
            animation: TestAllowance.time(budget.animation)
        )
        return options
    }

    @Test func handsOverWhatItDoesNotTake() throws {
        // Alpha to flatten: libvips blends it onto the background.
        let transparent = try TestImages.decoded(try TestImages.data("sdwebimage/TestImage.png"))
        #expect(transparent.hasAlpha)
        let flattened = try TurboJPEGCoder.shared.encode(transparent, format: .jpeg, options: ImageCoderOptions())
        #expect(try TestImages.decoded(flattened).pixel(x: 0, y: 0) == RGBA8(red: 255, green: 255, blue: 255, alpha: 255))
        // Other formats and large images go to libvips too.
        #expect(try ImageFormat(sniffing: TurboJPEGCoder.shared.encode(transparent, format: .png, options: ImageCoderOptions())) == .png)
        let large = try TurboJPEGCoder.shared.decode(try TestImages.data("sdwebimage/TestImageLarge.jpg"), options: {
            var options = ImageCoderOptions()
            options.decodeUseLazyDecoding = true
            return options
        }())
        #expect(large.pixelWidth == 5250 && large.pixelHeight == 3450)
        // A thumbnail whose DCT-scaled decode would pass 4 megapixels (2625x1725 here): libvips'
        // own thumbnail, sample for sample.
        var big = Self.sanitizerOptions
        big.decodeThumbnailPixelSize = CGSize(width: 2000, height: 2000)
        let data = try TestImages.data("sdwebimage/TestImageLarge.jpg")
        let handedOver = try TurboJPEGCoder.shared.decode(data, options: big)
        #expect(try PixelDifference(handedOver, try VipsImageCoder.shared.decode(data, options: big)).largest == 0)
        // A file TurboJPEG cannot read (12-bit) gets libvips' typed error.
        #expect(throws: ImageCodingError.self) { try TurboJPEGCoder.shared.decode(try TestImages.data("libjpeg-turbo/monkey12.jpg"), options: ImageCoderOptions()) }
    }

    /// A full decode over 4 MP that is not lazy, of a file with no profile, is TurboJPEG's
    /// (straight to RGBA): libvips' samples exactly, upright, and a spent time budget stops it
    /// with the budget's typed error, a sequential file (5 MP, made here) as well as a
    /// progressive one (TestImageLarge.jpg, 18 MP).
    @Test func largeFullDecodesGiveLibvipsSamplesAndStopOnTheirBudget() throws {
        let progressive = try TestImages.data("sdwebimage/TestImageLarge.jpg")
        var shrunk = Self.sanitizerOptions
        shrunk.decodeThumbnailPixelSize = CGSize(width: 2_800, height: 2_800)
        let sequential = try VipsImageCoder.shared.encode(
            try VipsImageCoder.shared.decode(progressive, options: shrunk), format: .jpeg, options: ImageCoderOptions()
        )
        #expect(DecodeCost.progressiveJPEGScans(in: sequential, countingUpTo: 1) == 0)
        for data in [sequential, progressive] {
            let ours = try TurboJPEGCoder.shared.decode(data, options: Self.sanitizerOptions)
            let libvips = try VipsImageCoder.shared.decode(data, options: Self.sanitizerOptions)
            #expect(ours.pixelWidth * ours.pixelHeight > 4_000_000 && ours.isDecoded)
            #expect(try Self.largestDifference(ours, libvips) == 0)
            var spent = ImageCoderOptions()
            spent.decodeTimeBudget = DecodeTimeBudget(thumbnail: .milliseconds(1), fullSize: .milliseconds(1), animation: .milliseconds(1))
            let error = #expect(throws: ImageCodingError.self) { try TurboJPEGCoder.shared.decode(data, options: spent) }
            guard case .overLimit(.jpeg, let reason)? = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
            #expect(reason.contains("decodeTimeBudget"), "\(reason)")
        }
    }

    /// An image over 4 MP that holds its pixels (TestImageLarge.jpg decoded whole, 18 MP) is
    /// encoded by TurboJPEG straight from them: a JPEG of its size, within a fifth of libvips'
    /// bytes at the same quality and decoding to nearly libvips' pixels.
    @Test func aLargeDecodedImageEncodesLikeLibvips() throws {
        let image = try TurboJPEGCoder.shared.decode(try TestImages.data("sdwebimage/TestImageLarge.jpg"), options: Self.sanitizerOptions)
        #expect(image.isDecoded)
        let ours = try TurboJPEGCoder.shared.encode(image, format: .jpeg, options: ImageCoderOptions())
        let libvips = try VipsImageCoder.shared.encode(image, format: .jpeg, options: ImageCoderOptions())
        #expect(abs(ours.count - libvips.count) * 5 < libvips.count)
        let back = try VipsImageCoder.shared.decode(ours, options: Self.sanitizerOptions)
        #expect(back.pixelWidth == 5_250 && back.pixelHeight == 3_450)
        let difference = try PixelDifference(back, try VipsImageCoder.shared.decode(libvips, options: Self.sanitizerOptions))
        #expect(difference.mean < 1, "\(difference)")
    }

    @Test(arguments: [0.1, 0.5, 0.99])
    func aTruncatedJPEGIsAnError(fraction: Double) throws {
        let data = try TestImages.data("photos/rocket.jpg")
        let cut = data.prefix(Int(Double(data.count) * fraction))
        #expect(throws: ImageCodingError.self) { try TurboJPEGCoder.shared.decode(cut, options: ImageCoderOptions()) }
    }
}
