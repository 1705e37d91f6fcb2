import Foundation

/// The frames of an animated WebP as its RIFF container lists them (`ANMF` chunks), read
/// without decoding: what decoding every frame costs is their own pixels, which may each be as
/// large as the canvas.
enum WebPFrames {
    /// The pixels of the first `frames` frames together (each frame's width times height),
    /// saturating at `Int.max`; 0 for a still WebP or data that is not one.
    static func codedPixelCount(in data: Data, frames: Int = .max) -> Int {
        var total = 0
        var counted = 0
        eachChunk(of: data) { bytes, at in
            guard counted < frames else { return false }
            if bytes[at..<(at + 4)].elementsEqual("ANMF".utf8), at + 8 + 12 <= bytes.count {
                let pixels = (little(bytes, at + 14, 3) + 1) * (little(bytes, at + 17, 3) + 1)
                let sum = total.addingReportingOverflow(pixels)
                total = sum.overflow ? .max : sum.partialValue
                counted += 1
            }
            return true
        }
        return total
    }

    /// True when the image is coded losslessly (a top-level VP8L chunk): libwebp decodes such an
    /// image in one call that nothing stops, however many pixels it makes from a few bytes.
    static func isLossless(_ data: Data) -> Bool {
        var lossless = false
        eachChunk(of: data) { bytes, at in
            lossless = bytes[at..<(at + 4)].elementsEqual("VP8L".utf8)
            return !lossless
        }
        return lossless
    }

    /// Calls `body` with the bytes and the offset of each top-level chunk of a WebP's RIFF
    /// container (its type, then its 32-bit size, little-endian), while it answers true.
    private static func eachChunk(of data: Data, _ body: (UnsafeRawBufferPointer, Int) -> Bool) {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard bytes.count >= 12, bytes.prefix(4).elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else { return }
            var at = 12
            while at + 8 <= bytes.count, body(bytes, at) {
                let size = little(bytes, at + 4, 4)
                let next = (at + 8).addingReportingOverflow(size + (size & 1))
                guard !next.overflow else { break }
                at = next.partialValue
            }
        }
    }

    private static func little(_ bytes: UnsafeRawBufferPointer, _ at: Int, _ size: Int) -> Int {
        (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }
}
