import Foundation

/// Writes an animated PNG (libvips 8.14 writes still PNGs only): each frame, encoded as a PNG
/// by libvips, becomes a whole-canvas APNG frame (no disposal, replacing the previous one).
enum APNGWriter {
    /// An APNG of `frames`, PNG files of one size and one pixel layout, each shown for its
    /// delay in milliseconds; `loopCount` 0 plays forever.
    static func animation(of frames: [(png: Data, delay: Int)], loopCount: Int) throws(ImageCodingError) -> Data {
        func failure(_ reason: String) -> ImageCodingError { .encodingFailed(format: .png, reason: reason) }
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var sequence: UInt32 = 0
        var firstHeader: Data?
        for (index, frame) in frames.enumerated() {
            let (chunks, ended) = try APNGStructure.chunks(of: frame.png, stopAtImageData: false)
            guard ended, let header = chunks.first, header.type == "IHDR", header.body.count == 13 else {
                throw failure("frame \(index) is not a whole PNG")
            }
            if let firstHeader {
                guard header.body == firstHeader else { throw failure("frame \(index) differs in size or pixel layout") }
            } else {
                firstHeader = header.body
                APNGStructure.appendChunk("IHDR", header.body, to: &file)
                var control = Data()
                control.appendBigEndian(UInt32(frames.count))
                control.appendBigEndian(UInt32(clamping: max(0, loopCount)))
                APNGStructure.appendChunk("acTL", control, to: &file)
                for chunk in chunks where !["IHDR", "IDAT", "IEND"].contains(chunk.type) {
                    APNGStructure.appendChunk(chunk.type, chunk.body, to: &file)
                }
            }
            APNGStructure.appendChunk("fcTL", frameControl(sequence: sequence, header: header.body, delay: frame.delay), to: &file)
            sequence += 1
            for chunk in chunks where chunk.type == "IDAT" {
                if index == 0 {
                    APNGStructure.appendChunk("IDAT", chunk.body, to: &file)
                } else {
                    var body = Data()
                    body.appendBigEndian(sequence)
                    body.append(chunk.body)
                    APNGStructure.appendChunk("fdAT", body, to: &file)
                    sequence += 1
                }
            }
        }
        guard firstHeader != nil else { throw failure("no frames") }
        APNGStructure.appendChunk("IEND", Data(), to: &file)
        return file
    }

    /// fcTL: the whole canvas (size from the IHDR), shown for `delay` ms, no disposal, no blending.
    private static func frameControl(sequence: UInt32, header: Data, delay: Int) -> Data {
        var body = Data()
        body.appendBigEndian(sequence)
        body.append(header.prefix(8))
        body.appendBigEndian(0)
        body.appendBigEndian(0)
        // delay_num / delay_den, each 16 bits: milliseconds while they fit, else coarser units.
        let (numerator, denominator): (Int, Int) = delay <= 0xFFFF ? (delay, 1000) : delay / 10 <= 0xFFFF ? (delay / 10, 100) : (min(delay / 1000, 0xFFFF), 1)
        body.append(contentsOf: [UInt8(numerator >> 8), UInt8(numerator & 0xFF), UInt8(denominator >> 8), UInt8(denominator & 0xFF), 0, 0])
        return body
    }
}
