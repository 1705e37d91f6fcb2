import Foundation

/// The block layout of a GIF file (GIF89a specification, section 17 onwards), walked without
/// decoding any image data to tell a whole file from a cut one.
enum GIFBlocks {
    /// Why the blocks do not run from the header to the trailer (0x3B), or nil when they do.
    /// Like giflib, an unknown block type is an error: nothing after it can be found.
    static func problem(in data: Data) -> String? {
        data.withUnsafeBytes { bytes -> String? in
            var offset = 13
            guard bytes.count >= offset else { return "truncated GIF: the screen descriptor is cut" }
            offset += colourTableSize(flags: bytes[10])
            while offset < bytes.count {
                let introducer = bytes[offset]
                switch introducer {
                case 0x3B:
                    return nil
                case 0x21:
                    // Extension: label, then sub-blocks.
                    offset += 2
                case 0x2C:
                    // Image: descriptor, optional local colour table, LZW code size, sub-blocks.
                    guard offset + 10 <= bytes.count else { return "truncated GIF: an image descriptor is cut" }
                    offset += 10 + colourTableSize(flags: bytes[offset + 9]) + 1
                default:
                    return "corrupt GIF: unknown block type 0x\(String(introducer, radix: 16)) at byte \(offset)"
                }
                // Sub-blocks: a length byte and that many bytes, until a zero length.
                while true {
                    guard offset < bytes.count else { return "truncated GIF: ends inside a block" }
                    let length = Int(bytes[offset])
                    offset += 1 + length
                    if length == 0 { break }
                }
            }
            return "truncated GIF: no trailer after the last block"
        }
    }

    /// Bytes of the colour table a descriptor's flags announce.
    private static func colourTableSize(flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }
}
