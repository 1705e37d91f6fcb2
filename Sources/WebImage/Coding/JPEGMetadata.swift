import Foundation

/// What the TurboJPEG engine needs from a JPEG's header segments besides the frame size: the
/// EXIF orientation and the ICC profile, and the metadata libvips' loader would give (EXIF,
/// XMP, IPTC), read from the bytes without libvips. libvips' header
/// read costs about 0.1 ms a file and goes through its global locks, which two threads then
/// take in turn: on a small photo that was the part of the job that did not scale.
struct JPEGMetadata: Equatable {
    /// EXIF orientation 1...8 (1 when absent or out of range, as libvips reads it).
    var orientation = 1
    /// The ICC profile from the APP2 `ICC_PROFILE` chunks, when they form a whole profile
    /// (every chunk of the announced count, each once), as libjpeg's `jpeg_read_icc_profile`.
    var iccProfile: Data?
    /// The first APP1 `Exif` payload, prefix and all (libvips' "exif-data").
    var exif: Data?
    /// The first APP1 XMP packet, without its namespace prefix (libvips' "xmp-data").
    var xmp: Data?
    /// The first APP13 `Photoshop 3.0` payload (libvips' "iptc-data").
    var iptc: Data?

    private init() {}

    /// What an encoder keeping metadata writes again.
    var imageMetadata: ImageMetadata {
        ImageMetadata(exif: exif, xmp: xmp, iptc: iptc, iccProfile: iccProfile)
    }

    private static let xmpPrefix = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    // The other segment signatures, made once (not per segment walked).
    private static let exifPrefix = Array("Exif\0\0".utf8)
    private static let iptcPrefix = Array("Photoshop 3.0\0".utf8)
    private static let iccPrefix = Array("ICC_PROFILE\0".utf8)

    /// Walks the segments before the first scan; nil when they cannot be walked (not a JPEG,
    /// a segment running past the end), so that libvips can read the header instead.
    init?(_ data: Data) {
        let found = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> JPEGMetadata? in
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
            // Copied out: the image keeps these bytes, not the whole file.
            func copy(_ range: Range<Int>) -> Data { Data(UnsafeRawBufferPointer(rebasing: bytes[range])) }
            var metadata = JPEGMetadata()
            var exifSeen = false
            var chunks: [Int: Range<Int>] = [:]
            var chunkCount = 0
            var chunksValid = true
            var index = 2
            while index + 4 <= bytes.count {
                guard bytes[index] == 0xFF else { return nil }
                let marker = bytes[index + 1]
                if marker == 0xFF { index += 1; continue }
                // Start of scan or end of image: the header is over.
                if marker == 0xDA || marker == 0xD9 { break }
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                let end = index + 2 + length
                guard length >= 2, end <= bytes.count else { return nil }
                let payload = (index + 4)..<end
                if marker == 0xE1, !exifSeen, Self.hasPrefix(bytes, payload, Self.exifPrefix) {
                    exifSeen = true
                    metadata.orientation = Self.orientation(bytes, (payload.lowerBound + 6)..<payload.upperBound)
                    metadata.exif = copy(payload)
                } else if marker == 0xE1, metadata.xmp == nil, Self.hasPrefix(bytes, payload, Self.xmpPrefix) {
                    metadata.xmp = copy((payload.lowerBound + Self.xmpPrefix.count)..<payload.upperBound)
                } else if marker == 0xED, metadata.iptc == nil, Self.hasPrefix(bytes, payload, Self.iptcPrefix) {
                    metadata.iptc = copy(payload)
                } else if marker == 0xE2, Self.hasPrefix(bytes, payload, Self.iccPrefix), payload.count >= 14 {
                    let sequence = Int(bytes[payload.lowerBound + 12])
                    let count = Int(bytes[payload.lowerBound + 13])
                    if sequence == 0 || count == 0 || sequence > count || (chunkCount != 0 && count != chunkCount) || chunks[sequence] != nil {
                        chunksValid = false
                    }
                    chunkCount = count
                    chunks[sequence] = (payload.lowerBound + 14)..<payload.upperBound
                }
                index = end
            }
            if chunksValid, chunkCount > 0, chunks.count == chunkCount {
                var ranges: [Range<Int>] = []
                for sequence in 1...chunkCount {
                    guard let range = chunks[sequence] else { return metadata }
                    ranges.append(range)
                }
                // Sized once and copied as typed buffers: appending slices of the raw buffer
                // went through Data's generic `Sequence` path (a conformance lookup a chunk).
                var profile = Data(capacity: ranges.reduce(0) { $0 + $1.count })
                for range in ranges where !range.isEmpty {
                    profile.append(UnsafeRawBufferPointer(rebasing: bytes[range]).assumingMemoryBound(to: UInt8.self))
                }
                metadata.iccProfile = profile.isEmpty ? nil : profile
            }
            return metadata
        }
        guard let found else { return nil }
        self = found
    }

    private static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ expected: [UInt8]) -> Bool {
        guard range.count >= expected.count else { return false }
        return expected.indices.allSatisfy { bytes[range.lowerBound + $0] == expected[$0] }
    }

    /// Tag 0x0112 of IFD0 in the TIFF structure at `tiff`: 1...8, else 1.
    private static func orientation(_ bytes: UnsafeRawBufferPointer, _ tiff: Range<Int>) -> Int {
        var orientation = 1
        walkIFD0(bytes, tiff) { tag, value in
            // Type 3 (SHORT), count 1: the value sits in the entry.
            guard tag == 0x0112, value(2, 2) == 3, let found = value(8, 2) else { return true }
            if (1...8).contains(found) { orientation = found }
            return false
        }
        return orientation
    }

    /// The tags of IFD0 in an EXIF block ("Exif\0\0", then a TIFF structure).
    static func ifd0Tags(ofEXIF exif: Data) -> Set<Int> {
        var tags: Set<Int> = []
        exif.withUnsafeBytes { bytes in
            guard bytes.count > 6 else { return }
            walkIFD0(bytes, 6..<bytes.count) { tag, _ in
                tags.insert(tag)
                return true
            }
        }
        return tags
    }

    /// Calls `body` with each entry of IFD0 in the TIFF structure at `tiff` (at most 1,000): its
    /// tag, and a reader of `size` bytes at an offset in the entry (nil past the structure), until
    /// it returns false.
    private static func walkIFD0(
        _ bytes: UnsafeRawBufferPointer, _ tiff: Range<Int>, _ body: (_ tag: Int, _ value: (_ offset: Int, _ size: Int) -> Int?) -> Bool
    ) {
        guard tiff.count >= 8 else { return }
        let little: Bool
        switch (bytes[tiff.lowerBound], bytes[tiff.lowerBound + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return
        }
        func value(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, offset + size <= tiff.count else { return nil }
            var result = 0
            for byte in 0..<size {
                let shift = little ? 8 * byte : 8 * (size - 1 - byte)
                result |= Int(bytes[tiff.lowerBound + offset + byte]) << shift
            }
            return result
        }
        guard let ifd = value(4, 4), let entries = value(ifd, 2) else { return }
        for entry in 0..<min(entries, 1000) {
            let at = ifd + 2 + 12 * entry
            guard let tag = value(at, 2), body(tag, { offset, size in value(at + offset, size) }) else { return }
        }
    }
}
