import Foundation
import Testing

/// PngSuite's deliberately corrupt x*.png files, which the shared pngsuite folder (libpng's
/// contrib/pngsuite) does not ship, rebuilt from their valid twins in that folder.
///
/// libpng's copies were recompressed with a smaller zlib window: only their IDAT's first two
/// bytes (zlib's CMF and FLG) and so the IDAT CRC differ from PngSuite's own files, which start
/// their IDAT data with 78 9C. `pngSuiteOriginal` puts those two bytes back; the result was checked
/// byte for byte against the PngSuite copies that pypng 0.20220715 ships in code/pngsuite.py
/// (basn0g01/02/04/08/16, basn2c08/16, basn3p04, basn6a08), and the damaged files below against
/// the CRCs that decoders' tests quote for PngSuite's real x-files.
enum PngSuiteCorruptFiles {
    /// How a decoder is expected to turn the file away.
    enum Failure: Sendable {
        /// The 8-byte signature is damaged: not recognised as a PNG at all.
        case notAPNG
        /// A PNG whose header or data is broken.
        case corruptPNG
    }

    struct File: Sendable, CustomTestStringConvertible {
        let name: String
        let failure: Failure
        let make: @Sendable () throws -> Data

        var testDescription: String { name }
    }

    /// PngSuite's list of corrupt files, in its order; the comment on each is PngSuite's own
    /// description of its file.
    static let all: [File] = [
        // xs1n0g01: "signature byte 1 MSBit reset to zero" (0x89 -> 0x09).
        File(name: "xs1n0g01", failure: .notAPNG) { try original("basn0g01").replacing(at: 0, with: 0x09) },
        // xs2n0g01: "signature byte 2 is a 'Q'" ('P' -> 'Q').
        File(name: "xs2n0g01", failure: .notAPNG) { try original("basn0g01").replacing(at: 1, with: 0x51) },
        // xs4n0g01: "signature byte 4 lowercase" ('G' -> 'g').
        File(name: "xs4n0g01", failure: .notAPNG) { try original("basn0g01").replacing(at: 3, with: 0x67) },
        // xs7n0g01: "7th byte a space instead of control-Z" (0x1A -> 0x20).
        File(name: "xs7n0g01", failure: .notAPNG) { try original("basn0g01").replacing(at: 6, with: 0x20) },
        // xcrn0g04: "added cr bytes": a text-mode transfer put a CR before every LF of the file,
        // so it starts 89 50 4E 47 0D 0D 0A 1A 0D 0A (the bytes decoders quote for the real file).
        File(name: "xcrn0g04", failure: .notAPNG) {
            Data(try original("basn0g04").flatMap { $0 == 0x0A ? [0x0D, 0x0A] : [$0] })
        },
        // xlfn0g04: "added lf bytes": the real file starts 89 50 4E 47 0A 0A 0A 1A (the bytes
        // decoders quote). PngSuite does not say what happened to the rest of it, so only those
        // bytes are known to match: here every CR of the file became two LFs.
        File(name: "xlfn0g04", failure: .notAPNG) {
            Data(try original("basn0g04").flatMap { $0 == 0x0D ? [0x0A, 0x0A] : [$0] })
        },
        // xhdn0g08: "incorrect IHDR checksum": the CRC bytes read "CSUM" (0x4353554D, the value
        // decoders report as declared for the real file; they compute basn0g08's IHDR CRC).
        File(name: "xhdn0g08", failure: .corruptPNG) { try original("basn0g08").replacingCRC(of: "IHDR", with: csum) },
        // xc1n0g08: "color type 1" (grey's 0 -> 1), CRC valid.
        File(name: "xc1n0g08", failure: .corruptPNG) { try original("basn0g08").settingHeader(byte: colourType, to: 1) },
        // xc9n2c08: "color type 9" (RGB's 2 -> 9), CRC valid.
        File(name: "xc9n2c08", failure: .corruptPNG) { try original("basn2c08").settingHeader(byte: colourType, to: 9) },
        // xd0n2c08: "bit-depth 0", CRC valid.
        File(name: "xd0n2c08", failure: .corruptPNG) { try original("basn2c08").settingHeader(byte: bitDepth, to: 0) },
        // xd3n2c08: "bit-depth 3", CRC valid.
        File(name: "xd3n2c08", failure: .corruptPNG) { try original("basn2c08").settingHeader(byte: bitDepth, to: 3) },
        // xd9n2c08: "bit-depth 99", CRC valid.
        File(name: "xd9n2c08", failure: .corruptPNG) { try original("basn2c08").settingHeader(byte: bitDepth, to: 99) },
        // xdtn0g01: "missing IDAT chunk".
        File(name: "xdtn0g01", failure: .corruptPNG) { try original("basn0g01").removingChunk("IDAT") },
        // xcsn0g01: "incorrect IDAT checksum": the CRC bytes read "CSUM" (declared 0x4353554D;
        // decoders compute 3492746441 for the real file's IDAT, as for PngSuite's basn0g01).
        File(name: "xcsn0g01", failure: .corruptPNG) { try original("basn0g01").replacingCRC(of: "IDAT", with: csum) },
    ]

    /// "CSUM", the CRC PngSuite wrote into the chunks whose checksum it broke.
    static let csum: [UInt8] = Array("CSUM".utf8)
    /// Offsets inside IHDR's data.
    static let bitDepth = 8, colourType = 9

    /// PngSuite's own file `name`: libpng's copy with PngSuite's zlib header (78 9C) put back.
    static func original(_ name: String) throws -> Data {
        let data = try TestImages.data("pngsuite/\(name).png")
        let idat = try #require(chunk("IDAT", in: data))
        var restored = data
        restored.replaceSubrange(idat.data.lowerBound..<idat.data.lowerBound + 2, with: [0x78, 0x9C])
        return restored.fixingCRC(of: "IDAT")
    }

    /// The CRC-32 a chunk's type and data give.
    static func computedCRC(of type: String, in data: Data) -> UInt32? {
        chunk(type, in: data).map { BadInputTests.crc32(data[$0.type.lowerBound..<$0.data.upperBound]) }
    }

    /// Where the first chunk of `type` lies: its type bytes, its data, its CRC.
    static func chunk(_ type: String, in data: Data) -> (start: Int, type: Range<Int>, data: Range<Int>, crc: Range<Int>)? {
        var offset = data.startIndex + 8
        while offset + 12 <= data.endIndex {
            let length = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let typeRange = offset + 4..<offset + 8
            let dataRange = offset + 8..<offset + 8 + length
            let crcRange = dataRange.upperBound..<dataRange.upperBound + 4
            guard crcRange.upperBound <= data.endIndex else { return nil }
            if data[typeRange].elementsEqual(type.utf8) { return (offset, typeRange, dataRange, crcRange) }
            offset = crcRange.upperBound
        }
        return nil
    }
}

private extension Data {
    func replacing(at offset: Int, with byte: UInt8) -> Data {
        var copy = self
        copy[startIndex + offset] = byte
        return copy
    }

    func replacingCRC(of type: String, with bytes: [UInt8]) throws -> Data {
        let found = try #require(PngSuiteCorruptFiles.chunk(type, in: self))
        var copy = self
        copy.replaceSubrange(found.crc, with: bytes)
        return copy
    }

    func fixingCRC(of type: String) -> Data {
        guard let crc = PngSuiteCorruptFiles.computedCRC(of: type, in: self),
              let found = PngSuiteCorruptFiles.chunk(type, in: self) else { return self }
        var copy = self
        copy.replaceSubrange(found.crc, with: Swift.withUnsafeBytes(of: crc.bigEndian, Array.init))
        return copy
    }

    /// Sets byte `byte` of IHDR's data and writes the CRC that matches, so that the header is
    /// broken only in that byte's meaning.
    func settingHeader(byte: Int, to value: UInt8) throws -> Data {
        let ihdr = try #require(PngSuiteCorruptFiles.chunk("IHDR", in: self))
        var copy = self
        copy[ihdr.data.lowerBound + byte] = value
        return copy.fixingCRC(of: "IHDR")
    }

    func removingChunk(_ type: String) throws -> Data {
        let found = try #require(PngSuiteCorruptFiles.chunk(type, in: self))
        var copy = self
        copy.removeSubrange(found.start..<found.crc.upperBound)
        return copy
    }
}
