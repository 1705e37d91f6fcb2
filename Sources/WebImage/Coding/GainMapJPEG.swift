import Foundation

/// The gain map of an Ultra HDR / Adobe gain-map JPEG, found in the file's bytes: the second
/// image of the primary image's MPF index (CIPA DC-007, an APP2 segment), its metadata that
/// image's ISO 21496-1 APP2 box or its `hdrgm:` XMP (APP1). The ISO box wins when both are
/// there and it reads (as libultrahdr's decoder prefers it), unless the primary image's ISO
/// version box asks for a newer reader; the XMP serves otherwise. Read from outside bytes in
/// Swift: every length and offset is checked against the data, and anything missing or
/// malformed reads as no gain map (the file is then the plain JPEG it also is).
struct GainMapJPEG: Sendable {
    /// The gain map's own JPEG.
    let mapData: Data
    let info: GainMapInfo

    init?(_ data: Data) {
        guard let found = data.withUnsafeBytes({ raw in Self.parse(raw.bindMemory(to: UInt8.self)) }) else { return nil }
        (mapData, info) = found
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (Data, GainMapInfo)? {
        let primary = Self.segments(of: bytes, from: 0)
        guard let mpf = primary.first(where: { Self.payload($0, bytes, startsWith: Self.mpfSignature) }),
              let map = Self.secondImage(mpf: mpf.lowerBound + Self.mpfSignature.count, in: bytes),
              let dimensions = Self.frameSize(of: bytes, from: map.lowerBound)
        else { return nil }
        let (width, height) = dimensions
        let mapSegments = Self.segments(of: bytes, from: map.lowerBound)
        func body(of segments: [Range<Int>], after signature: [UInt8]) -> ArraySlice<UInt8>? {
            segments.first { Self.payload($0, bytes, startsWith: signature) }.map { ArraySlice(bytes[($0.lowerBound + signature.count)..<$0.upperBound]) }
        }
        let isoAllowed = body(of: primary, after: Self.isoSignature).map(Self.isoVersionIsReadable) ?? true
        let iso = isoAllowed ? body(of: mapSegments, after: Self.isoSignature).flatMap { Self.info(iso: $0, width: width, height: height) } : nil
        guard var info = iso ?? body(of: mapSegments, after: Self.xmpSignature).flatMap({
            Self.info(xmp: String(decoding: $0, as: UTF8.self), width: width, height: height)
        }) else { return nil }
        let mapData = Data(bytes[map])
        if !info.usesBaseColourSpace, let profile = JPEGMetadata(mapData)?.iccProfile {
            info.alternatePrimaries = Self.primaries(ofICC: profile)
        }
        return (mapData, info)
    }

    private static let mpfSignature = Array("MPF\0".utf8)
    private static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    // MARK: JPEG segments

    /// The payload ranges (after marker and length) of the segments of the JPEG starting at
    /// `start`, up to its first scan; empty when it does not start with SOI.
    static func segments(of bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> [Range<Int>] {
        guard start >= 0, start + 2 <= bytes.count, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else { return [] }
        var segments: [Range<Int>] = []
        var index = start + 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }   // fill byte
            if marker == 0xDA || marker == 0xD9 { break }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { index += 2; continue }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { break }
            segments.append((index + 4)..<(index + 2 + length))
            index += 2 + length
        }
        return segments
    }

    private static func payload(_ range: Range<Int>, _ bytes: UnsafeBufferPointer<UInt8>, startsWith signature: [UInt8]) -> Bool {
        range.count >= signature.count && bytes[range.lowerBound..<(range.lowerBound + signature.count)].elementsEqual(signature)
    }

    /// The byte range of the second image an MPF index (its TIFF header at `header`) lists.
    static func secondImage(mpf header: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard header + 8 <= bytes.count else { return nil }
        let bigEndian: Bool
        switch (bytes[header], bytes[header + 1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        func integer(at offset: Int, size: Int) -> Int? {
            guard offset >= 0, offset + size <= bytes.count else { return nil }
            let values = bytes[offset..<(offset + size)]
            return (bigEndian ? Array(values) : values.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        guard integer(at: header + 2, size: 2) == 42, let ifd = integer(at: header + 4, size: 4),
              let count = integer(at: header + ifd, size: 2)
        else { return nil }
        for entry in 0..<count {
            let field = header + ifd + 2 + entry * 12
            // MPEntry: 16 bytes an image (attributes, size, offset from the MPF header, dependants).
            guard let tag = integer(at: field, size: 2) else { return nil }
            guard tag == 0xB002 else { continue }
            guard let length = integer(at: field + 4, size: 4), length >= 32, let table = integer(at: field + 8, size: 4),
                  let size = integer(at: header + table + 20, size: 4), let offset = integer(at: header + table + 24, size: 4),
                  size > 2, offset > 0, size <= bytes.count
            else { return nil }
            // Where the index says; else the file's last `size` bytes: a tool that added
            // segments to the primary image after the index was written left its offset stale
            // (SDWebImage's TestHDR.jpeg, by 928 bytes), and the map is the last image.
            for start in [header + offset, bytes.count - size] where start > header && start + size <= bytes.count {
                if bytes[start] == 0xFF, bytes[start + 1] == 0xD8 { return start..<(start + size) }
            }
            return nil
        }
        return nil
    }

    /// The size in a JPEG's frame header (SOF0 to SOF15, not DHT, JPG or DAC).
    static func frameSize(of bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (width: Int, height: Int)? {
        for segment in segments(of: bytes, from: start) {
            let marker = bytes[segment.lowerBound - 3]
            guard (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), segment.count >= 5 else { continue }
            let height = Int(bytes[segment.lowerBound + 1]) << 8 | Int(bytes[segment.lowerBound + 2])
            let width = Int(bytes[segment.lowerBound + 3]) << 8 | Int(bytes[segment.lowerBound + 4])
            return width > 0 && height > 0 ? (width, height) : nil
        }
        return nil
    }

    // MARK: hdrgm XMP

    /// The `hdrgm:` metadata (Adobe's gain map specification 1.0, as Ultra HDR writes it), nil
    /// without a version, a maximum gain or a capacity, or with values out of their ranges.
    static func info(xmp: String, width: Int, height: Int) -> GainMapInfo? {
        func values(_ name: String) -> [Double]? { hdrgmValues(name, in: xmp) }
        func channels(_ name: String, default value: Double?) -> [Double]? {
            guard let found = values(name) ?? value.map({ [$0] }) else { return nil }
            switch found.count {
            case 1: return Array(repeating: found[0], count: 3)
            case 3: return found
            default: return nil
            }
        }
        guard hdrgmText("Version", in: xmp) != nil,
              let minimum = channels("GainMapMin", default: 0), let maximum = channels("GainMapMax", default: nil),
              let gamma = channels("Gamma", default: 1),
              let offsetSDR = channels("OffsetSDR", default: 1.0 / 64), let offsetHDR = channels("OffsetHDR", default: 1.0 / 64),
              let capacityMaximum = values("HDRCapacityMax")?.first
        else { return nil }
        let capacityMinimum = values("HDRCapacityMin")?.first ?? 0
        let all = minimum + maximum + gamma + offsetSDR + offsetHDR + [capacityMinimum, capacityMaximum]
        // An HDR base (`BaseRenditionIsHDR`) would need the map applied the other way: not built.
        let baseIsHDR = (hdrgmText("BaseRenditionIsHDR", in: xmp) ?? "False").lowercased() == "true"
        guard all.allSatisfy({ $0.isFinite && abs($0) < 1000 }), zip(minimum, maximum).allSatisfy({ $0 <= $1 }),
              gamma.allSatisfy({ $0 > 0 }), capacityMaximum > capacityMinimum, capacityMinimum >= 0, !baseIsHDR
        else { return nil }
        return GainMapInfo(
            minimumLog2: minimum, maximumLog2: maximum, gamma: gamma, offsetSDR: offsetSDR, offsetHDR: offsetHDR,
            capacityMinimumLog2: capacityMinimum, capacityMaximumLog2: capacityMaximum, pixelWidth: width, pixelHeight: height
        )
    }

    /// The numbers of `hdrgm:name`: an attribute (`hdrgm:name="4"`), or an element holding a
    /// number or an `rdf:Seq` of them.
    static func hdrgmValues(_ name: String, in xmp: String) -> [Double]? {
        guard let text = hdrgmText(name, in: xmp) else { return nil }
        var items: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<rdf:li>"), let close = rest.range(of: "</rdf:li>", range: open.upperBound..<rest.endIndex) {
            items.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        if items.isEmpty { items = [text] }
        let numbers = items.compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return numbers.count == items.count ? numbers : nil
    }

    /// The text of `hdrgm:name`, as an attribute's value or an element's content.
    static func hdrgmText(_ name: String, in xmp: String) -> String? {
        for quote in ["\"", "'"] {
            if let start = xmp.range(of: "hdrgm:\(name)=\(quote)"),
               let end = xmp.range(of: quote, range: start.upperBound..<xmp.endIndex) {
                return String(xmp[start.upperBound..<end.lowerBound])
            }
        }
        guard let open = xmp.range(of: "<hdrgm:\(name)>"),
              let close = xmp.range(of: "</hdrgm:\(name)>", range: open.upperBound..<xmp.endIndex)
        else { return nil }
        return String(xmp[open.upperBound..<close.lowerBound])
    }
}
