import Foundation

/// ISO 21496-1's binary gain map metadata and the ICC colorants the map's colour space is read
/// from: both parsed from outside bytes, every read checked, anything malformed a nil.
extension GainMapJPEG {
    /// The name before ISO 21496-1's metadata in an APP2 segment (Ultra HDR 1.1, libultrahdr).
    static let isoSignature = Array("urn:iso:std:iso:ts:21496:-1\0".utf8)

    /// True when an ISO 21496-1 version record (the primary image's APP2 box: minimum and
    /// writer version) allows this reader, minimum version 0; a cut record does not.
    static func isoVersionIsReadable(_ payload: ArraySlice<UInt8>) -> Bool {
        var fields = BigEndianFields(payload)
        return fields.integer(bytes: 2) == 0 && fields.integer(bytes: 2) != nil
    }

    /// ISO 21496-1's `GainMapMetadata` (clause C.2.2; big-endian, fractions of 32-bit integers):
    /// minimum and writer version, flags (bit 7 three channels, bit 6 the map applies in the
    /// base's colour space; libultrahdr's bit 3, one denominator written once for all
    /// fractions, and bit 2, the base is the HDR rendition), the base's and the alternate
    /// rendition's log2 headroom, then for one or three channels the log2 gain at map values 0
    /// and 1, the map's gamma, and the base's and the alternate's offsets. Nil for a version
    /// other than 0, a cut or zero-denominator record, values out of range, or an HDR base (its
    /// headroom above the alternate's: the map would apply the other way, which is not built).
    static func info(iso payload: ArraySlice<UInt8>, width: Int, height: Int) -> GainMapInfo? {
        var fields = BigEndianFields(payload)
        guard fields.integer(bytes: 2) == 0, fields.integer(bytes: 2) != nil, let flags = fields.integer(bytes: 1) else { return nil }
        let channelCount = flags & 0x80 != 0 ? 3 : 1
        let commonDenominator = flags & 0x08 != 0 ? fields.integer(bytes: 4) : nil
        if flags & 0x08 != 0, commonDenominator == nil { return nil }
        func fraction(signed: Bool) -> Double? {
            guard let numerator = fields.integer(bytes: 4),
                  let denominator = commonDenominator ?? fields.integer(bytes: 4), denominator > 0
            else { return nil }
            let value = signed ? Double(Int32(truncatingIfNeeded: numerator)) : Double(numerator)
            return value / Double(denominator)
        }
        guard let baseHeadroom = fraction(signed: false), let alternateHeadroom = fraction(signed: false) else { return nil }
        // Per channel: gain minimum, gain maximum, gamma, base offset, alternate offset.
        var channels: [[Double]] = []
        for _ in 0..<channelCount {
            var channel: [Double] = []
            for signed in [true, true, false, true, true] {
                guard let value = fraction(signed: signed) else { return nil }
                channel.append(value)
            }
            channels.append(channel)
        }
        let field = { (index: Int) in (0..<3).map { channels[min($0, channelCount - 1)][index] } }
        let (minimum, maximum, gamma) = (field(0), field(1), field(2))
        let all = channels.flatMap { $0 } + [baseHeadroom, alternateHeadroom]
        guard all.allSatisfy({ abs($0) < 1000 }), zip(minimum, maximum).allSatisfy({ $0 <= $1 }), gamma.allSatisfy({ $0 > 0 }),
              alternateHeadroom > baseHeadroom, flags & 0x04 == 0
        else { return nil }
        var info = GainMapInfo(
            minimumLog2: minimum, maximumLog2: maximum, gamma: gamma, offsetSDR: field(3), offsetHDR: field(4),
            capacityMinimumLog2: baseHeadroom, capacityMaximumLog2: alternateHeadroom, pixelWidth: width, pixelHeight: height
        )
        info.usesBaseColourSpace = flags & 0x40 != 0
        return info
    }

    /// The primaries an ICC profile states: its `cicp` tag (ICC 4.4) when there, else its
    /// colorants (`rXYZ`, `gXYZ`, `bXYZ`, adapted to D50) when they are BT.709's, Display P3's
    /// or BT.2020's; nil for anything else or a malformed profile.
    static func primaries(ofICC profile: Data) -> ColorPrimaries? {
        let bytes = Array(profile)
        var table = BigEndianFields(bytes[min(128, bytes.count)...])
        guard let count = table.integer(bytes: 4), count <= 1000 else { return nil }
        var tags: [UInt32: ArraySlice<UInt8>] = [:]
        for _ in 0..<count {
            guard let signature = table.integer(bytes: 4), let offset = table.integer(bytes: 4), let size = table.integer(bytes: 4)
            else { return nil }
            let (start, end) = (Int(offset), Int(offset) + Int(size))
            if end <= bytes.count, tags[signature] == nil { tags[signature] = bytes[start..<end] }
        }
        func tag(_ name: String) -> ArraySlice<UInt8>? { tags[name.utf8.reduce(0) { $0 << 8 | UInt32($1) }] }
        if let cicp = tag("cicp"), cicp.count >= 12, cicp.prefix(4).elementsEqual("cicp".utf8) {
            return ColorPrimaries(rawValue: Int(cicp[cicp.startIndex + 8]))
        }
        var colorants: [Double] = []
        for name in ["rXYZ", "gXYZ", "bXYZ"] {
            guard let xyz = tag(name), xyz.count >= 20, xyz.prefix(4).elementsEqual("XYZ ".utf8) else { return nil }
            var values = BigEndianFields(xyz.dropFirst(8))
            for _ in 0..<3 {
                guard let value = values.integer(bytes: 4) else { return nil }
                colorants.append(Double(Int32(truncatingIfNeeded: value)) / 65536)
            }
        }
        return Self.knownColorants.first { zip($0.colorants, colorants).allSatisfy { abs($0 - $1) < 0.003 } }?.primaries
    }

    /// The D50-adapted red, green and blue XYZ colorants of the primaries ICC profiles name.
    private static let knownColorants: [(primaries: ColorPrimaries, colorants: [Double])] = [
        (.bt709, [0.4361, 0.2225, 0.0139, 0.3851, 0.7169, 0.0971, 0.1431, 0.0606, 0.7141]),
        (.displayP3, [0.5151, 0.2412, -0.0010, 0.2920, 0.6922, 0.0419, 0.1572, 0.0666, 0.7844]),
        (.bt2020, [0.6735, 0.2790, -0.0019, 0.1657, 0.6753, 0.0300, 0.1251, 0.0456, 0.7972]),
    ]
}

/// Reads big-endian unsigned integers off the front of some bytes; nil once they run out.
struct BigEndianFields {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    mutating func integer(bytes count: Int) -> UInt32? {
        guard rest.count >= count else { return nil }
        defer { rest = rest.dropFirst(count) }
        return rest.prefix(count).reduce(0) { $0 << 8 | UInt32($1) }
    }
}
