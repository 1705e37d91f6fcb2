import Foundation

/// The block layout of a GIF file (GIF89a specification, section 17 onwards), walked without
/// decoding any image data to tell a whole file from a cut one, and to count what a decode of
/// it would cost.
struct GIFBlocks {
    /// Why the blocks do not run from the header to the trailer (0x3B), or nil when they do.
    /// Like giflib, an unknown block type is an error: nothing after it can be found.
    private(set) var problem: String?
    /// The logical screen (canvas) size.
    private(set) var screenWidth = 0
    private(set) var screenHeight = 0
    /// Image descriptors seen (the frames).
    private(set) var frameCount = 0
    /// The first frame whose LZW data is longer than any valid stream for its pixels could be.
    private(set) var overlongFrame: Int?

    /// Walks the blocks of `data`, up to the trailer or the first problem.
    init(_ data: Data) {
        problem = data.withUnsafeBytes { bytes -> String? in
            var offset = 13
            guard bytes.count >= offset else { return "truncated GIF: the screen descriptor is cut" }
            screenWidth = Int(bytes[6]) | Int(bytes[7]) << 8
            screenHeight = Int(bytes[8]) | Int(bytes[9]) << 8
            offset += Self.colourTableSize(flags: bytes[10])
            while offset < bytes.count {
                let introducer = bytes[offset]
                var framePixels: Int?
                switch introducer {
                case 0x3B:
                    return nil
                case 0x21:
                    // Extension: label, then sub-blocks.
                    offset += 2
                case 0x2C:
                    // Image: descriptor, optional local colour table, LZW code size, sub-blocks.
                    guard offset + 10 <= bytes.count else { return "truncated GIF: an image descriptor is cut" }
                    let width = Int(bytes[offset + 5]) | Int(bytes[offset + 6]) << 8
                    let height = Int(bytes[offset + 7]) | Int(bytes[offset + 8]) << 8
                    framePixels = width * height
                    offset += 10 + Self.colourTableSize(flags: bytes[offset + 9]) + 1
                default:
                    return "corrupt GIF: unknown block type 0x\(String(introducer, radix: 16)) at byte \(offset)"
                }
                // Sub-blocks: a length byte and that many bytes, until a zero length.
                var dataBytes = 0
                while true {
                    guard offset < bytes.count else { return "truncated GIF: ends inside a block" }
                    let length = Int(bytes[offset])
                    offset += 1 + length
                    dataBytes += length
                    if length == 0 { break }
                }
                if let framePixels {
                    // A valid stream needs at most two codes a pixel (one with a clear code
                    // after it), of at most 12 bits each, and an end code.
                    if dataBytes > 3 * framePixels + 16, overlongFrame == nil { overlongFrame = frameCount }
                    frameCount += 1
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
