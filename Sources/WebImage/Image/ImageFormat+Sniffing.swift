import Foundation

extension ImageFormat {
    /// Detects the format from the file's leading bytes (its magic number), never from a name.
    /// Empty, too short or unrecognised data gives `.undefined`.
    public init(sniffing data: Data) {
        self = data.withUnsafeBytes { Self.sniff(ByteView($0)) }
    }

    private static func sniff(_ bytes: ByteView) -> ImageFormat {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        if bytes.starts(with: Array("RIFF".utf8)) && bytes.matches(Array("WEBP".utf8), at: 8) { return .webP }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
        if bytes.starts(with: [0xFF, 0x0A]) { return .jxl }
        if bytes.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if bytes.matches(Array("ftyp".utf8), at: 4) { return isoMediaFormat(bytes) }
        if isBMP(bytes) { return .bmp }
        if isSVG(bytes) { return .svg }
        return .undefined
    }

    /// HEIF family files (ISO base media): the `ftyp` box's major and compatible brands.
    private static func isoMediaFormat(_ bytes: ByteView) -> ImageFormat {
        let boxSize = Int(bytes.bigEndianUInt32(at: 0) ?? 0)
        guard boxSize >= 16 else { return .undefined }
        let brands = stride(from: 8, to: min(boxSize, bytes.count) - 3, by: 4).compactMap { offset -> String? in
            offset == 12 ? nil : bytes.ascii(at: offset, count: 4)  // offset 12 is the minor version
        }
        guard let major = brands.first else { return .undefined }
        if ["avif", "avis"].contains(major) { return .avif }
        if ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"].contains(major) { return .heic }
        if ["mif1", "msf1"].contains(major) {
            // SDWebImage's rule: the generic HEIF brands mean HEIF, unless the file is AV1.
            return brands.contains("avif") || brands.contains("avis") ? .avif : .heif
        }
        return .undefined
    }

    /// "BM", then a file size and a DIB header size that a real BMP has.
    private static func isBMP(_ bytes: ByteView) -> Bool {
        guard bytes.starts(with: [0x42, 0x4D]), let header = bytes.littleEndianUInt32(at: 14) else { return false }
        return [12, 40, 52, 56, 64, 108, 124].contains(header)
    }

    /// XML text whose first element, after the prolog (XML declaration, processing
    /// instructions, comments, a doctype) within the first 4 KiB, is `<svg`: an HTML page with
    /// an inline SVG icon is not an SVG file.
    private static func isSVG(_ bytes: ByteView) -> Bool {
        let prefix = bytes.prefix(4096)
        guard let text = String(bytes: prefix, encoding: .utf8) ?? String(bytes: prefix, encoding: .isoLatin1) else {
            return false
        }
        var rest = Substring(text).drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        while true {
            let skipped: Substring?
            if rest.hasPrefix("<?") {
                skipped = rest.after("?>")
            } else if rest.hasPrefix("<!--") {
                skipped = rest.after("-->")
            } else if rest.lowercased().hasPrefix("<!doctype") {
                // An internal subset ([...]) may hold '>' before the doctype's own, which may
                // follow its ']' after white space.
                let subset = rest.firstIndex(of: "[").map { $0 < (rest.firstIndex(of: ">") ?? rest.endIndex) } ?? false
                if subset, let close = rest.lastRange(before: "<svg", of: "]") {
                    let tail = rest[close.upperBound...].drop { $0.isWhitespace }
                    skipped = tail.hasPrefix(">") ? tail.dropFirst() : nil
                } else {
                    skipped = rest.after(">")
                }
            } else {
                break
            }
            guard let skipped else { return false }
            rest = skipped.drop { $0.isWhitespace }
        }
        guard rest.count > 4, rest.prefix(4).lowercased() == "<svg" else { return false }
        // `<svg:svg` is the root with a namespace prefix.
        let next = rest[rest.index(rest.startIndex, offsetBy: 4)]
        return next.isWhitespace || next == ">" || next == "/" || next == ":"
    }
}

extension Substring {
    /// What follows the first `marker`, or nil when there is none.
    fileprivate func after(_ marker: String) -> Substring? {
        range(of: marker).map { self[$0.upperBound...] }
    }

    /// The last `marker` before the first `limit` (or before the end when there is none).
    fileprivate func lastRange(before limit: String, of marker: String) -> Range<Index>? {
        let end = range(of: limit, options: .caseInsensitive)?.lowerBound ?? endIndex
        return self[..<end].range(of: marker, options: .backwards)
    }
}

/// Bounds-checked reads over raw bytes.
private struct ByteView {
    let buffer: UnsafeRawBufferPointer

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var count: Int { buffer.count }

    func starts(with magic: [UInt8]) -> Bool {
        matches(magic, at: 0)
    }

    func matches(_ magic: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, buffer.count >= offset + magic.count else { return false }
        return magic.indices.allSatisfy { buffer[offset + $0] == magic[$0] }
    }

    func bigEndianUInt32(at offset: Int) -> UInt32? {
        guard offset >= 0, buffer.count >= offset + 4 else { return nil }
        return (0..<4).reduce(0) { $0 << 8 | UInt32(buffer[offset + $1]) }
    }

    func littleEndianUInt32(at offset: Int) -> UInt32? {
        guard offset >= 0, buffer.count >= offset + 4 else { return nil }
        return (0..<4).reversed().reduce(0) { $0 << 8 | UInt32(buffer[offset + $1]) }
    }

    func ascii(at offset: Int, count: Int) -> String? {
        guard offset >= 0, buffer.count >= offset + count else { return nil }
        return String(decoding: buffer[offset..<(offset + count)], as: UTF8.self)
    }

    func prefix(_ length: Int) -> [UInt8] {
        Array(buffer.prefix(length))
    }
}
