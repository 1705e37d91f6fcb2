import Foundation

/// A ThumbHash (evanw.github.io/thumbhash): an image's lowest DCT components in a luminance and
/// two colour channels (plus alpha), its aspect ratio and average colour, in about 25 bytes; it
/// decodes to a placeholder of about 32 pixels a side.
///
/// Written from the reference implementation (Evan Wallace's `thumbhash`, whose Python port is
/// on PyPI as `thumbhash-python`): the same layout and quantisation.
public struct ThumbHash: Sendable, Hashable {
    /// The hash's bytes.
    public let data: Data
    /// True when the image has transparent pixels, and the hash an alpha channel.
    public let hasAlpha: Bool
    /// True when the image is wider than tall.
    public let isLandscape: Bool

    private let header: Header
    /// The AC coefficients of each channel, scaled back (L, P, Q, and A when `hasAlpha`).
    private let lAC: [Double], pAC: [Double], qAC: [Double], aAC: [Double]

    private struct Header: Sendable, Hashable {
        var lDC: Double, pDC: Double, qDC: Double, aDC: Double
        var lx: Int, ly: Int
        /// The luminance components on the short side, as the hash stores it.
        var lCount: Int
    }

    /// Parses and checks `data`: its header, and enough bytes for every coefficient it announces.
    public init(_ data: Data) throws(ImageAnalysisError) {
        let bytes = [UInt8](data)
        guard bytes.count >= 5 else { throw .invalidThumbHash(reason: "\(bytes.count) bytes, at least 5 needed") }
        let needed = Self.byteCount(header: bytes)
        guard bytes.count >= needed else { throw .invalidThumbHash(reason: "\(bytes.count) bytes, \(needed) for its coefficients") }
        self.init(checked: bytes)
    }

    /// The bytes a hash with this header takes: the header, and a nibble a coefficient.
    private static func byteCount(header bytes: [UInt8]) -> Int {
        let hasAlpha = bytes[2] & 0x80 != 0
        let (lx, ly) = componentCounts(lCount: Int(bytes[3] & 7), hasAlpha: hasAlpha, isLandscape: bytes[4] & 0x80 != 0)
        let coefficients = triangleCount(lx, ly) + 2 * triangleCount(3, 3) + (hasAlpha ? triangleCount(5, 5) : 0)
        return (hasAlpha ? 6 : 5) + (coefficients + 1) / 2
    }

    /// The luminance components across and down.
    private static func componentCounts(lCount: Int, hasAlpha: Bool, isLandscape: Bool) -> (lx: Int, ly: Int) {
        let lMaximum = hasAlpha ? 5 : 7
        return (max(3, isLandscape ? lMaximum : lCount), max(3, isLandscape ? lCount : lMaximum))
    }

    /// The AC coefficients of an `nx` x `ny` channel: the triangle `cx * ny < nx * (ny - cy)`, less the DC.
    private static func triangleCount(_ nx: Int, _ ny: Int) -> Int {
        (0..<ny).reduce(0) { count, cy in count + (nx * (ny - cy) + ny - 1) / ny } - 1
    }

    /// Parses `bytes`, which `init(_:)` or the encoder made sure hold every coefficient.
    private init(checked bytes: [UInt8]) {
        let header24 = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16
        let header16 = Int(bytes[3]) | Int(bytes[4]) << 8
        let hasAlpha = header24 >> 23 != 0
        let isLandscape = header16 >> 15 != 0
        let lCount = header16 & 7
        let (lx, ly) = Self.componentCounts(lCount: lCount, hasAlpha: hasAlpha, isLandscape: isLandscape)
        let header = Header(
            lDC: Double(header24 & 63) / 63,
            pDC: Double((header24 >> 6) & 63) / 31.5 - 1,
            qDC: Double((header24 >> 12) & 63) / 31.5 - 1,
            aDC: hasAlpha ? Double(bytes[5] & 15) / 15 : 1,
            lx: lx, ly: ly, lCount: lCount
        )
        let lScale = Double((header24 >> 18) & 31) / 31
        // The reference decoder boosts the colour channels' AC by 1.25 (saturation lost to quantisation).
        let pScale = Double((header16 >> 3) & 63) / 63 * 1.25
        let qScale = Double((header16 >> 9) & 63) / 63 * 1.25
        let aScale = hasAlpha ? Double(bytes[5] >> 4) / 15 : 1
        let start = hasAlpha ? 6 : 5
        var index = 0
        func channel(_ nx: Int, _ ny: Int, _ scale: Double) -> [Double] {
            var ac: [Double] = []
            for cy in 0..<ny {
                var cx = cy == 0 ? 1 : 0
                while cx * ny < nx * (ny - cy) {
                    // `byteCount(header:)` counted these nibbles; a missing one would read as 0.
                    let byte = start + index / 2
                    let nibble = byte < bytes.count ? (Int(bytes[byte]) >> ((index & 1) * 4)) & 15 : 0
                    ac.append((Double(nibble) / 7.5 - 1) * scale)
                    index += 1
                    cx += 1
                }
            }
            return ac
        }
        lAC = channel(lx, ly, lScale)
        pAC = channel(3, 3, pScale)
        qAC = channel(3, 3, qScale)
        aAC = hasAlpha ? channel(5, 5, aScale) : []
        self.data = Data(bytes)
        self.hasAlpha = hasAlpha
        self.isLandscape = isLandscape
        self.header = header
    }

    /// Parses a hash in base 64, as the reference and imgproxy write it.
    public init(base64: String) throws(ImageAnalysisError) {
        guard let data = Data(base64Encoded: base64) else { throw .invalidThumbHash(reason: "not base 64") }
        try self.init(data)
    }

    /// The hash in base 64.
    public var base64: String { data.base64EncodedString() }

    /// Parses a hash in hexadecimal, as `/info`'s `thumb_hash` writes it.
    public init(hexString: String) throws(ImageAnalysisError) {
        guard let data = HexDigits.bytes(hexString) else { throw .invalidThumbHash(reason: "not hexadecimal digits") }
        try self.init(data)
    }

    /// The hash in hexadecimal (upper case), as `/info` writes it.
    public var hexString: String { HexDigits.string(data, uppercase: true) }

    public static func == (lhs: ThumbHash, rhs: ThumbHash) -> Bool { lhs.data == rhs.data }
    public func hash(into hasher: inout Hasher) { hasher.combine(data) }

    /// Width over height, as the reference estimates it from the luminance component counts.
    public var approximateAspectRatio: Double {
        let lMaximum = hasAlpha ? 5 : 7
        let (lx, ly) = isLandscape ? (lMaximum, header.lCount) : (header.lCount, lMaximum)
        // A hash that announces no component on a side (no encoder writes one) is taken as square.
        guard lx > 0, ly > 0 else { return 1 }
        return Double(lx) / Double(ly)
    }

    /// The average colour the hash holds.
    public var averageColor: RGBA8 {
        let (r, g, b) = Self.rgb(l: header.lDC, p: header.pDC, q: header.qDC)
        return RGBA8(red: Self.byte(r), green: Self.byte(g), blue: Self.byte(b), alpha: Self.byte(header.aDC))
    }

    /// RGB of the hash's colour space: L the luminance, P yellow-blue, Q red-green.
    private static func rgb(l: Double, p: Double, q: Double) -> (Double, Double, Double) {
        let b = l - 2 / 3 * p
        let r = (3 * l - b + q) / 2
        return (r, r - q, b)
    }

    private static func byte(_ value: Double) -> UInt8 {
        UInt8(max(0, min(1, value.isNaN ? 0 : value)) * 255 + 0.5)
    }

    /// The placeholder's size: 32 pixels on the long side, the other from the aspect ratio.
    var decodedSize: (width: Int, height: Int) {
        let ratio = approximateAspectRatio
        return ratio > 1
            ? (32, max(1, Int((32 / ratio).rounded(.toNearestOrAwayFromZero))))
            : (max(1, Int((32 * ratio).rounded(.toNearestOrAwayFromZero))), 32)
    }

    /// The placeholder's RGBA8 pixels, `decodedSize`.
    func decode() -> (width: Int, height: Int, rgba: [UInt8]) {
        let (w, h) = decodedSize
        let (lx, ly) = (header.lx, header.ly)
        let n = max(lx, ly, hasAlpha ? 5 : 3)
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        var fx = [Double](repeating: 0, count: n), fy = [Double](repeating: 0, count: n)
        for y in 0..<h {
            for cy in 0..<n { fy[cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
            for x in 0..<w {
                for cx in 0..<n { fx[cx] = cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
                var (l, p, q, a) = (header.lDC, header.pDC, header.qDC, header.aDC)
                var j = 0
                for cy in 0..<ly {
                    var cx = cy == 0 ? 1 : 0
                    let fy2 = fy[cy] * 2
                    while cx * ly < lx * (ly - cy) {
                        l += lAC[j] * fx[cx] * fy2
                        j += 1
                        cx += 1
                    }
                }
                j = 0
                for cy in 0..<3 {
                    let fy2 = fy[cy] * 2
                    for cx in (cy == 0 ? 1 : 0)..<(3 - cy) {
                        let f = fx[cx] * fy2
                        p += pAC[j] * f
                        q += qAC[j] * f
                        j += 1
                    }
                }
                if hasAlpha {
                    j = 0
                    for cy in 0..<5 {
                        let fy2 = fy[cy] * 2
                        for cx in (cy == 0 ? 1 : 0)..<(5 - cy) {
                            a += aAC[j] * fx[cx] * fy2
                            j += 1
                        }
                    }
                }
                let (r, g, b) = Self.rgb(l: l, p: p, q: q)
                let offset = (y * w + x) * 4
                (rgba[offset], rgba[offset + 1], rgba[offset + 2], rgba[offset + 3]) = (Self.byte(r), Self.byte(g), Self.byte(b), Self.byte(a))
            }
        }
        return (w, h, rgba)
    }

    /// The hash of `width` x `height` RGBA8 pixels (each side at most 100).
    static func encode(rgba: [UInt8], width w: Int, height h: Int) -> ThumbHash {
        let count = w * h
        // The average colour, weighted by alpha: transparent pixels take it, so that their
        // hidden colour does not leak into the luminance and colour channels.
        var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for i in 0..<count {
            let alpha = Double(rgba[i * 4 + 3]) / 255
            average.r += alpha / 255 * Double(rgba[i * 4])
            average.g += alpha / 255 * Double(rgba[i * 4 + 1])
            average.b += alpha / 255 * Double(rgba[i * 4 + 2])
            average.a += alpha
        }
        if average.a > 0 {
            average.r /= average.a
            average.g /= average.a
            average.b /= average.a
        }
        let hasAlpha = average.a < Double(count)
        let lLimit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        // Math.round of the reference (halves up), not banker's rounding.
        let lx = max(1, Int((lLimit * Double(w) / longest + 0.5).rounded(.down)))
        let ly = max(1, Int((lLimit * Double(h) / longest + 0.5).rounded(.down)))
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        for i in 0..<count {
            let alpha = Double(rgba[i * 4 + 3]) / 255
            let r = average.r * (1 - alpha) + alpha / 255 * Double(rgba[i * 4])
            let g = average.g * (1 - alpha) + alpha / 255 * Double(rgba[i * 4 + 1])
            let b = average.b * (1 - alpha) + alpha / 255 * Double(rgba[i * 4 + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        func channel(_ values: [Double], _ nx: Int, _ ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0, ac: [Double] = [], scale = 0.0
            var fx = [Double](repeating: 0, count: w)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                    var f = 0.0
                    for y in 0..<h {
                        let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                        for x in 0..<w { f += values[x + y * w] * fx[x] * fy }
                    }
                    f /= Double(count)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
            return (dc, ac, scale)
        }
        let lChannel = channel(l, max(3, lx), max(3, ly))
        let pChannel = channel(p, 3, 3)
        let qChannel = channel(q, 3, 3)
        let aChannel = hasAlpha ? channel(a, 5, 5) : (dc: 1.0, ac: [], scale: 1.0)
        // Each field clamped to its bits: a value just past its range must not spill into the next.
        func quantised(_ value: Double, _ maximum: Int) -> Int { max(0, min(maximum, Int((value + 0.5).rounded(.down)))) }
        let isLandscape = w > h
        var header24 = quantised(63 * lChannel.dc, 63)
        header24 |= quantised(31.5 + 31.5 * pChannel.dc, 63) << 6
        header24 |= quantised(31.5 + 31.5 * qChannel.dc, 63) << 12
        header24 |= quantised(31 * lChannel.scale, 31) << 18
        if hasAlpha { header24 |= 1 << 23 }
        var header16 = isLandscape ? ly : lx
        header16 |= quantised(63 * pChannel.scale, 63) << 3
        header16 |= quantised(63 * qChannel.scale, 63) << 9
        if isLandscape { header16 |= 1 << 15 }
        var bytes: [UInt8] = [UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16), UInt8(header16 & 255), UInt8(header16 >> 8)]
        if hasAlpha { bytes.append(UInt8(quantised(15 * aChannel.dc, 15) | quantised(15 * aChannel.scale, 15) << 4)) }
        let start = bytes.count
        var index = 0
        for ac in hasAlpha ? [lChannel.ac, pChannel.ac, qChannel.ac, aChannel.ac] : [lChannel.ac, pChannel.ac, qChannel.ac] {
            for f in ac {
                if start + index / 2 >= bytes.count { bytes.append(0) }
                bytes[start + index / 2] |= UInt8(quantised(15 * f, 15) << ((index & 1) * 4))
                index += 1
            }
        }
        // Written in the layout the parser reads, every coefficient included.
        return ThumbHash(checked: bytes)
    }
}

extension ImageAnalysis {
    /// The image's ThumbHash.
    public var thumbHash: ThumbHash {
        ThumbHash.encode(rgba: rgba, width: pixelWidth, height: pixelHeight)
    }
}
