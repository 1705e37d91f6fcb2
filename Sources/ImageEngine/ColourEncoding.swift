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

/// 16-bit samples in memory, RGB or RGBA interleaved, rows top to bottom, full signal at 65535.
public struct SixteenBitSamples: Sendable {
    public let width: Int
    public let height: Int
    /// 3 RGB, 4 RGBA.
    public let bands: Int
    public let samples: [UInt16]

    public init(width: Int, height: Int, bands: Int, samples: [UInt16]) {
        self.width = width
        self.height = height
        self.bands = bands
        self.samples = samples
    }

    /// Encoded as AVIF (`av1`) or HEIC at `bits` (10 or 12), at libheif's `quality` (0...100)
    /// and `effort` (0...9, as libvips' heifsave: AV1's speed is 9 - effort; HEVC's x265 takes
    /// none), with an nclx box stating `encoding`'s primaries and transfer (libheif).
    public func heifData(av1: Bool, bits: Int, quality: Int, effort: Int?, encoding: ColourEncoding) throws(VipsError) -> Data {
        try encoded { data, length in
            wi_heif_save_hdr(
                samples, Int32(width), Int32(height), Int32(bands), av1 ? 1 : 0, Int32(bits), Int32(quality), Int32(effort ?? -1),
                Int32(encoding.primaries), Int32(encoding.transfer), &data, &length
            )
        }
    }

    /// Encoded as JPEG XL at butteraugli `distance` (0 lossless) and `effort` (1...9) with
    /// `encoding`'s primaries, transfer and peak luminance as its colour encoding (libjxl).
    public func jxlData(distance: Double, effort: Int?, encoding: ColourEncoding) throws(VipsError) -> Data {
        try encoded { data, length in
            wi_jxl_save_hdr(
                samples, Int32(width), Int32(height), Int32(bands), distance, Int32(effort ?? -1), Int32(encoding.primaries),
                Int32(encoding.transfer), encoding.peakLuminance ?? 0, &data, &length
            )
        }
    }

    private func encoded(_ save: (inout UnsafeMutableRawPointer?, inout Int) -> Int32) throws(VipsError) -> Data {
        wi_warnings_clear()
        var data: UnsafeMutableRawPointer?
        var length = 0
        guard save(&data, &length) == 0, let data else { throw Vips.lastError(or: "HDR encode failed") }
        defer { free(data) }
        return Data(bytes: data, count: length)
    }
}

extension VipsImageRef {
    /// This image as 16-bit RGB or RGBA samples, full signal at 65535 (`signalMax` is the code
    /// of full signal in this image), lazily; grey ones stay grey when `keepingGrey`.
    public func sixteenBitNormalized(signalMax: Int, keepingGrey: Bool = false) throws(VipsError) -> VipsImageRef {
        var image = self
        if image.bands < 3 && !keepingGrey { image = try image.inColourSpace(.rgb16) }
        if image.isEightBit {
            image = try image.linear(multipliers: [257], addends: [0]).cast(to: .ushort)
        } else if signalMax != 65535 {
            image = try image.linear(multipliers: [65535 / Double(signalMax)], addends: [0.5]).cast(to: .ushort)
        }
        if !image.isSixteenBit { image = try image.cast(to: .ushort) }
        return image
    }

    /// This image's samples as 16-bit RGB or RGBA, full signal at 65535 (`signalMax` is the
    /// code of full signal in this image: libvips' HEIF loader widens 10 bits by a shift).
    public func renderSixteenBit(signalMax: Int) throws(VipsError) -> SixteenBitSamples {
        let image = try sixteenBitNormalized(signalMax: signalMax)
        var length = 0
        guard let memory = wi_render(image.pointer, &length) else { throw Vips.lastError(or: "cannot compute pixels") }
        defer { g_free(memory) }
        let count = length / 2
        let samples = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let target = buffer.baseAddress { memcpy(target, memory, count * 2) }
            initialized = count
        }
        return SixteenBitSamples(width: image.width, height: image.height, bands: image.bands, samples: samples)
    }
}
