import Foundation

/// The frames of an animated WebP as its RIFF container lists them (`ANMF` chunks), read
/// without decoding: what decoding every frame costs is their own pixels, which may each be as
/// large as the canvas.
enum WebPFrames {
    /// The pixels of the first `frames` frames together (each frame's width times height),
    /// saturating at `Int.max`; 0 for a still WebP or data that is not one.
    static func codedPixelCount(in data: Data, frames: Int = .max) -> Int {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int in
            guard bytes.count >= 12, bytes.prefix(4).elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else { return 0 }
            func little(_ at: Int, _ size: Int) -> Int {
                (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
            }
            var total = 0
            var counted = 0
            var at = 12
            while at + 8 <= bytes.count, counted < frames {
                let size = little(at + 4, 4)
                if bytes[at..<(at + 4)].elementsEqual("ANMF".utf8), at + 8 + 12 <= bytes.count {
                    let pixels = (little(at + 14, 3) + 1) * (little(at + 17, 3) + 1)
                    let sum = total.addingReportingOverflow(pixels)
                    total = sum.overflow ? .max : sum.partialValue
                    counted += 1
                }
                let next = (at + 8).addingReportingOverflow(size + (size & 1))
                guard !next.overflow else { break }
                at = next.partialValue
            }
            return total
        }
    }
}
