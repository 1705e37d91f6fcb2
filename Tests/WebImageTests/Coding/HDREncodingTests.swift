import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// HDR on request (`decodeToHDR`): more than 8 bits kept with the source's colour encoding,
/// written back HDR to AVIF, HEIC, JPEG XL and PNG, and read back by libheif and libjxl.
@Suite(.offThePool) struct HDREncodingTests {
    static func decoded(_ file: String, hdr: Bool, thumbnail: CGSize = .zero) throws -> WebImage.Image {
        var options = ImageCoderOptions()
        options.decodeToHDR = hdr
        options.decodeThumbnailPixelSize = thumbnail
        return try ImageCodersManager.shared.decode(try TestImages.data(file), options: options)
    }

    /// How many distinct values the red samples take that an 8-bit sample widened (v * 257)
    /// could not.
    static func samplesBeyondEightBits(_ image: WebImage.Image) throws -> Int {
        try image.withUnsafeRGBA16Samples { samples in
            distinctValues(of: samples, channel: 0, bands: 4).filter { $0 % 257 != 0 }.count
        }
    }

    @Test(arguments: ["avif", "heic", "jxl"])
    func sdwebimagesHDRFileDecodesToMoreThanEightBitsOnlyOnRequest(format: String) throws {
        let hdr = try Self.decoded("sdwebimage/TestHDR.\(format)", hdr: true)
        #expect(hdr.bitsPerComponent == 16 && hdr.isHighDynamicRange)
        #expect(try Self.samplesBeyondEightBits(hdr) > 256)
        try hdr.withUnsafeRGBA16Samples { #expect($0.count == hdr.pixelWidth * hdr.pixelHeight * 4) }
        let sdr = try Self.decoded("sdwebimage/TestHDR.\(format)", hdr: false)
        #expect(sdr.bitsPerComponent == 8 && !sdr.isHighDynamicRange && sdr.colorInfo.isHighDynamicRange)
        #expect(try Self.samplesBeyondEightBits(sdr) == 0)
        // The 8-bit pixels of the HDR decode are the SDR decode's.
        #expect(hdr.pixel(x: 10, y: 10) == sdr.pixel(x: 10, y: 10))
    }

    @Test func aSixteenBitPNGKeepsSixteenBitsWithoutBeingHDRAndAnEightBitSourceStaysEightBits() throws {
        let png = try Self.decoded("libjpeg-turbo/monkey16.png", hdr: true)
        #expect(png.bitsPerComponent == 16 && !png.isHighDynamicRange)
        #expect(try Self.samplesBeyondEightBits(png) > 0)
        let jpeg = try Self.decoded("photos/rocket.jpg", hdr: true)
        #expect(jpeg.bitsPerComponent == 8 && !jpeg.isHighDynamicRange)
    }

    /// A 16-bit TIFF (monkey16.png's samples, written by libvips' tiffsave) keeps its 16 bits
    /// under the option, the same samples as the PNG, and is 8-bit without it.
    @Test func aSixteenBitTIFFKeepsSixteenBits() throws {
        let png = try TestImages.data("libjpeg-turbo/monkey16.png")
        let tiff = try VipsImageRef.load("pngload_buffer", data: png).save("tiffsave_buffer", options: "compression=deflate")
        var options = ImageCoderOptions()
        options.decodeToHDR = true
        let image = try ImageCodersManager.shared.decode(tiff, options: options)
        #expect(image.format == .tiff && image.bitsPerComponent == 16 && !image.isHighDynamicRange)
        let fromPNG = try Self.decoded("libjpeg-turbo/monkey16.png", hdr: true)
        try image.withUnsafeRGBA16Samples { tiffSamples in
            try fromPNG.withUnsafeRGBA16Samples { #expect(tiffSamples.elementsEqual($0)) }
        }
        #expect(try Self.samplesBeyondEightBits(image) > 0)
        #expect(try ImageCodersManager.shared.decode(tiff, options: ImageCoderOptions()).bitsPerComponent == 8)
    }

    static let roundTrips: [(String, ImageFormat)] = [
        ("hdr/chart-pq.avif", .avif), ("hdr/chart-pq.avif", .heic), ("hdr/chart-pq.avif", .jxl), ("hdr/chart-pq.avif", .png),
        ("hdr/chart-hlg.png", .avif), ("hdr/chart-hlg.png", .heic), ("hdr/chart-hlg.png", .jxl), ("hdr/chart-hlg.png", .png),
    ]

    @Test(arguments: roundTrips)
    func anHDRImageIsWrittenWithItsColourEncodingAndReadsBackAsTheSamePicture(file: String, format: ImageFormat) throws {
        let image = try Self.decoded(file, hdr: true)
        var options = ImageCoderOptions()
        options.encodeCompressionQuality = 0.95
        let data = try ImageCodersManager.shared.encode(image, format: format, options: options)
        // Read back through libheif (AVIF, HEIC), libjxl (JPEG XL) or the PNG's chunks.
        let header = try ImageHeader(probing: data)
        #expect(header.format == format)
        #expect(header.colorInfo.primaries == .bt2020 && header.colorInfo.transfer == image.colorInfo.transfer)
        #expect(header.colorInfo.bitsPerComponent >= 10, "\(header.colorInfo)")
        let layout = try HDRDecodingTests.layout(of: file)
        let back = try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
        let worst = HDRDecodingTests.worstDifference(back, layout: layout)
        #expect(worst.grey <= 2 && worst.saturated <= 5, "\(file) as \(format): worst CIEDE2000 \(worst)")
    }

    /// SDWebImage's four TestHDR files decoded HDR at 256 pixels wide, written to each format that
    /// keeps HDR and read back (libheif, libjxl, the PNG's `cICP`) with their primaries, PQ and
    /// more than 8 bits; decoded to SDR again, the PQ files still look like the reference
    /// rendering (the gain map's HDR rendition has no SDR reference but its base).
    @Test(arguments: ["avif", "heic", "jxl", "jpeg"])
    func sdwebimagesHDRFilesRoundTripThroughEachHDRFormat(source: String) throws {
        let image = try Self.decoded("sdwebimage/TestHDR.\(source)", hdr: true, thumbnail: CGSize(width: 256, height: 10_000))
        #expect(image.pixelWidth == 256 && image.isHighDynamicRange)
        for format in [ImageFormat.avif, .heic, .jxl, .png] {
            var options = ImageCoderOptions()
            options.encodeCompressionQuality = 0.95
            let data = try ImageCodersManager.shared.encode(image, format: format, options: options)
            let info = try ImageHeader(probing: data).colorInfo
            #expect(info.primaries == image.colorInfo.primaries && info.transfer == .pq && info.bitsPerComponent >= 10, "\(source) as \(format): \(info)")
            guard source != "jpeg" else { continue }
            let back = try ImageCodersManager.shared.decode(data, options: ImageCoderOptions())
            let reference = try TestImages.decoded(TestImages.data("hdr/TestHDR-\(source)-reference.png"))
            let difference = try HDRDecodingTests.difference(back, reference)
            // Measured: means 0.9 to 2.8, 99th percentiles 6 to 12. Not the direct decode's 1 and 4:
            // the HDR thumbnail is resized in PQ codes (the reference after tone mapping, in sRGB
            // codes: edges differ), AVIF and HEIC are lossy, and only JPEG XL carries TestHDR.jxl's
            // 2,182 cd/m² peak (elsewhere the tone mapper takes 1,000). A grey or crushed
            // picture measures above 8 on the mean.
            #expect(difference.mean <= 3.5 && difference.p99 <= 15, "\(source) as \(format): CIEDE2000 \(difference)")
        }
    }

    /// `encodeEffort` reaches the HDR encoders as it reaches libvips' savers: AVIF's libaom speed
    /// (9 - effort), JPEG XL's libjxl effort; another effort gives other bytes, still HDR.
    @Test(arguments: [(ImageFormat.avif, 2, 7), (.jxl, 3, 8)])
    func theEncodeEffortReachesTheHDREncoders(format: ImageFormat, lower: Int, higher: Int) throws {
        let image = try Self.decoded("sdwebimage/TestHDR.heic", hdr: true, thumbnail: CGSize(width: 150, height: 150))
        let encoded = try [lower, higher].map { effort in
            var options = ImageCoderOptions()
            options.encodeEffort = effort
            return try ImageCodersManager.shared.encode(image, format: format, options: options)
        }
        #expect(encoded[0] != encoded[1], "\(format): \(encoded.map(\.count)) bytes")
        for data in encoded {
            let info = try ImageHeader(probing: data).colorInfo
            #expect(info.transfer == .pq && info.bitsPerComponent >= 10, "\(info)")
        }
    }

    @Test func aThumbnailKeepsHDRAndItsSize() throws {
        let image = try Self.decoded("sdwebimage/TestHDR.heic", hdr: true, thumbnail: CGSize(width: 300, height: 300))
        #expect(image.pixelWidth == 300 && image.pixelHeight == 200 && image.isHighDynamicRange)
        try image.withUnsafeRGBA16Samples { #expect($0.count == 300 * 200 * 4) }
        let data = try ImageCodersManager.shared.encode(image, format: .heic, options: ImageCoderOptions())
        let header = try ImageHeader(probing: data)
        #expect(header.pixelWidth == 300 && header.colorInfo.transfer == .pq && header.colorInfo.bitsPerComponent == 10)
    }

    @Test func formatsWithoutHDRAndEncodeKeepsHDRFalseGetTheToneMappedSDR() throws {
        let image = try Self.decoded("hdr/chart-pq.avif", hdr: true)
        let layout = try HDRDecodingTests.layout(of: "hdr/chart-pq.avif")
        var sdrOnly = ImageCoderOptions()
        sdrOnly.encodeKeepsHDR = false
        for (format, options) in [(ImageFormat.avif, sdrOnly), (.png, sdrOnly), (.webP, ImageCoderOptions()), (.jpeg, ImageCoderOptions())] {
            var lossless = options
            lossless.encodeCompressionQuality = 1
            let data = try ImageCodersManager.shared.encode(image, format: format, options: lossless)
            let header = try ImageHeader(probing: data)
            #expect(header.colorInfo.bitsPerComponent == 8 && !header.colorInfo.isHighDynamicRange, "\(format): \(header.colorInfo)")
            let worst = HDRDecodingTests.worstDifference(try TestImages.decoded(data), layout: layout)
            #expect(worst.grey <= 2 && worst.saturated <= 5, "\(format): worst CIEDE2000 \(worst)")
        }
    }

    @Test func theContextsImageDecodeToHDRSetsTheCoderOption() {
        var context = WebImageContext()
        context.imageDecodeToHDR = true
        #expect(ImageDecoding.coderOptions(forName: nil, options: [], context: context).decodeToHDR)
        #expect(!ImageDecoding.coderOptions(forName: nil, options: [], context: nil).decodeToHDR)
    }
}
