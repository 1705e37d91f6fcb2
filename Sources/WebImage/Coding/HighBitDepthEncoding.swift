import Foundation
internal import ImageEngine

/// Encodes an image decoded with `decodeToHDR` keeping its samples and colour encoding: AVIF
/// at 12 bits and HEIC at 10 or 12 with an nclx box (libheif; 10-bit AV1 aborts in Debian 12's
/// libheif 1.15 with libaom 3.6), JPEG XL with its colour encoding
/// (libjxl), PNG at 16 bits with a `cICP` chunk. libvips 8.14's savers would write none of
/// these colour encodings.
enum HighBitDepthEncoding {
    /// True when `format` keeps HDR and `options` ask for nothing only the SDR path does (a
    /// size or byte budget, a background to flatten onto).
    static func applies(to format: ImageFormat, options: ImageCoderOptions) -> Bool {
        options.encodeKeepsHDR && format.holdsHighDynamicRange && options.encodeMaxPixelSize == .zero
            && options.encodeMaxFileSize == 0 && options.encodeBackgroundColor == nil
    }

    static func encode(
        _ image: Image, _ source: HighBitDepthSource, format: ImageFormat, options: ImageCoderOptions
    ) throws(ImageCodingError) -> Data {
        // Without a declared encoding (a 16-bit PNG or TIFF), the samples are written as they are, as sRGB.
        let encoding = source.encoding ?? ColourEncoding(primaries: 1, transfer: 13, matrix: 0, isFullRange: true, bitsPerComponent: 16)
        let quality = min(max(options.encodeCompressionQuality, 0), 1) * 100
        return try ImageCodingError.catchingEncodeFailures(to: format, from: image.format) {
            switch format {
            case .png:
                // Grey samples (one band, two with alpha) stay grey, as imgproxy keeps GREY16.
                let samples = try source.build().sixteenBitNormalized(signalMax: source.signalMax, keepingGrey: true)
                let png = try samples.save("pngsave_buffer", options: "bitdepth=16,strip=true")
                return source.encoding == nil ? png : try withCICP(png, encoding)
            case .jxl:
                // The peak the source stated, else the 1,000 cd/m² the tone mapper assumes (libjxl
                // would write 255 for PQ, SDR white).
                var stated = encoding
                if stated.isHighDynamicRange, stated.peakLuminance == nil { stated.peakLuminance = 1000 }
                return try image.sixteenBitSamples().jxlData(
                    distance: jxlDistance(quality: quality), effort: VipsSaver.effort(options.encodeEffort, in: 1...9), encoding: stated
                )
            default:
                let bits = image.colorInfo.bitsPerComponent >= 12 ? 12 : 10
                return try image.sixteenBitSamples().heifData(
                    av1: format == .avif, bits: bits, quality: Int(quality.rounded()),
                    effort: VipsSaver.effort(options.encodeEffort, in: 0...9), encoding: encoding
                )
            }
        }
    }

    /// libjxl's mapping of a JPEG-like quality (0...100) to its butteraugli distance
    /// (`JxlEncoderDistanceFromQuality`, after libjxl 0.7): 90 is 1.0, 100 is 0.1.
    static func jxlDistance(quality: Double) -> Double {
        quality >= 30 ? 0.1 + (100 - quality) * 0.09 : 53.0 / 3000 * quality * quality - 23.0 / 20 * quality + 25
    }

    /// `png` with a `cICP` chunk (PNG third edition) after its IHDR: primaries, transfer,
    /// matrix 0 (RGB), full range.
    static func withCICP(_ png: Data, _ encoding: ColourEncoding) throws(ImageCodingError) -> Data {
        let headerEnd = 8 + 8 + 13 + 4
        guard png.count > headerEnd else { throw .encodingFailed(format: .png, reason: "libvips wrote no IHDR") }
        var file = Data(png.prefix(headerEnd))
        APNGStructure.appendChunk("cICP", Data([UInt8(truncatingIfNeeded: encoding.primaries), UInt8(truncatingIfNeeded: encoding.transfer), 0, 1]), to: &file)
        file.append(png.dropFirst(headerEnd))
        return file
    }
}
