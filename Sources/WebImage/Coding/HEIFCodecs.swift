import Foundation

/// HEVC's units, read as far as the picture size of a sequence parameter set (ITU-T H.265,
/// 7.3.2.2): what libde265 allocates and decodes for a HEIC tile.
enum HEVC {
    /// The NAL units of an `hvcC` configuration record: its arrays of parameter sets.
    static func configurationUnits(_ record: Data) -> [Data] {
        var units: [Data] = []
        var at = record.startIndex + 23
        let arrays = record.count > 22 ? Int(record[record.startIndex + 22]) : 0
        for _ in 0..<arrays {
            guard at + 3 <= record.endIndex else { break }
            let count = Int(HEIFFile.integer(record, at + 1, 2))
            at += 3
            for _ in 0..<count {
                guard at + 2 <= record.endIndex else { return units }
                let length = Int(HEIFFile.integer(record, at, 2))
                guard length <= record.endIndex - at - 2 else { return units }
                units.append(record[(at + 2)..<(at + 2 + length)])
                at += 2 + length
            }
        }
        return units
    }

    /// The NAL units of a coded image, each after its length in `lengthSize` bytes: at most `limit`.
    static func units(in data: Data, lengthSize: Int, limit: Int) -> [Data] {
        var units: [Data] = []
        var at = data.startIndex
        while at <= data.endIndex - lengthSize, units.count < limit {
            let length = HEIFFile.integer(data, at, lengthSize)
            guard length <= UInt64(data.endIndex - at - lengthSize) else { break }
            units.append(data[(at + lengthSize)..<(at + lengthSize + Int(length))])
            at += lengthSize + Int(length)
        }
        return units
    }

    /// The luma picture size a sequence parameter set (NAL unit type 33) declares; nil for
    /// other units, or one cut short.
    static func pictureSize(ofUnit unit: Data) -> (width: Int, height: Int)? {
        guard unit.count > 2, (unit[unit.startIndex] >> 1) & 0x3F == 33 else { return nil }
        var bits = BitReader(payload: unit.dropFirst(2), removingEmulationPrevention: true)
        bits.skip(4)  // sps_video_parameter_set_id
        let subLayers = bits.read(3)  // sps_max_sub_layers_minus1
        bits.skip(1)
        // profile_tier_level: the general profile and level, 96 bits, then per sub-layer.
        bits.skip(96)
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<subLayers {
            profilePresent.append(bits.read(1) == 1)
            levelPresent.append(bits.read(1) == 1)
        }
        if subLayers > 0 { bits.skip(2 * (8 - subLayers)) }
        for layer in 0..<subLayers {
            if profilePresent[layer] { bits.skip(88) }
            if levelPresent[layer] { bits.skip(8) }
        }
        _ = bits.readExpGolomb()  // sps_seq_parameter_set_id
        if bits.readExpGolomb() == 3 { bits.skip(1) }  // chroma_format_idc, separate_colour_plane_flag
        let width = bits.readExpGolomb(), height = bits.readExpGolomb()
        return bits.isPastEnd ? nil : (width, height)
    }
}

/// AV1's units (OBUs), read as far as a sequence header's largest frame size (AV1 bitstream
/// specification, 5.5): what dav1d or libaom allocates and decodes for an AVIF tile.
enum AV1 {
    /// The OBUs of `data`, each with its header (one without a size field runs to the end): at
    /// most `limit`.
    static func units(in data: Data, limit: Int) -> [Data] {
        var units: [Data] = []
        var at = data.startIndex
        while at < data.endIndex, units.count < limit {
            let header = data[at]
            var payload = at + 1 + Int((header >> 2) & 1)
            var end = data.endIndex
            if (header >> 1) & 1 == 1 {
                var size = 0, shift = 0
                while payload < data.endIndex, shift < 56 {
                    let byte = data[payload]
                    size |= Int(byte & 0x7F) << shift
                    payload += 1
                    shift += 7
                    if byte & 0x80 == 0 { break }
                }
                guard payload <= data.endIndex, size <= data.endIndex - payload else { break }
                end = payload + size
            }
            guard payload <= end else { break }
            units.append(data[at..<end])
            at = end
        }
        return units
    }

    /// The largest frame size a sequence header OBU (type 1) declares; nil for other units, or
    /// one cut short.
    static func maxFrameSize(ofUnit unit: Data) -> (width: Int, height: Int)? {
        guard let header = unit.first, (header >> 3) & 0xF == 1 else { return nil }
        var start = unit.startIndex + 1 + Int((header >> 2) & 1)
        if (header >> 1) & 1 == 1 {
            while start < unit.endIndex, unit[start] & 0x80 != 0 { start += 1 }
            start += 1
        }
        guard start < unit.endIndex else { return nil }
        var bits = BitReader(payload: unit[start...], removingEmulationPrevention: false)
        bits.skip(4)  // seq_profile, still_picture
        if bits.read(1) == 1 {
            bits.skip(5)  // reduced_still_picture_header: seq_level_idx[0]
        } else {
            var decoderModelInfo = false
            var bufferDelayLength = 0
            if bits.read(1) == 1 {  // timing_info_present_flag
                bits.skip(64)
                if bits.read(1) == 1 { _ = bits.readUVLC() }  // equal_picture_interval
                decoderModelInfo = bits.read(1) == 1
                if decoderModelInfo {
                    bufferDelayLength = bits.read(5) + 1
                    bits.skip(32 + 5 + 5)
                }
            }
            let initialDisplayDelay = bits.read(1) == 1
            let operatingPoints = bits.read(5) + 1
            for _ in 0..<operatingPoints {
                bits.skip(12)  // operating_point_idc
                if bits.read(5) > 7 { bits.skip(1) }  // seq_level_idx, seq_tier
                if decoderModelInfo, bits.read(1) == 1 { bits.skip(2 * bufferDelayLength + 1) }
                if initialDisplayDelay, bits.read(1) == 1 { bits.skip(4) }
                if bits.isPastEnd { return nil }
            }
        }
        let widthBits = bits.read(4) + 1, heightBits = bits.read(4) + 1
        let width = bits.read(widthBits) + 1, height = bits.read(heightBits) + 1
        return bits.isPastEnd ? nil : (width, height)
    }
}

/// Reads bits most significant first; reading past the end gives zeros and sets `isPastEnd`.
struct BitReader {
    private let bytes: [UInt8]
    private var position = 0
    private(set) var isPastEnd = false

    /// The first 128 bytes of `payload` (enough for any header read here), with H.26x's
    /// emulation prevention bytes (the 3 of each 0x000003) taken out when asked.
    init(payload: Data, removingEmulationPrevention: Bool) {
        var bytes: [UInt8] = []
        var zeros = 0
        for byte in payload.prefix(128) {
            if removingEmulationPrevention, zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<max(0, min(count, 62)) {
            guard position < bytes.count * 8 else {
                isPastEnd = true
                return value
            }
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) {
        position += max(0, count)
        if position > bytes.count * 8 { isPastEnd = true }
    }

    /// ue(v): an unsigned Exp-Golomb code (H.265, 9.2).
    mutating func readExpGolomb() -> Int {
        var zeros = 0
        while read(1) == 0, !isPastEnd, zeros < 32 { zeros += 1 }
        return (1 << zeros) - 1 + read(zeros)
    }

    /// uvlc(): AV1's variable-length code (4.10.3 of its specification).
    mutating func readUVLC() -> Int {
        var zeros = 0
        while read(1) == 0, !isPastEnd, zeros < 32 { zeros += 1 }
        return zeros >= 32 ? Int(UInt32.max) : (1 << zeros) - 1 + read(zeros)
    }
}
