import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

/// Ultra HDR / Adobe gain-map JPEGs (SDWebImage's TestHDR.jpeg): the map and its `hdrgm:`
/// metadata read (ISO 21496-1's box: GainMapISOTests), the HDR rendition made on request as an
/// independent implementation makes it, the SDR decode the base image; malformed files read as
/// plain JPEGs.
@Suite(.offThePool) struct GainMapHDRTests {
    static let file = "sdwebimage/TestHDR.jpeg"
    /// The gain map's bytes at the end of the file (its XMP container's `Item:Length`).
    static let mapLength = 398_889

    /// TestHDR.jpeg carries both forms: its map's ISO 21496-1 record (fractions over 4096 and
    /// 2^28, as Skia writes them) is read; without it, the `hdrgm:` XMP, which says the same
    /// numbers in decimals.
    @Test func theGainMapAndItsMetadataAreRead() throws {
        let data = try TestImages.data(Self.file)
        let info = try ImageHeader(probing: data).colorInfo
        let gainMap = try #require(info.gainMap)
        let minimum: [Double] = [-4941 / 4096, -234_789_760 / 268_435_456, -181_353_136 / 268_435_456]
        let maximum: [Double] = [17_827 / 4096, 18_098 / 4096, 18_563 / 4096]
        let gamma: [Double] = [117_033_552 / 268_435_456, 100_008_048 / 268_435_456, 95_106_416 / 268_435_456]
        #expect(gainMap.minimumLog2 == minimum && gainMap.maximumLog2 == maximum && gainMap.gamma == gamma)
        #expect(gainMap.usesBaseColourSpace)
        #expect(gainMap.offsetSDR == [0.015625, 0.015625, 0.015625] && gainMap.offsetHDR == [0.015625, 0.015625, 0.015625])
        #expect(gainMap.capacityMinimumLog2 == 0 && gainMap.capacityMaximumLog2 == 4)
        #expect(gainMap.pixelWidth == 1662 && gainMap.pixelHeight == 2493)
        var withoutISO = data
        let name = try #require(data.range(of: Data(GainMapJPEG.isoSignature), in: (data.count - Self.mapLength)..<data.count))
        withoutISO[name.lowerBound] = UInt8(ascii: "x")
        let fromXMP = try #require(GainMapJPEG(withoutISO)).info
        #expect(fromXMP.minimumLog2 == [-1.206404, -0.87466002, -0.67559308])
        #expect(fromXMP.maximumLog2 == [4.3523002, 4.4183459, 4.5319371])
        #expect(fromXMP.gamma == [0.43598396, 0.37255901, 0.35429901])
        #expect(fromXMP.capacityMaximumLog2 == 4 && fromXMP.offsetSDR == gainMap.offsetSDR)
        #expect(info.isHighDynamicRange && info.headroom == 16 && info.bitsPerComponent == 8)
        #expect(gainMap.weight(displayHeadroom: 1) == 0 && gainMap.weight(displayHeadroom: 4) == 0.5 && gainMap.weight(displayHeadroom: 32) == 1)
        #expect(try ImageHeader(probing: try TestImages.data("photos/rocket.jpg")).colorInfo.gainMap == nil)
    }

    /// The rendition against scripts/hdr/gainmap.py's (djpeg, numpy and colour-science, from
    /// the specification's formula), compared as the means of 8x8 blocks of PQ codes.
    @Test func anHDRDecodeAppliesTheGainMapAsAnIndependentImplementationDoes() throws {
        let hdr = try HDREncodingTests.decoded(Self.file, hdr: true)
        #expect(hdr.bitsPerComponent == 16 && hdr.isHighDynamicRange)
        #expect(hdr.colorInfo.transfer == .pq && hdr.colorInfo.primaries == .bt709 && hdr.colorInfo.gainMap != nil)
        #expect(try HDREncodingTests.samplesBeyondEightBits(hdr) > 256)
        let (worst, mean) = try Self.blockMeanDifference(hdr, from: "hdr/TestHDR-jpeg-gainmap-reference.png")
        // Measured: worst 1.5e-5 (one code of 65535), mean 3e-6.
        #expect(worst <= 0.0002 && mean <= 0.00005, "PQ signal: worst \(worst), mean \(mean)")
    }

    /// The worst and mean difference, as a fraction of full signal, of the means of `hdr`'s 8x8
    /// blocks of 16-bit samples from a reference of those means (one pixel a block).
    static func blockMeanDifference(_ hdr: WebImage.Image, from referenceFile: String) throws -> (worst: Double, mean: Double) {
        let reference = try HDREncodingTests.decoded(referenceFile, hdr: true)
        let (columns, rows) = (reference.pixelWidth, reference.pixelHeight)
        #expect(columns == hdr.pixelWidth / 8 && rows == hdr.pixelHeight / 8)
        let expected = try reference.withUnsafeRGBA16Samples { Array($0) }
        return try hdr.withUnsafeRGBA16Samples { samples in
            var worst = 0.0, total = 0.0
            for row in 0..<rows {
                for column in 0..<columns {
                    for channel in 0..<3 {
                        var sum = 0
                        for y in (row * 8)..<(row * 8 + 8) {
                            for x in (column * 8)..<(column * 8 + 8) { sum += Int(samples[(y * hdr.pixelWidth + x) * 4 + channel]) }
                        }
                        let difference = abs(Double(sum) / 64 - Double(expected[(row * columns + column) * 4 + channel])) / 65535
                        worst = max(worst, difference)
                        total += difference
                    }
                }
            }
            return (worst, total / Double(rows * columns * 3))
        }
    }

    /// A thumbnail shrinks base and map on load and applies the map at its size: against the
    /// reference's block means (another filter: edges differ), measured mean 0.0019 of full signal.
    @Test func anHDRThumbnailIsTheRenditionShrunk() throws {
        let thumbnail = try HDREncodingTests.decoded(Self.file, hdr: true, thumbnail: CGSize(width: 207, height: 311))
        #expect(thumbnail.pixelWidth == 207 && thumbnail.pixelHeight == 311 && thumbnail.isHighDynamicRange)
        let reference = try HDREncodingTests.decoded("hdr/TestHDR-jpeg-gainmap-reference.png", hdr: true).withUnsafeRGBA16Samples { Array($0) }
        let mean = try thumbnail.withUnsafeRGBA16Samples { samples in
            zip(samples, reference).enumerated().filter { $0.offset % 4 != 3 }.map { abs(Double($0.element.0) - Double($0.element.1)) / 65535 }
                .reduce(0, +) / Double(207 * 311 * 3)
        }
        #expect(mean <= 0.004, "\(mean)")
    }

    @Test func theSDRDecodeIsTheBaseImageAndAnSDRDisplayGetsTheBaseToo() throws {
        let data = try TestImages.data(Self.file)
        let sdr = try HDREncodingTests.decoded(Self.file, hdr: false)
        #expect(sdr.bitsPerComponent == 8 && !sdr.isHighDynamicRange)
        let base = try ImageCodersManager.shared.decode(data.prefix(data.count - Self.mapLength), options: ImageCoderOptions())
        let hdr = try HDREncodingTests.decoded(Self.file, hdr: true)
        for (x, y) in [(0, 0), (800, 1200), (1661, 2492), (300, 2000)] {
            #expect(sdr.pixel(x: x, y: y) == base.pixel(x: x, y: y) && hdr.pixel(x: x, y: y) == base.pixel(x: x, y: y), "(\(x), \(y))")
        }
        // On a display with no headroom the map applies with weight 0: the base, as PQ at 203 cd/m² white.
        var options = ImageCoderOptions()
        options.decodeToHDR = true
        options.decodeHDRDisplayHeadroom = 1
        let flat = try ImageCodersManager.shared.decode(data, options: options)
        let whitePQ = SDRColourCodes.pq(nits: 203) * 65535
        let brightest = try flat.withUnsafeRGBA16Samples { largestValue(of: $0, channels: 3, bands: 4) }
        #expect(Double(brightest) <= whitePQ + 2 && Double(brightest) > whitePQ - 600, "\(brightest)")
        let full = try hdr.withUnsafeRGBA16Samples { largestValue(of: $0, channels: 1, bands: 4) }
        #expect(Double(full) > whitePQ + 10000, "the full rendition reaches above SDR white")
    }

    /// Cut and corrupted copies of TestHDR.jpeg (a fixed seed): the parser never traps, and a
    /// map it reads has metadata within its ranges; a decode gives an image or an error.
    @Test func truncatedAndCorruptFilesReadAsPlainJPEGsOrFail() throws {
        let data = try TestImages.data(Self.file)
        let mapStart = data.count - Self.mapLength
        var inputs: [Data] = stride(from: 0, to: data.count, by: 16_411).map { data.prefix($0) }
        inputs += [mapStart - 1, mapStart, mapStart + 2, mapStart + 600, mapStart + 1300].map { data.prefix($0) }
        var generator = SeededGenerator(seed: 21_496)
        // The primary's segments (MPF among them), the map's header and XMP.
        let regions = [0..<9_600, mapStart..<(mapStart + 1_800)]
        for _ in 0..<120 {
            var copy = data
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let region = regions[Int.random(in: 0..<regions.count, using: &generator)]
                copy[Int.random(in: region, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            inputs.append(copy)
        }
        // Each metadata name misspelt, or its first number spoilt (same lengths: the segments stay whole).
        for name in ["Version", "GainMapMax", "GainMapMin", "Gamma", "HDRCapacityMax", "OffsetSDR"] {
            for (find, replacement) in [("hdrgm:\(name)", "hdrgm:\(name.dropLast())Q"), ("<hdrgm:\(name)>\n", "<hdrgm:\(name)>-"), ("hdrgm:\(name)=\"", "hdrgm:\(name)=\"-")] {
                var edited = data
                guard let range = edited.range(of: Data(find.utf8), in: mapStart..<edited.count) else { continue }
                edited.replaceSubrange(range, with: Data(replacement.utf8))
                inputs.append(edited)
            }
        }
        var read = 0
        for input in inputs {
            guard let gainMap = GainMapJPEG(input) else { continue }
            read += 1
            let info = gainMap.info
            #expect((info.minimumLog2 + info.maximumLog2 + info.gamma).allSatisfy(\.isFinite) && info.gamma.allSatisfy { $0 > 0 })
            #expect(info.capacityMaximumLog2 > info.capacityMinimumLog2 && !gainMap.mapData.isEmpty)
        }
        #expect(read > 0 && read < inputs.count, "\(read) of \(inputs.count)")
        var options = ImageCoderOptions()
        options.decodeToHDR = true
        options.decodeThumbnailPixelSize = CGSize(width: 64, height: 64)
        for input in inputs.prefix(2) + inputs[56..<58] + inputs.suffix(2) {
            if let image = try? ImageCodersManager.shared.decode(input, options: options) {
                _ = try? image.withUnsafeRGBA16Samples { $0.count }
            }
        }
    }
}
