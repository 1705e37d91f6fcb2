import Foundation

/// A JPEG's frame header (SOFn): its size and how its components are sampled, read from the
/// segments before the first scan.
struct JPEGFrame {
    var width: Int
    var height: Int
    /// Each component's horizontal and vertical sampling factors.
    var sampling: [(horizontal: Int, vertical: Int)]

    /// The frame header of `data`, or nil when it is not a JPEG or none comes before the first scan.
    init?(_ data: Data) {
        let bytes = [UInt8](data.prefix(1 << 20))
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if marker == 0xFF {
                at += 1
                continue
            }
            if marker == 0x01 || (0xD0...0xD8).contains(marker) {
                at += 2
                continue
            }
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let body = at + 4
            guard length >= 2, at + 2 + length <= bytes.count else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard length >= 8 else { return nil }
                let count = Int(bytes[body + 5])
                guard count > 0, length >= 8 + 3 * count else { return nil }
                height = Int(bytes[body + 1]) << 8 | Int(bytes[body + 2])
                width = Int(bytes[body + 3]) << 8 | Int(bytes[body + 4])
                sampling = (0..<count).map { index in
                    let factors = bytes[body + 6 + 3 * index + 1]
                    return (max(1, Int(factors >> 4)), max(1, Int(factors & 0x0F)))
                }
                return
            }
            at += 2 + length
        }
        return nil
    }

    /// Bytes a pixel's share of the coefficients takes (2 a sample, in all components), rounded
    /// up: 3 for 4:2:0 colour, 6 for 4:4:4, 8 for CMYK.
    var coefficientBytesPerPixel: Int {
        let largest = sampling.reduce(1) { max($0, $1.horizontal * $1.vertical) }
        let samples = sampling.reduce(0) { $0 + $1.horizontal * $1.vertical }
        return (2 * samples + largest - 1) / largest
    }
}
