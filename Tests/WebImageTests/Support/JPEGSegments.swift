import Testing

/// The marker segments of a JPEG before its first scan, for tests that rewrite one of them.
struct JPEGSegments {
    struct Segment {
        /// The byte after 0xFF (0xC0 is a baseline frame header, 0xE2 an APP2 ...).
        let marker: UInt8
        /// The whole segment: 0xFF, marker, two length bytes, payload.
        let range: Range<Int>
        /// The payload, after the length bytes.
        var payload: Range<Int> { (range.lowerBound + 4)..<range.upperBound }
    }

    let segments: [Segment]
    /// Where the first scan's marker (0xFF 0xDA) starts.
    let scanStart: Int

    /// Walks `bytes` from after the start-of-image marker to the first scan.
    init(_ bytes: [UInt8]) throws {
        var segments: [Segment] = []
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF, bytes[index + 1] != 0xDA {
            let end = index + 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
            try #require(end <= bytes.count)
            segments.append(Segment(marker: bytes[index + 1], range: index..<end))
            index = end
        }
        try #require(index + 1 < bytes.count && bytes[index + 1] == 0xDA)
        self.segments = segments
        self.scanStart = index
    }
}
