import Foundation
import ImageEngine
import Testing
import WebImageTestServer
import WebImageTestSupport

/// Progressive JPEGs at 1/8 from their DC coefficients alone (`TurboJPEG.oneEighthFromDC`, how
/// thumbnails of such files are read): the samples libjpeg-turbo gives reading the whole file.
@Suite(.offThePool) struct JPEGDCDecoderTests {
    /// Progressive files without chroma subsampling: TestImageLarge.jpg (4:4:4) and
    /// MonochromeTestImage.jpg (grey) as they are, hubble_deep_field.jpg saved progressive by
    /// libvips, and two fixtures: DC scans per component with successive approximation and a
    /// restart marker every 5 blocks; every component sampled 2x1, restart intervals changing
    /// between scans.
    static func files() throws -> [(String, Data)] {
        var files = try ["sdwebimage/TestImageLarge.jpg", "sdwebimage/MonochromeTestImage.jpg"].map { ($0, try TestImages.data($0)) }
        for name in ["rocket-progressive-dc-per-component.jpg", "rocket-progressive-sampled-2x1.jpg"] {
            files.append((name, try TestImages.fixture(name)))
        }
        let hubble = try TestImages.data("photos/hubble_deep_field.jpg")
        files.append(("hubble progressive", try VipsImageRef.load("jpegload_buffer", data: hubble).save("jpegsave_buffer", options: "interlace=true,Q=95")))
        return files
    }

    /// How many samples of two bitmaps differ (all of them when the sizes do).
    static func differingSamples(_ first: PixelBuffer, _ second: PixelBuffer) -> Int {
        guard first.width == second.width, first.height == second.height, first.bands == second.bands else { return first.count }
        return first.withUnsafeBytes { a in second.withUnsafeBytes { b in zip(a, b).count { $0 != $1 } } }
    }

    @Test func givesWhatLibjpegGivesReadingTheWholeFile() throws {
        for (name, data) in try Self.files() {
            let header = try #require(TurboJPEG.header(of: data))
            let whole = try TurboJPEG.decode(data, header: header, shrink: 8, colourProfile: nil, orientation: 1)
            let ours = try #require(try TurboJPEG.oneEighthFromDC(data, header: header), "\(name)")
            #expect(ours.width == whole.width && ours.height == whole.height, "\(name)")
            #expect(Self.differingSamples(ours, whole) == 0, "\(name)")
            // The file cut to the scans a 1/8 decode reads gives the same.
            let cut = try #require(TurboJPEG.scansReadAtOneEighth(of: data), "\(name)")
            let fromCut = try #require(try TurboJPEG.oneEighthFromDC(cut, header: header), "\(name)")
            #expect(Self.differingSamples(fromCut, whole) == 0, "\(name)")
        }
    }

    /// Baseline files, and progressive ones whose chroma is subsampled (their 1/8 decode needs
    /// the chroma's AC coefficients), are not read from the DC alone.
    @Test func leavesBaselineAndSubsampledFilesToLibjpeg() throws {
        let rocket = try TestImages.data("photos/rocket.jpg")
        let subsampled = try VipsImageRef.load("jpegload_buffer", data: rocket).save("jpegsave_buffer", options: "interlace=true,Q=85")
        let files = [("rocket.jpg", rocket), ("rocket progressive 4:2:0", subsampled),
                     ("rocket-progressive-split-chroma.jpg", try TestImages.fixture("rocket-progressive-split-chroma.jpg"))]
        for (name, data) in files {
            let header = try #require(TurboJPEG.header(of: data))
            #expect(try TurboJPEG.oneEighthFromDC(data, header: header) == nil, "\(name)")
        }
    }

    /// The first scan's marker, and where its entropy-coded data starts and ends.
    static func firstScan(_ bytes: [UInt8]) throws -> (marker: Int, data: Range<Int>) {
        let start = try JPEGSegments(bytes).scanStart
        let dataStart = start + 2 + (Int(bytes[start + 2]) << 8 | Int(bytes[start + 3]))
        var end = dataStart
        while !(bytes[end] == 0xFF && bytes[end + 1] != 0 && !(0xD0...0xD7).contains(bytes[end + 1])) { end += 1 }
        return (start, dataStart..<end)
    }

    static func decodeFails(_ bytes: [UInt8], header: TurboJPEG.Header) -> Bool {
        do {
            return try TurboJPEG.oneEighthFromDC(Data(bytes), header: header) == nil
        } catch {
            return true
        }
    }

    /// Damage libjpeg would report (an error, or a warning of corrupt data) is an error.
    @Test func corruptDCScansAreAnError() throws {
        let original = [UInt8](try TestImages.fixture("rocket-progressive-dc-per-component.jpg"))
        let header = try #require(TurboJPEG.header(of: Data(original)))
        let scan = try Self.firstScan(original)
        #expect(!Self.decodeFails(original, header: header))

        // A restart marker out of sequence (the first one is RST0).
        var restart = original
        let firstRestart = try #require(scan.data.first { restart[$0] == 0xFF && restart[$0 + 1] == 0xD0 })
        restart[firstRestart + 1] = 0xD3
        #expect(Self.decodeFails(restart, header: header))

        // The first scan's data cut in half: its blocks run out of bits.
        var cut = original
        cut.removeSubrange(scan.data.lowerBound + scan.data.count / 2..<scan.data.upperBound)
        #expect(Self.decodeFails(cut, header: header))

        // The DC Huffman table given a category over 15 (libjpeg refuses such a table).
        var table = original
        let segments = try JPEGSegments(original).segments
        let huffman = try #require(segments.first { $0.marker == 0xC4 && original[$0.payload.lowerBound] >> 4 == 0 })
        table[huffman.payload.lowerBound + 17] = 16
        #expect(Self.decodeFails(table, header: header))

        // More codes of one length than it holds (three of 1 bit): libjpeg refuses the table,
        // and written to the lookup they would run past it (found by AddressSanitizer).
        var overfull = original
        let counts = huffman.payload.lowerBound + 1
        let donor = try #require((counts + 1..<counts + 16).first { overfull[$0] >= 3 })
        overfull[donor] -= 3
        overfull[counts] += 3
        #expect(Self.decodeFails(overfull, header: header))

        // Bytes left over after the first scan's last block (libjpeg: extraneous bytes).
        var extraneous = original
        extraneous.insert(contentsOf: [UInt8](repeating: 0x12, count: 8), at: scan.data.upperBound)
        #expect(Self.decodeFails(extraneous, header: header))

        // A reserved marker between two scans (libjpeg: unsupported marker).
        var reserved = original
        reserved.insert(contentsOf: [0xFF, 0x02, 0x00, 0x04, 0x00, 0x00], at: scan.data.upperBound)
        #expect(Self.decodeFails(reserved, header: header))

        // No end of image.
        #expect(Self.decodeFails(Array(original.dropLast(2)), header: header))
    }

    /// Random damage in the DC scans: never a crash or a read outside the data (the suite also
    /// runs under AddressSanitizer: scripts/leak-check.sh), and whenever libjpeg reads the
    /// damaged file without a warning, ours gives its samples or hands the file back.
    @Test func randomDamageGivesLibjpegsSamplesOrAnError() throws {
        var generator = SeededGenerator(seed: 0x5EED_0DC)
        var agreed = 0
        for name in ["rocket-progressive-dc-per-component.jpg", "rocket-progressive-sampled-2x1.jpg"] {
            let original = [UInt8](try TestImages.fixture(name))
            let header = try #require(TurboJPEG.header(of: Data(original)))
            let start = try JPEGSegments(original).scanStart
            for _ in 0..<150 {
                var damaged = original
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    damaged[Int.random(in: start..<damaged.count - 2, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                let data = Data(damaged)
                let ours = try? TurboJPEG.oneEighthFromDC(data, header: header)
                if let ours, let whole = try? TurboJPEG.decode(data, header: header, shrink: 8, colourProfile: nil, orientation: 1) {
                    #expect(Self.differingSamples(ours, whole) == 0, "\(name)")
                    agreed += 1
                }
            }
        }
        // Some damage falls where neither reader looks (an AC scan's values, say): both read it.
        #expect(agreed > 0)
    }
}
