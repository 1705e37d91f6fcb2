import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// HDR and wide-gamut sources: what their files say about their colour, and SDR pixels that
/// match an independent reference (Tests/Images/hdr/chart.json and TestHDR-*-reference.png,
/// computed with colour-science by scripts/hdr/charts.py) on every path that makes 8-bit pixels.
@Suite(.offThePool) struct HDRDecodingTests {
    struct Chart: Decodable {
        struct Patch: Decodable {
            var kind: String
            var x: Int
            var y: Int
            var code10: [Int]
            var srgb: [Double]
        }
        struct Layout: Decodable {
            var width: Int
            var height: Int
            var patches: [Patch]
        }
        struct DifferenceCheck: Decodable {
            var lab1: [Double]
            var lab2: [Double]
            var deltaE: Double
        }
        var pq: Layout
        var hlg: Layout
        var ciede2000: [DifferenceCheck]
    }

    static let chart: Chart? = try? JSONDecoder().decode(Chart.self, from: TestImages.data("hdr/chart.json"))

    static func layout(of file: String) throws -> Chart.Layout {
        let chart = try #require(Self.chart)
        return file.contains("-hlg") ? chart.hlg : chart.pq
    }

    /// The worst CIEDE2000 of the grey and of the saturated patches of `image` (the chart at
    /// `scale` of its size) against the reference, each read as the mean of the patch's
    /// central 4x4 pixels.
    static func worstDifference(_ image: WebImage.Image, layout: Chart.Layout, scale: Double = 1) -> (grey: Double, saturated: Double) {
        var worst = (grey: 0.0, saturated: 0.0)
        for patch in layout.patches {
            var sum = [0.0, 0.0, 0.0]
            let centreX = Int(Double(patch.x) * scale), centreY = Int(Double(patch.y) * scale)
            for dy in -2..<2 {
                for dx in -2..<2 {
                    guard let pixel = image.pixel(x: centreX + dx, y: centreY + dy) else { return (.infinity, .infinity) }
                    sum[0] += Double(pixel.red) / 16
                    sum[1] += Double(pixel.green) / 16
                    sum[2] += Double(pixel.blue) / 16
                }
            }
            let difference = ColourDifference.ciede2000(sRGB: sum, patch.srgb)
            if patch.kind == "grey" { worst.grey = max(worst.grey, difference) } else { worst.saturated = max(worst.saturated, difference) }
        }
        return worst
    }

    @Test func theTestsCIEDE2000AgreesWithColourScience() throws {
        let checks = try #require(Self.chart).ciede2000
        #expect(checks.count == 6)
        for check in checks {
            let ours = ColourDifference.ciede2000(
                (check.lab1[0], check.lab1[1], check.lab1[2]), (check.lab2[0], check.lab2[1], check.lab2[2])
            )
            #expect(abs(ours - check.deltaE) < 0.001, "\(check.lab1) \(check.lab2): \(ours), colour-science \(check.deltaE)")
        }
    }

    @Test func theColourEachSourceDeclaresIsReadFromTheFile() throws {
        let avif = try ImageHeader(probing: TestImages.data("sdwebimage/TestHDR.avif")).colorInfo
        #expect(avif.primaries == .bt2020 && avif.transfer == .pq && avif.bitsPerComponent == 10)
        #expect(avif.matrixCoefficients == 9 && !avif.isFullRange && avif.isHighDynamicRange && avif.isWideGamut)
        #expect(abs(avif.headroom - 1000 / 203) < 0.001)
        let heic = try ImageHeader(probing: TestImages.data("sdwebimage/TestHDR.heic")).colorInfo
        #expect(heic.primaries == .bt2020 && heic.transfer == .pq && heic.bitsPerComponent == 10 && heic.isFullRange)
        // JPEG XL states its peak: 2,182 cd/m² (jxlinfo's intensity_target).
        let jxl = try ImageHeader(probing: TestImages.data("sdwebimage/TestHDR.jxl")).colorInfo
        #expect(jxl.primaries == .bt2020 && jxl.transfer == .pq && jxl.peakLuminance == 2182)
        #expect(abs(jxl.headroom - 2182 / 203) < 0.001)
        let hlg = try ImageHeader(probing: TestImages.data("hdr/chart-hlg.png")).colorInfo
        #expect(hlg.primaries == .bt2020 && hlg.transfer == .hlg && hlg.bitsPerComponent == 16 && hlg.isHighDynamicRange)
        // The gain-map JPEG's base image is 8-bit SDR, with a map to HDR (GainMapHDRTests); an
        // Adobe RGB JPEG and a 16-bit PNG say no CICP.
        let gainMap = try ImageHeader(probing: TestImages.data("sdwebimage/TestHDR.jpeg")).colorInfo
        #expect(gainMap.transfer == .unspecified && gainMap.bitsPerComponent == 8 && gainMap.gainMap != nil && gainMap.isHighDynamicRange)
        let rocket = try ImageHeader(probing: TestImages.data("photos/rocket.jpg")).colorInfo
        #expect(rocket == ImageColorInfo(bitsPerComponent: 8, hasICCProfile: true))
        let sixteen = try ImageHeader(probing: TestImages.data("sdwebimage/RGBA16PNG.png")).colorInfo
        #expect(sixteen.bitsPerComponent == 16 && sixteen.transfer == .unspecified && !sixteen.isHighDynamicRange)
        // The decoded image says the same.
        let decoded = try TestImages.decoded(TestImages.data("sdwebimage/TestHDR.heic"))
        #expect(decoded.colorInfo == heic)
    }

    /// An nclx box whose code points libheif does not know (3 is a reserved primaries code) says
    /// nothing: the file reads as declaring no CICP and decodes as one without. (libheif 1.15
    /// returns such a profile allocated with its error; the fuzz regression
    /// decodable-avif-nclx-unknown-codes.avif, run under LeakSanitizer by scripts/fuzz.sh, is the leak.)
    @Test func anNCLXBoxWithUnknownCodesDeclaresNothing() throws {
        var bytes = [UInt8](try TestImages.data("sdwebimage/TestHDR.avif"))
        let colr = try #require(bytes.indices.dropLast(12).first { Array(bytes[$0..<$0 + 8]) == Array("colrnclx".utf8) })
        #expect(bytes[colr + 8] == 0 && bytes[colr + 9] == 9)
        bytes[colr + 9] = 3
        let info = try ImageHeader(probing: Data(bytes)).colorInfo
        #expect(info.primaries == .unspecified && info.transfer == .unspecified && !info.isHighDynamicRange)
        #expect(info.bitsPerComponent == 10)
        let image = try ImageCodersManager.shared.decode(Data(bytes), options: ImageCoderOptions())
        #expect(image.pixelWidth > 0 && !image.colorInfo.isHighDynamicRange)
    }

    static let charts = ["hdr/chart-pq.avif", "hdr/chart-pq.jxl", "hdr/chart-pq.png", "hdr/chart-hlg.avif", "hdr/chart-hlg.png"]

    @Test(arguments: charts)
    func aChartDecodesToTheReferencesSDRWithinTwoOnGreyAndFiveOnSaturatedColours(file: String) throws {
        let layout = try Self.layout(of: file)
        let data = try TestImages.data(file)
        var lazy = ImageCoderOptions()
        lazy.decodeUseLazyDecoding = true
        for options in [ImageCoderOptions(), lazy] {
            let image = try ImageCodersManager.shared.decode(data, options: options)
            #expect(image.pixelWidth == layout.width && image.pixelHeight == layout.height)
            let worst = Self.worstDifference(image, layout: layout)
            #expect(worst.grey <= 2, "\(file) grey ramp: worst CIEDE2000 \(worst.grey)")
            #expect(worst.saturated <= 5, "\(file) saturated patches: worst CIEDE2000 \(worst.saturated)")
        }
    }

    @Test(arguments: ["hdr/chart-pq.avif", "hdr/chart-hlg.png"])
    func aChartsThumbnailIsToneMappedToo(file: String) throws {
        let layout = try Self.layout(of: file)
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: layout.width / 2, height: layout.height / 2)
        let image = try ImageCodersManager.shared.decode(try TestImages.data(file), options: options)
        #expect(image.pixelWidth == layout.width / 2 && image.pixelHeight == layout.height / 2)
        let worst = Self.worstDifference(image, layout: layout, scale: 0.5)
        #expect(worst.grey <= 2 && worst.saturated <= 5, "\(file) thumbnail: worst CIEDE2000 \(worst)")
    }

    /// The mean and 99th percentile CIEDE2000 of `image` against `reference`, pixel by pixel.
    static func difference(_ image: WebImage.Image, _ reference: WebImage.Image) throws -> (mean: Double, p99: Double) {
        try #require(image.pixelWidth == reference.pixelWidth && image.pixelHeight == reference.pixelHeight)
        var differences = try image.withUnsafeRGBA8Bytes { ours in
            try reference.withUnsafeRGBA8Bytes { theirs in
                ColourDifference.ciede2000(rgba8: ours, theirs, pixels: image.pixelWidth * image.pixelHeight)
            }
        }
        differences.sort()
        return (differences.reduce(0, +) / Double(differences.count), differences[differences.count * 99 / 100])
    }

    @Test(arguments: ["avif", "heic", "jxl"])
    func sdwebimagesHDRFileLooksLikeTheReferenceNotGreyOrCrushed(format: String) throws {
        let data = try TestImages.data("sdwebimage/TestHDR.\(format)")
        let reference = try TestImages.decoded(TestImages.data("hdr/TestHDR-\(format)-reference.png"))
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 256, height: 10_000)
        let image = try ImageCodersManager.shared.decode(data, options: options)
        let ours = try Self.difference(image, reference)
        #expect(ours.mean <= 1 && ours.p99 <= 4, "TestHDR.\(format): CIEDE2000 mean \(ours.mean), 99th percentile \(ours.p99)")
        // What libvips alone makes of the file (the samples read as sRGB, the grey or crushed
        // picture this replaced) is far from the reference: the measure tells them apart.
        let loader = format == "jxl" ? "jxlload_buffer" : "heifload_buffer"
        let plain = try VipsImageRef.load(loader, data: data).normalizedToSRGB().thumbnail(width: 256, height: 10_000, sizing: .down)
        let pixels = try plain.renderRGBA()
        let bytes = pixels.withUnsafeBytes { Data($0) }
        let made: WebImage.Image? = WebImage.Image(rgba8Pixels: bytes, width: pixels.width, height: pixels.height)
        let libvipsImage = try #require(made)
        let libvipsAlone = try Self.difference(libvipsImage, reference)
        #expect(libvipsAlone.mean > 8, "libvips alone: CIEDE2000 mean \(libvipsAlone.mean)")
    }

    @Test func theGainMapJPEGDecodesAsItsSDRBaseImage() throws {
        var options = ImageCoderOptions()
        options.decodeThumbnailPixelSize = CGSize(width: 300, height: 300)
        let image = try ImageCodersManager.shared.decode(try TestImages.data("sdwebimage/TestHDR.jpeg"), options: options)
        #expect(image.format == .jpeg && !image.colorInfo.isHighDynamicRange && image.colorInfo.bitsPerComponent == 8)
        #expect(image.pixelHeight == 300 && image.pixelWidth == 200)
    }
}

/// The tone mapper's tables are kept for 32 encodings; files of more encodings than that still
/// decode (tables of their own past the 32).
@Suite(.offThePool) struct ToneMapTableTests {
    /// chart-pq.png with its cICP chunk saying `primaries` and `transfer` instead.
    static func chart(primaries: UInt8, transfer: UInt8) throws -> Data {
        var png = try TestImages.data("hdr/chart-pq.png")
        // The cICP chunk follows IHDR: length at 33, type at 37, body at 41, CRC at 45.
        try #require(png[37..<41] == Data("cICP".utf8))
        png[41] = primaries
        png[42] = transfer
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in png[37..<45] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        png.replaceSubrange(45..<49, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        return png
    }

    @Test func moreEncodingsThanTheTablesKeptStillDecode() throws {
        var decoded = 0
        for transfer: UInt8 in [16, 18, 1, 4, 8, 13] {
            for primaries: UInt8 in [9, 12, 11, 5, 6, 7] {
                let image = try TestImages.decoded(try Self.chart(primaries: primaries, transfer: transfer))
                #expect(image.colorInfo.transfer.rawValue == Int(transfer) && image.colorInfo.primaries.rawValue == Int(primaries))
                #expect(image.pixel(x: 0, y: 0) == RGBA8(red: 0, green: 0, blue: 0))
                decoded += 1
            }
        }
        #expect(decoded == 36)
    }
}
