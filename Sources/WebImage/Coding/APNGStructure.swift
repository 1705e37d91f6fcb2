import Foundation

/// The chunk layout of an animated PNG (APNG): `acTL` announces the animation, each frame has
/// an `fcTL` (region, delay, dispose and blend) and its pixel data in `IDAT` (the first frame,
/// when its `fcTL` comes before `IDAT`) or `fdAT` chunks. libvips 8.14 reads only the default
/// image, so frames are cut out here as standalone PNG files for libvips to decode.
struct APNGStructure: Sendable {
    struct AnimationControl: Equatable, Sendable {
        var frameCount: Int
        var loopCount: Int
    }

    enum Dispose: UInt8, Sendable {
        case none = 0, background = 1, previous = 2
    }

    struct Frame: Sendable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var delay: TimeInterval
        var dispose: Dispose
        /// Blend over the canvas (true) or replace the region (false).
        var blendsOver: Bool
        /// The frame as a standalone PNG file.
        var png: Data
    }

    let width: Int
    let height: Int
    let loopCount: Int
    /// The frames, in order; a decode may drop the last ones (`decodeFrameLimit`).
    var frames: [Frame]

    struct Chunk {
        var type: String
        var body: Data
    }

    /// The `acTL` chunk, when it comes before the first `IDAT` (else the file is a still PNG).
    /// Only the chunks up to there are read, so a prefix of a file is enough.
    static func animationControl(in data: Data) -> AnimationControl? {
        guard let (chunks, _) = try? chunks(of: data, stopAtImageData: true),
              let control = chunks.first(where: { $0.type == "acTL" }), control.body.count >= 8
        else { return nil }
        return AnimationControl(frameCount: Int(control.body.uint32(at: 0)), loopCount: loopCount(of: control.body))
    }

    /// acTL's `num_plays` (0 = forever) is 32-bit unsigned; libvips' `loop` metadata, where it
    /// goes when encoded, is a C int: clamped so no later conversion traps.
    private static func loopCount(of control: Data) -> Int {
        min(Int(control.uint32(at: 4)), Int(Int32.max))
    }

    /// Parses every frame; throws `corruptData` when the data is not a whole, well-formed APNG
    /// (a cut file, a damaged chunk, fewer frames than `acTL` announces).
    /// A canvas over `maxPixelCount` pixels (or too large to address as RGBA8) is refused
    /// with `tooManyPixels` as soon as the header is read, before any frame is rebuilt.
    init(data: Data, maxPixelCount: Int) throws(ImageCodingError) {
        func corrupt(_ reason: String) -> ImageCodingError { .corruptData(format: .png, reason: reason) }
        let (chunks, ended) = try Self.chunks(of: data, stopAtImageData: false)
        guard let header = chunks.first, header.type == "IHDR", header.body.count == 13 else {
            throw corrupt("APNG without a valid IHDR chunk first")
        }
        let width = Int(header.body.uint32(at: 0))
        let height = Int(header.body.uint32(at: 4))
        // The canvas holds 4 bytes a pixel: its byte count must fit in an Int too.
        let limit = min(maxPixelCount, Int.max / 4)
        let pixels = width.multipliedReportingOverflow(by: height)
        guard !pixels.overflow, pixels.partialValue <= limit else {
            throw .tooManyPixels(width: width, height: height, limit: limit)
        }
        guard ended else { throw corrupt("truncated APNG: no IEND chunk") }
        guard let control = chunks.first(where: { $0.type == "acTL" }), control.body.count >= 8 else {
            throw corrupt("APNG without a valid acTL chunk")
        }
        loopCount = Self.loopCount(of: control.body)
        // Chunks every frame file needs: palette, transparency, colour information.
        let shared = chunks.prefix { $0.type != "IDAT" }.filter { !["IHDR", "acTL", "fcTL"].contains($0.type) }
        var frames: [Frame] = []
        var pending: (control: Data, data: [Data])?
        func finish() {
            guard let (control, data) = pending, !data.isEmpty, control.count >= 26 else { return }
            var frameHeader = header.body
            frameHeader.replaceSubrange(0..<8, with: control.subdata(in: 4..<12))
            let denominator = Int(control.uint16(at: 22))
            let delay = Double(control.uint16(at: 20)) / Double(denominator == 0 ? 100 : denominator)
            let file = Self.pngFile(header: frameHeader, shared: shared, imageData: data)
            frames.append(Frame(
                x: Int(control.uint32(at: 12)), y: Int(control.uint32(at: 16)),
                width: Int(control.uint32(at: 4)), height: Int(control.uint32(at: 8)),
                delay: FrameDuration.normalized(milliseconds: Int((delay * 1000).rounded())),
                dispose: Dispose(rawValue: control[control.startIndex + 24]) ?? .none,
                blendsOver: control[control.startIndex + 25] == 1, png: file
            ))
        }
        for chunk in chunks {
            switch chunk.type {
            case "fcTL":
                finish()
                pending = (chunk.body, [])
            case "IDAT":
                pending?.data.append(chunk.body)
            case "fdAT" where chunk.body.count > 4:
                pending?.data.append(chunk.body.subdata(in: (chunk.body.startIndex + 4)..<chunk.body.endIndex))
            default:
                break
            }
        }
        finish()
        // Frames without image data are dropped by `finish`, so they count as missing here too.
        let announced = Int(control.body.uint32(at: 0))
        guard frames.count == announced else {
            throw corrupt("APNG has \(frames.count) complete frames, acTL announces \(announced)")
        }
        guard !frames.isEmpty, frames.allSatisfy({ $0.x + $0.width <= width && $0.y + $0.height <= height && $0.width > 0 && $0.height > 0 })
        else { throw corrupt("APNG frame outside the canvas") }
        self.width = width
        self.height = height
        self.frames = frames
    }

    /// The whole chunks after the signature, up to `IEND` (`ended`) or the first `IDAT` when
    /// `stopAtImageData`, or up to where the data is cut. Each chunk's CRC is checked here:
    /// frames are rebuilt as new files with fresh CRCs, so libpng never sees the stored ones.
    static func chunks(of data: Data, stopAtImageData: Bool) throws(ImageCodingError) -> (chunks: [Chunk], ended: Bool) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard data.count >= 8, data.prefix(8).elementsEqual(signature) else {
            throw .corruptData(format: .png, reason: "no PNG signature")
        }
        var chunks: [Chunk] = []
        var offset = data.startIndex + 8
        while offset + 12 <= data.endIndex {
            let length = Int(data.uint32(at: offset - data.startIndex))
            let bodyStart = offset + 8
            guard length <= data.endIndex - bodyStart - 4 else { break }
            let type = String(decoding: data[(offset + 4)..<bodyStart], as: UTF8.self)
            // Before the CRC: every PNG's header is read here, and its image data can be most of it.
            if stopAtImageData && type == "IDAT" { break }
            let typeAndBody = data[(offset + 4)..<(bodyStart + length)]
            guard CRC32.checksum(typeAndBody) == data.uint32(at: bodyStart + length - data.startIndex) else {
                throw .corruptData(format: .png, reason: "CRC mismatch in the chunk at byte \(offset - data.startIndex)")
            }
            chunks.append(Chunk(type: type, body: data.subdata(in: bodyStart..<(bodyStart + length))))
            if type == "IEND" { return (chunks, true) }
            offset = bodyStart + length + 4
        }
        return (chunks, false)
    }

    private static func pngFile(header: Data, shared: [Chunk], imageData: [Data]) -> Data {
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        appendChunk("IHDR", header, to: &file)
        for chunk in shared { appendChunk(chunk.type, chunk.body, to: &file) }
        for part in imageData { appendChunk("IDAT", part, to: &file) }
        appendChunk("IEND", Data(), to: &file)
        return file
    }

    static func appendChunk(_ type: String, _ body: Data, to file: inout Data) {
        let typeBytes = Data(type.utf8)
        file.appendBigEndian(UInt32(body.count))
        file.append(typeBytes)
        file.append(body)
        file.appendBigEndian(CRC32.checksum(typeBytes + body))
    }
}

extension Data {
    func uint32(at offset: Int) -> UInt32 {
        let start = startIndex + offset
        guard start >= startIndex, start + 4 <= endIndex else { return 0 }
        return self[start..<(start + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func uint16(at offset: Int) -> UInt16 {
        let start = startIndex + offset
        guard start >= startIndex, start + 2 <= endIndex else { return 0 }
        return UInt16(self[start]) << 8 | UInt16(self[start + 1])
    }

    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}

/// The CRC-32 that PNG chunks carry, to check stored chunks and to give rebuilt frame files
/// fresh ones. Written here because no listed Swift package exposes one, and zlib's is out of
/// reach: only the ImageEngine target imports C, and none of its modules exposes zlib.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { value, _ in value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    }

    static func checksum(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { bytes in
            table.withUnsafeBufferPointer { table in
                ~bytes.reduce(~UInt32(0)) { table[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
            }
        }
    }
}
