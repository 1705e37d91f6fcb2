import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

/// Gain-map JPEGs whose metadata is ISO 21496-1's binary box (Ultra HDR 1.1 as libultrahdr
/// writes it), made from SDWebImage's TestHDR.heic by libultrahdr's ultrahdr_app
/// (scripts/hdr/make-ultrahdr.sh): the box read, the map applied in the colour space it names,
/// the rendition as libultrahdr's own decoder makes it, the box preferred to the XMP beside it,
/// and cut or corrupted boxes read as a miss.
@Suite(.offThePool) struct GainMapISOTests {
    /// ISO box only: a three-channel map, applied in the alternate's BT.2100 primaries.
    static let isoOnly = "hdr/TestHDR-ultrahdr-iso.jpg"
    /// ISO box and `hdrgm:` XMP: a one-channel map at half size, applied in the base's primaries.
    static let isoAndXMP = "hdr/TestHDR-ultrahdr-iso-xmp.jpg"

    /// The ISO record in the map image of `data` (after its name, to its segment's end) and
    /// where the record starts in `data`.
    static func mapRecord(_ data: Data) throws -> (record: ArraySlice<UInt8>, start: Int) {
        let map = try #require(GainMapJPEG(data)).mapData
        let mapRange = try #require(data.range(of: map))
        let name = try #require(data.range(of: Data(GainMapJPEG.isoSignature), in: mapRange))
        let length = Int(data[name.lowerBound - 2]) << 8 | Int(data[name.lowerBound - 1])
        return (ArraySlice(data[name.upperBound..<(name.lowerBound - 2 + length)]), name.upperBound)
    }

    @Test func anISOOnlyFilesMetadataIsReadWithItsChannelsAndColourSpace() throws {
        let data = try TestImages.data(Self.isoOnly)
        #expect(data.range(of: Data("hdrgm".utf8)) == nil, "no XMP to fall back on")
        let info = try #require(try ImageHeader(probing: data).colorInfo.gainMap)
        // The record's fractions (`ultrahdr_app -m 1 -P` prints them as content boosts 2^x:
        // maximum 28.0221, 67.8319, 70.7884; minimum 4.95759e-05; capacity 49.2611).
        let maximum: [Double] = [10_084_145 / 2_097_152, 199_357 / 32_768, 12_887_923 / 2_097_152]
        let (minimum, offset, capacity): (Double, Double, Double) = (-14_994_637 / 1_048_576, 77 / 769_999_991, 5_895_489 / 1_048_576)
        #expect(info.maximumLog2 == maximum)
        #expect(info.minimumLog2 == [minimum, minimum, minimum] && info.gamma == [1, 1, 1])
        #expect(info.offsetSDR == [offset, offset, offset] && info.offsetHDR == info.offsetSDR)
        #expect(info.capacityMinimumLog2 == 0 && info.capacityMaximumLog2 == capacity)
        #expect(abs(info.headroom - 49.2611) < 1e-4)
        #expect(!info.usesBaseColourSpace && info.alternatePrimaries == .bt2020 && info.renditionPrimaries == .bt2020)
        #expect(info.pixelWidth == 600 && info.pixelHeight == 400)
    }

    /// libultrahdr's own decode (linear light, 1.0 SDR white at 203 cd/m²) as PQ block means.
    @Test(arguments: [(isoOnly, ColorPrimaries.bt2020), (isoAndXMP, .bt709)])
    func anHDRDecodeMatchesLibultrahdrsRendition(file: String, primaries: ColorPrimaries) throws {
        let hdr = try HDREncodingTests.decoded(file, hdr: true)
        #expect(hdr.bitsPerComponent == 16 && hdr.isHighDynamicRange && hdr.colorInfo.transfer == .pq)
        #expect(hdr.colorInfo.primaries == primaries)
        #expect(try HDREncodingTests.samplesBeyondEightBits(hdr) > 256)
        let reference = file.replacingOccurrences(of: ".jpg", with: "-reference.png")
        let (worst, mean) = try GainMapHDRTests.blockMeanDifference(hdr, from: reference)
        // Measured: worst 0.0049, mean 0.00034 of full signal with the full-size map; 0.014 and
        // 0.0011 with the half-size one (libultrahdr upsamples a map by Shepard's inverse
        // distance weighting, libvips here by its resize: the edges differ).
        #expect(worst <= 0.02 && mean <= 0.002, "PQ signal: worst \(worst), mean \(mean)")
        // Written out, the rendition keeps its primaries (read back by libheif).
        let avif = try ImageCodersManager.shared.encode(hdr, format: .avif, options: ImageCoderOptions())
        let back = try ImageHeader(probing: avif).colorInfo
        #expect(back.primaries == primaries && back.transfer == .pq)
        // The SDR decode is the base image.
        let sdr = try HDREncodingTests.decoded(file, hdr: false)
        #expect(sdr.bitsPerComponent == 8 && !sdr.isHighDynamicRange && sdr.pixelWidth == 600)
    }

    /// libultrahdr's decoder reads the ISO box when there is one and the XMP only without it:
    /// so does this reader. Spoiling the XMP changes nothing; taking the box's name away makes
    /// the (spoilt) XMP serve.
    @Test func withXMPBesideItTheISOBoxWins() throws {
        let data = try TestImages.data(Self.isoAndXMP)
        let info = try #require(GainMapJPEG(data)).info
        let (record, recordStart) = try Self.mapRecord(data)
        #expect(info == GainMapJPEG.info(iso: record, width: info.pixelWidth, height: info.pixelHeight))
        // The XMP says 5.62238, the record 5895489/1048576.
        let maximum: Double = 5_895_489 / 1_048_576
        #expect(info.maximumLog2 == [maximum, maximum, maximum] && info.usesBaseColourSpace && info.pixelWidth == 300)
        let xmpMaximum = try #require(data.range(of: Data("hdrgm:GainMapMax=\"".utf8)))
        var spoiltXMP = data
        spoiltXMP[xmpMaximum.upperBound] = UInt8(ascii: "9")
        #expect(GainMapJPEG(spoiltXMP)?.info == info)
        let nameStart = recordStart - GainMapJPEG.isoSignature.count
        var noISO = spoiltXMP
        noISO[nameStart] = UInt8(ascii: "x")
        let fromSpoiltXMP = try #require(GainMapJPEG(noISO)).info
        #expect(fromSpoiltXMP.maximumLog2 != info.maximumLog2 && fromSpoiltXMP.maximumLog2.allSatisfy { $0 >= 9 })
        // A primary image whose ISO version record asks for a newer reader: the box is passed
        // over and the XMP serves.
        var xmpOnly = data
        xmpOnly[nameStart] = UInt8(ascii: "x")
        var newer = data
        let version = try #require(data.range(of: Data(GainMapJPEG.isoSignature)))
        #expect(version.upperBound < nameStart, "the primary's version record comes first")
        newer[version.upperBound + 1] = 1
        let fromXMP = try #require(GainMapJPEG(xmpOnly)).info
        #expect(GainMapJPEG(newer)?.info == fromXMP && fromXMP.usesBaseColourSpace)
    }

    /// Every cut of the record, flags and fields spoilt one at a time, and random bytes: a
    /// miss or metadata within its ranges, never a trap; a decode of the file gives an image
    /// or an error.
    @Test func cutAndCorruptISOBoxesAreAMiss() throws {
        let data = try TestImages.data(Self.isoOnly)
        let (record, start) = try Self.mapRecord(data)
        #expect(GainMapJPEG.info(iso: record, width: 1, height: 1) != nil)
        for count in 0..<record.count {
            #expect(GainMapJPEG.info(iso: record.prefix(count), width: 1, height: 1) == nil, "cut at \(count)")
        }
        func edited(_ offset: Int, _ value: UInt8) -> ArraySlice<UInt8> {
            var copy = Array(record)
            copy[offset] = value
            return ArraySlice(copy)
        }
        let flags = record[record.startIndex + 4]
        #expect(GainMapJPEG.info(iso: edited(1, 1), width: 1, height: 1) == nil, "minimum version 1")
        #expect(GainMapJPEG.info(iso: edited(4, flags | 0x04), width: 1, height: 1) == nil, "an HDR base")
        #expect(GainMapJPEG.info(iso: edited(4, flags & ~0x40), width: 1, height: 1)?.usesBaseColourSpace == false)
        #expect(GainMapJPEG.info(iso: edited(4, flags | 0x40), width: 1, height: 1)?.usesBaseColourSpace == true)
        // Each fraction its own denominator here (flag bit 3 clear): the base's headroom in bytes
        // 5..<13, the alternate's in 13..<21.
        #expect(flags & 0x08 == 0)
        var swapped = Array(record)
        swapped.replaceSubrange(5..<21, with: Array(record.dropFirst(13).prefix(8) + record.dropFirst(5).prefix(8)))
        #expect(GainMapJPEG.info(iso: ArraySlice(swapped), width: 1, height: 1) == nil, "the base's headroom above the alternate's")
        var zero = Array(record)
        zero.replaceSubrange(9..<13, with: [0, 0, 0, 0])
        #expect(GainMapJPEG.info(iso: ArraySlice(zero), width: 1, height: 1) == nil, "a zero denominator")
        // Three channels read as one: the first repeated; one channel read as three: too short.
        #expect(GainMapJPEG.info(iso: edited(4, flags & ~0x80), width: 1, height: 1)?.maximumLog2.count == 3)
        let (oneChannel, _) = try Self.mapRecord(try TestImages.data(Self.isoAndXMP))
        #expect(oneChannel[oneChannel.startIndex + 4] & 0x80 == 0 && GainMapJPEG.info(iso: oneChannel, width: 1, height: 1) != nil)
        var threeChannels = Array(oneChannel)
        threeChannels[4] |= 0x80
        #expect(GainMapJPEG.info(iso: ArraySlice(threeChannels), width: 1, height: 1) == nil)

        var generator = SeededGenerator(seed: 21_496_1)
        var inputs: [Data] = []
        for _ in 0..<200 {
            var copy = data
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                copy[start + Int.random(in: -4..<record.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            inputs.append(copy)
        }
        var read = 0
        for input in inputs {
            guard let info = GainMapJPEG(input)?.info else { continue }
            read += 1
            #expect(info.capacityMaximumLog2 > info.capacityMinimumLog2 && info.gamma.allSatisfy { $0 > 0 })
            #expect(zip(info.minimumLog2, info.maximumLog2).allSatisfy { $0 <= $1 })
        }
        #expect(read > 0 && read < inputs.count, "\(read) of \(inputs.count)")
        var options = ImageCoderOptions()
        options.decodeToHDR = true
        for input in inputs.prefix(6) {
            if let image = try? ImageCodersManager.shared.decode(input, options: options) {
                _ = try? image.withUnsafeRGBA16Samples { $0.count }
            }
        }
    }

    /// The map image's ICC profile names its primaries: its `cicp` tag, or its colorants once
    /// the tag is gone; cut profiles are a miss or a value, never a trap.
    @Test func theAlternatePrimariesComeFromTheMapsICCProfile() throws {
        let data = try TestImages.data(Self.isoOnly)
        let map = try #require(GainMapJPEG(data)).mapData
        let profile = try #require(JPEGMetadata(map)?.iccProfile)
        #expect(GainMapJPEG.primaries(ofICC: profile) == .bt2020)
        let cicp = try #require(profile.range(of: Data("cicp".utf8)))
        var withoutCICP = profile
        withoutCICP[cicp.lowerBound] = UInt8(ascii: "x")
        #expect(GainMapJPEG.primaries(ofICC: withoutCICP) == .bt2020, "from the colorants")
        let base = try #require(JPEGMetadata(data)?.iccProfile)
        #expect(GainMapJPEG.primaries(ofICC: base) == .bt709)
        for count in stride(from: 0, to: profile.count, by: 7) { _ = GainMapJPEG.primaries(ofICC: profile.prefix(count)) }
        #expect(GainMapJPEG.primaries(ofICC: Data()) == nil)
    }

    /// libultrahdr's other form (flag bit 3): one denominator, written once, for every fraction.
    @Test func aCommonDenominatorRecordIsRead() {
        let fields: [UInt32] = [1000, 0, 2500, 0, 2000, 1000, 15, 15]
        let record: [UInt8] = [0, 0, 0, 0, 0x48] + fields.flatMap { value in (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let info = GainMapJPEG.info(iso: ArraySlice(record), width: 2, height: 3)
        #expect(info?.maximumLog2 == [2, 2, 2] && info?.minimumLog2 == [0, 0, 0] && info?.gamma == [1, 1, 1])
        #expect(info?.capacityMaximumLog2 == 2.5 && info?.offsetSDR == [0.015, 0.015, 0.015] && info?.usesBaseColourSpace == true)
        #expect(GainMapJPEG.info(iso: ArraySlice(record.dropLast()), width: 2, height: 3) == nil)
    }
}
