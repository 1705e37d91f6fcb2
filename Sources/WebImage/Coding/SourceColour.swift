import Foundation
internal import ImageEngine

/// The colour encoding a file declares, read beside libvips, which drops it: a HEIF/AVIF nclx
/// box (libheif), a JPEG XL colour encoding (libjxl), a PNG's `cICP` chunk and bit depth.
enum SourceColour {
    /// The encoding `data` declares, nil for formats that declare none this way (JPEG, WebP,
    /// GIF, TIFF, ...) or a file its reader cannot parse (libvips then reports the damage).
    static func encoding(of data: Data, format: ImageFormat) -> ColourEncoding? {
        switch format {
        case .heic, .heif, .avif: ColourEncoding.heif(data)
        case .jxl: ColourEncoding.jxl(data)
        case .png: png(data)
        default: nil
        }
    }

    /// A PNG's bit depth (IHDR) and `cICP` chunk (PNG third edition), from the chunks before
    /// the image data.
    static func png(_ data: Data) -> ColourEncoding? {
        guard let (chunks, _) = try? APNGStructure.chunks(of: data, stopAtImageData: true),
              let header = chunks.first, header.type == "IHDR", header.body.count == 13
        else { return nil }
        let bits = Int(header.body[header.body.startIndex + 8])
        var encoding = ColourEncoding(primaries: 2, transfer: 2, matrix: 0, isFullRange: true, bitsPerComponent: max(bits, 8))
        encoding.declaresCICP = false
        if let cicp = chunks.first(where: { $0.type == "cICP" }), cicp.body.count == 4 {
            let body = Array(cicp.body)
            encoding.primaries = Int(body[0])
            encoding.transfer = Int(body[1])
            encoding.matrix = Int(body[2])
            encoding.isFullRange = body[3] != 0
            encoding.declaresCICP = true
        }
        return encoding
    }

    /// The 16-bit code libvips gives a full signal in a file of `format` with `bits` bits a
    /// sample: libvips 8.14's HEIF loader widens 10- and 12-bit samples by a shift (1023 << 6),
    /// the PNG and JPEG XL loaders scale to 65535.
    static func signalMax(format: ImageFormat, bits: Int) -> Int {
        guard [.heic, .heif, .avif].contains(format), bits > 8, bits < 16 else { return 65535 }
        return ((1 << bits) - 1) << (16 - bits)
    }

    /// The public description of a source: its declared encoding, else what libvips' image says
    /// (`bytesPerSample`: 1, 2 or 4).
    static func info(_ encoding: ColourEncoding?, bytesPerSample: Int, hasICCProfile: Bool) -> ImageColorInfo {
        guard let encoding else {
            return ImageColorInfo(bitsPerComponent: 8 * max(1, bytesPerSample), hasICCProfile: hasICCProfile)
        }
        return ImageColorInfo(
            primaries: ColorPrimaries(rawValue: encoding.primaries), transfer: TransferCharacteristics(rawValue: encoding.transfer),
            matrixCoefficients: encoding.matrix, isFullRange: encoding.isFullRange, bitsPerComponent: encoding.bitsPerComponent,
            hasICCProfile: hasICCProfile, peakLuminance: encoding.peakLuminance
        )
    }
}
