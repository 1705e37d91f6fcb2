import Foundation

/// Colour primaries as CICP code points (ITU-T H.273, ISO/IEC 23091-2), as HEIF/AVIF nclx
/// boxes, JPEG XL and PNG's `cICP` chunk write them.
public struct ColorPrimaries: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The CICP code point.
    public let rawValue: Int
    /// The primaries of CICP code point `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// BT.709, the primaries of sRGB.
    public static let bt709 = ColorPrimaries(rawValue: 1)
    /// Not stated by the file (read as BT.709).
    public static let unspecified = ColorPrimaries(rawValue: 2)
    /// BT.2020 and BT.2100, the wide gamut of HDR video and photos.
    public static let bt2020 = ColorPrimaries(rawValue: 9)
    /// DCI-P3 (SMPTE RP 431-2), its DCI white point.
    public static let dciP3 = ColorPrimaries(rawValue: 11)
    /// Display P3 (SMPTE EG 432-1): P3 primaries, D65 white.
    public static let displayP3 = ColorPrimaries(rawValue: 12)

    /// BT.709 linear RGB to these primaries' (BT.2020, DCI-P3 or Display P3 with a D65 white;
    /// BT.709 otherwise), as rows.
    var matrixFromBT709: [[Double]] {
        switch rawValue {
        case 9: [[0.6274, 0.3293, 0.0433], [0.0691, 0.9195, 0.0114], [0.0164, 0.0880, 0.8956]]
        case 11, 12: [[0.8225, 0.1774, 0.0000], [0.0332, 0.9669, 0.0000], [0.0171, 0.0724, 0.9108]]
        default: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        }
    }

    /// "BT.2020", "Display-P3", "CICP 22" for a code point without a name here.
    public var description: String {
        switch rawValue {
        case 1: "BT.709"
        case 2: "unspecified"
        case 9: "BT.2020"
        case 11: "DCI-P3"
        case 12: "Display-P3"
        default: "CICP \(rawValue)"
        }
    }
}

/// Transfer characteristics (the curve from signal to light) as CICP code points (ITU-T H.273).
public struct TransferCharacteristics: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The CICP code point.
    public let rawValue: Int
    /// The transfer of CICP code point `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// BT.709 (also 6, 14 and 15: the same curve).
    public static let bt709 = TransferCharacteristics(rawValue: 1)
    /// Not stated by the file (read as sRGB).
    public static let unspecified = TransferCharacteristics(rawValue: 2)
    /// Linear light.
    public static let linear = TransferCharacteristics(rawValue: 8)
    /// sRGB (IEC 61966-2-1).
    public static let sRGB = TransferCharacteristics(rawValue: 13)
    /// PQ (SMPTE ST 2084, BT.2100): absolute luminance up to 10,000 cd/m².
    public static let pq = TransferCharacteristics(rawValue: 16)
    /// HLG (ARIB STD-B67, BT.2100): relative, scene-referred.
    public static let hlg = TransferCharacteristics(rawValue: 18)

    /// PQ or HLG.
    public var isHighDynamicRange: Bool { self == .pq || self == .hlg }

    /// "PQ", "HLG", "sRGB", "CICP 17" for a code point without a name here.
    public var description: String {
        switch rawValue {
        case 1, 6, 14, 15: "BT.709"
        case 2: "unspecified"
        case 4: "gamma 2.2"
        case 8: "linear"
        case 13: "sRGB"
        case 16: "PQ"
        case 18: "HLG"
        default: "CICP \(rawValue)"
        }
    }
}

/// What an image's source says about its colour: primaries, transfer, bit depth, whether it is
/// HDR and how far above SDR white it reaches. Read from the file (a HEIF/AVIF nclx box, the
/// JPEG XL colour encoding, PNG's `cICP` and `IHDR`), not from the decoded pixels.
public struct ImageColorInfo: Hashable, Sendable, CustomStringConvertible {
    /// Colour primaries; `.unspecified` when the file states none (an ICC profile may).
    public var primaries: ColorPrimaries
    /// Transfer characteristics; `.unspecified` when the file states none.
    public var transfer: TransferCharacteristics
    /// CICP matrix coefficients the YCbCr samples were coded with (0: RGB; 2: unspecified).
    public var matrixCoefficients: Int
    /// True when the samples use their full range (false: video's limited range).
    public var isFullRange: Bool
    /// Bits a colour sample as stored in the file (8, 10, 12, 16).
    public var bitsPerComponent: Int
    /// True when the file carries an ICC profile.
    public var hasICCProfile: Bool
    /// The luminance the file says its brightest signal stands for, in cd/m² (JPEG XL's
    /// intensity target), nil when it says none.
    public var peakLuminance: Double?
    /// The gain map of an Ultra HDR / Adobe gain-map JPEG: its SDR base image (what the
    /// primaries and transfer describe) has an HDR rendition. Nil for other sources.
    public var gainMap: GainMapInfo?
    /// True when the file stores grey samples (one colour band): an encoder writes the image
    /// grey again to a format that holds grey (PNG, JPEG, TIFF) while its pixels stay grey.
    public var isGrey = false

    /// A source's colour; by default an 8-bit source that states no primaries or transfer.
    public init(
        primaries: ColorPrimaries = .unspecified, transfer: TransferCharacteristics = .unspecified,
        matrixCoefficients: Int = 2, isFullRange: Bool = true, bitsPerComponent: Int = 8,
        hasICCProfile: Bool = false, peakLuminance: Double? = nil
    ) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrixCoefficients = matrixCoefficients
        self.isFullRange = isFullRange
        self.bitsPerComponent = bitsPerComponent
        self.hasICCProfile = hasICCProfile
        self.peakLuminance = peakLuminance
    }

    /// The colour of a gain-map JPEG's HDR rendition (`decodeToHDR`): PQ in the primaries the
    /// map applies in (BT.709 unless ISO 21496-1 names the alternate's), full range, the map kept.
    var gainMapRendition: ImageColorInfo {
        var rendition = ImageColorInfo(
            primaries: gainMap?.renditionPrimaries ?? .bt709, transfer: .pq, matrixCoefficients: 0, isFullRange: true, bitsPerComponent: bitsPerComponent,
            hasICCProfile: hasICCProfile, peakLuminance: gainMap.map { Self.referenceWhite * $0.headroom }
        )
        rendition.gainMap = gainMap
        return rendition
    }

    /// The info of an 8-bit sRGB source (and of images made from pixels).
    public static let sRGB = ImageColorInfo()

    /// True for a PQ or HLG source, and for a gain-map JPEG.
    public var isHighDynamicRange: Bool { transfer.isHighDynamicRange || gainMap != nil }

    /// True when the primaries are wider than sRGB's (BT.2020, P3).
    public var isWideGamut: Bool { [.bt2020, .dciP3, .displayP3].contains(primaries) }

    /// BT.2408's reference white, 203 cd/m²: the level HDR graphics white and SDR white sit at.
    public static let referenceWhite = 203.0

    /// How far the source's brightest light reaches above SDR white, as a ratio (1 for SDR):
    /// PQ, its stated peak (1,000 cd/m² when it states none) over 203 cd/m²; HLG, a
    /// 1,000 cd/m² display's peak over the same (4.93); a gain map, its full headroom.
    public var headroom: Double {
        if let gainMap, !transfer.isHighDynamicRange { return gainMap.headroom }
        return switch transfer {
        case .pq: (peakLuminance ?? 1000) / Self.referenceWhite
        case .hlg: 1000 / Self.referenceWhite
        default: 1
        }
    }

    /// "BT.2020 PQ 10-bit, limited range, headroom 4.93", "sRGB 8-bit, ICC profile".
    public var description: String {
        var text: String
        if primaries == .unspecified && transfer == .unspecified {
            text = "\(bitsPerComponent)-bit"
        } else {
            text = "\(primaries) \(transfer) \(bitsPerComponent)-bit"
        }
        if !isFullRange { text += ", limited range" }
        if isGrey { text += ", grey" }
        if hasICCProfile { text += ", ICC profile" }
        if let gainMap { text += ", gain map \(gainMap.pixelWidth)x\(gainMap.pixelHeight)" }
        if isHighDynamicRange { text += ", HDR headroom " + String(format: "%.2f", headroom) }
        return text
    }
}
