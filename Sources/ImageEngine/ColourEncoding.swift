import CLibvips
import CVipsGlue
import Foundation

/// The colour encoding a file declares as CICP code points (ITU-T H.273): what libvips 8.14
/// does not pass on (it drops HEIF's nclx box and turns JPEG XL's encoding into an ICC profile).
public struct ColourEncoding: Sendable, Hashable {
    /// Colour primaries: 1 BT.709/sRGB, 9 BT.2020, 11 DCI-P3, 12 Display P3; 2 unspecified.
    public var primaries: Int
    /// Transfer characteristics: 13 sRGB, 1/6/14/15 BT.709, 8 linear, 16 PQ, 18 HLG; 2 unspecified.
    public var transfer: Int
    /// Matrix coefficients (0 for RGB samples).
    public var matrix: Int
    public var isFullRange: Bool
    /// Bits a sample as stored.
    public var bitsPerComponent: Int
    /// The luminance the file says its brightest signal stands for (cd/m²), nil when it says none.
    public var peakLuminance: Double?
    /// True when the file declares the code points (false: they are the unspecified defaults).
    public var declaresCICP = true

    public init(primaries: Int, transfer: Int, matrix: Int, isFullRange: Bool, bitsPerComponent: Int, peakLuminance: Double? = nil) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.isFullRange = isFullRange
        self.bitsPerComponent = bitsPerComponent
        self.peakLuminance = peakLuminance
    }

    /// PQ (SMPTE ST 2084) or HLG (ARIB STD-B67).
    public var isHighDynamicRange: Bool { transfer == 16 || transfer == 18 }

    /// True when libvips' own reading of the samples (as sRGB) would show them wrong: an HDR
    /// transfer, or primaries other than BT.709's (and unspecified).
    public var needsConversion: Bool { declaresCICP && (isHighDynamicRange || ![1, 2].contains(primaries)) }

    /// The colour encoding of a HEIF or AVIF file's primary image (libheif, boxes only), nil
    /// when libheif cannot read the file. Without an nclx box (an ICC profile, or nothing),
    /// `declaresCICP` is false and only `bitsPerComponent` is known.
    public static func heif(_ data: Data) -> ColourEncoding? {
        read(data, wi_heif_colour_info)
    }

    /// The colour encoding of a JPEG XL file's decoded pixels (libjxl, headers only), nil when
    /// libjxl cannot read that far; `declaresCICP` is false when an ICC profile alone
    /// describes them.
    public static func jxl(_ data: Data) -> ColourEncoding? {
        read(data, wi_jxl_colour_info)
    }

    private static func read(
        _ data: Data, _ reader: (UnsafeRawPointer?, Int, UnsafeMutablePointer<wi_colour_info>?) -> Int32
    ) -> ColourEncoding? {
        guard !data.isEmpty else { return nil }
        var info = wi_colour_info()
        let status = data.withUnsafeBytes { raw in reader(raw.baseAddress, raw.count, &info) }
        guard status == 0 else { return nil }
        var encoding = ColourEncoding(
            primaries: Int(info.primaries), transfer: Int(info.transfer), matrix: Int(info.matrix),
            isFullRange: info.full_range != 0, bitsPerComponent: Int(max(info.bits, 8)),
            peakLuminance: info.peak_luminance > 0 ? Double(info.peak_luminance) : nil
        )
        encoding.declaresCICP = info.has_cicp != 0
        return encoding
    }
}

extension VipsImageRef {
    /// This image, whose samples are in `encoding`, as 8-bit sRGB (alpha kept), lazily: PQ and
    /// HLG tone mapped (BT.2390's EETF, 203 cd/m² to SDR white), wide primaries mapped into
    /// sRGB's gamut keeping hue. `signalMax` is the 16-bit code of full signal (65535, or
    /// `(1 << bits - 1) << (16 - bits)` for samples libvips widened by a shift); 8-bit samples
    /// need none. The ICC profile is dropped.
    public func toneMappedToSRGB(_ encoding: ColourEncoding, signalMax: Int) throws(VipsError) -> VipsImageRef {
        guard let result = wi_tone_map_lazy(
            pointer, Int32(encoding.transfer), Int32(encoding.primaries), Int32(signalMax), encoding.peakLuminance ?? 0
        ) else {
            throw Vips.lastError(or: "tone mapping failed")
        }
        return VipsImageRef(result)
    }

    /// True when the samples are 16 bits (libvips' `ushort`).
    public var isSixteenBit: Bool { vips_image_get_format(pointer) == VIPS_FORMAT_USHORT }
}
