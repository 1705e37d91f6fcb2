import Foundation

/// The metadata chunks of a WebP file (`EXIF`, `XMP `, `ICCP`), removed from what libvips 8.14's
/// WebP saver writes: it ignores `strip=true` and writes the image's EXIF, XMP and profile, and
/// an EXIF block of its own (resolution, orientation, size) when the image has none.
enum WebPMetadataChunks {
    /// `data` without its metadata chunks, the VP8X flags that announce them cleared; `data` as
    /// it is when it is not a RIFF WebP whose chunks can be walked.
    static func removed(from data: Data) -> Data {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes.prefix(4).elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else { return data }
        var kept = Array(bytes[0..<12])
        var at = 12
        while at + 8 <= bytes.count {
            let size = (0..<4).reduce(0) { $0 | Int(bytes[at + 4 + $1]) << (8 * $1) }
            // Chunks are padded to an even size; the last may lack its pad byte.
            let end = min(at + 8 + size + (size & 1), bytes.count)
            guard at + 8 + size <= bytes.count else { return data }
            if !["EXIF", "XMP ", "ICCP"].contains(where: { bytes[at..<(at + 4)].elementsEqual($0.utf8) }) {
                kept += bytes[at..<end]
            }
            at = end
        }
        guard at == bytes.count else { return data }
        // VP8X's flags (the first byte of its payload): ICC 0x20, EXIF 0x08, XMP 0x04.
        if kept.count >= 21, kept[12..<16].elementsEqual("VP8X".utf8) { kept[20] &= ~UInt8(0x20 | 0x08 | 0x04) }
        let riffSize = UInt32(kept.count - 8)
        for index in 0..<4 { kept[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * index)) }
        return Data(kept)
    }
}
