import Foundation

/// A 64-bit perceptual hash (pHash, as Python's `imagehash.phash` computes it): the signs of an
/// image's 8x8 lowest DCT frequencies against their median, on a 32x32 grey copy. Images that
/// look alike are a few bits apart (`distance(to:)`), whatever their size or compression.
public struct PerceptualHash: Sendable, Hashable, CustomStringConvertible {
    /// The 64 bits, the lowest frequency (row 0, column 0) in the most significant bit, rows
    /// first: `imagehash`'s bit order, so `hexString` equals its `str(hash)`.
    public let value: UInt64

    /// A hash from its 64 bits.
    public init(value: UInt64) {
        self.value = value
    }

    /// Parses 16 hexadecimal digits (`imagehash`'s `str(hash)`).
    public init(hexString: String) throws(ImageAnalysisError) {
        guard hexString.utf8.count == 16, hexString.utf8.allSatisfy({ $0 < 128 && Character(UnicodeScalar($0)).isHexDigit }),
              let value = UInt64(hexString, radix: 16)
        else { throw .invalidPerceptualHash(reason: "\(hexString.utf8.count) characters, 16 hexadecimal digits expected") }
        self.value = value
    }

    /// 16 lowercase hexadecimal digits.
    public var hexString: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    public var description: String { hexString }

    /// The Hamming distance: how many of the 64 bits differ (0 the same picture, about 32 unrelated ones).
    public func distance(to other: PerceptualHash) -> Int {
        (value ^ other.value).nonzeroBitCount
    }

    /// The hash of `width` x `height` RGBA8 pixels (alpha ignored, as `imagehash` ignores it).
    static func compute(rgba: [UInt8], width: Int, height: Int) -> PerceptualHash {
        // Grey as Pillow's convert("L") makes it (ITU-R 601 luma, rounded), then 32x32 with
        // Pillow's Lanczos-3 (its support widened by the shrink factor), rounded to 8 bits as
        // the reference's grey image is.
        var grey = [Double](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            let luma = Int(rgba[i * 4]) * 19595 + Int(rgba[i * 4 + 1]) * 38470 + Int(rgba[i * 4 + 2]) * 7471
            grey[i] = Double((luma + 0x8000) >> 16)
        }
        let side = 32
        let small = LanczosResampler.resize(grey, width: width, height: height, toWidth: side, toHeight: side)
            .map { max(0, min(255, $0.rounded())) }
        // The type II DCT, unnormalised as scipy's `dct` (a common factor, which the median
        // comparison ignores), of the rows then the columns; only the 8x8 lowest are needed.
        let cosines = (0..<8).map { k in (0..<side).map { n in cos(Double.pi * Double(k) * Double(2 * n + 1) / Double(2 * side)) } }
        var columns = [Double](repeating: 0, count: 8 * side)  // [k][x]: the DCT down each column
        for k in 0..<8 {
            for y in 0..<side {
                let c = cosines[k][y]
                for x in 0..<side { columns[k * side + x] += c * small[y * side + x] }
            }
        }
        var low = [Double](repeating: 0, count: 64)  // [ky][kx]
        for ky in 0..<8 {
            for kx in 0..<8 {
                var sum = 0.0
                for x in 0..<side { sum += cosines[kx][x] * columns[ky * side + x] }
                low[ky * 8 + kx] = sum
            }
        }
        // numpy's median of 64 values: the mean of the two middle ones.
        let sorted = low.sorted()
        let median = (sorted[31] + sorted[32]) / 2
        var value: UInt64 = 0
        for coefficient in low { value = value << 1 | (coefficient > median ? 1 : 0) }
        return PerceptualHash(value: value)
    }
}

extension ImageAnalysis {
    /// The image's 64-bit perceptual hash.
    public var perceptualHash: PerceptualHash {
        PerceptualHash.compute(rgba: rgba, width: pixelWidth, height: pixelHeight)
    }
}
