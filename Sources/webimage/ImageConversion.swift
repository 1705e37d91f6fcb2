import Foundation
import WebImage

/// What `convert` does to one image: decode (shrinking on load to `--thumbnail`; with
/// `--gravity`, shrinking to cover it and cutting it out), apply the `--transform` chain, encode.
/// A batch and a single conversion both run this, so that their outputs are the same bytes.
struct ImageConversion: Sendable {
    /// Decode and encode options: lazy decoding, the thumbnail size, the quality, metadata kept
    /// or not, HDR kept or tone mapped.
    let options: ImageCoderOptions
    /// With `--gravity`: the box the thumbnail covers and is cut to, and where it is cut.
    let coveredThumbnail: (size: CGSize, gravity: ImageGravity)?
    let transformer: PipelineTransformer?

    init(
        thumbnail: CGSize?, gravity: ImageGravity? = nil, quality: Int, transformer: PipelineTransformer?, keepsMetadata: Bool,
        keepsHDR: Bool = false, encoding: EncodingKnobs = EncodingKnobs()
    ) {
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = true
        if let thumbnail, let gravity {
            coveredThumbnail = (thumbnail, gravity)
        } else {
            coveredThumbnail = nil
            if let thumbnail { options.decodeThumbnailPixelSize = thumbnail }
        }
        options.encodeCompressionQuality = Double(quality) / 100
        options.encodeKeepsMetadata = keepsMetadata
        // `--hdr keep`: sources of more than 8 bits keep their samples to the formats that hold them.
        options.decodeToHDR = keepsHDR
        options.encodeInterlaced = encoding.interlaced
        options.encodePaletteColorCount = encoding.paletteColorCount
        options.encodeEffort = encoding.effort
        self.options = options
        self.transformer = transformer
    }

    /// The image decoded from `data` and transformed, and its encoding as `format`. Blocks: call
    /// it on the blocking pool. `key` names the input for the transformers.
    func convert(_ data: Data, key: String, to format: ImageFormat) throws -> (image: Image, encoded: Data) {
        var options = options
        if let coveredThumbnail {
            options.decodeThumbnailPixelSize = try Self.coveringSize(of: data, box: coveredThumbnail.size)
        }
        var image = try ImageCodersManager.shared.decode(data, options: options)
        if let coveredThumbnail {
            let cut = CGSize(width: Double(coveredThumbnail.size.width) / image.scale, height: Double(coveredThumbnail.size.height) / image.scale)
            guard let cropped = GravityCroppingTransformer(size: cut, gravity: coveredThumbnail.gravity).transformedImage(with: image, forKey: key) else {
                throw ConversionError.transformDoesNotApply
            }
            image = cropped
        }
        if let transformer {
            guard let transformed = transformer.transformedImage(with: image, forKey: key) else {
                throw ConversionError.transformDoesNotApply
            }
            image = transformed
        }
        return (image, try ImageCodersManager.shared.encode(image, format: format, options: options))
    }
}

extension ImageConversion {
    /// The thumbnail size that shrinks the image in `data` (upright, never enlarged, aspect kept)
    /// until it covers `box`, each side rounded up so that the fitted decode still covers it;
    /// `.zero` (no shrink) when the image is no larger. Decoded at that size (shrink-on-load),
    /// it is then cut to `box` by `--gravity` (vipsthumbnail's `--smartcrop`): faces and
    /// attention are looked for in the shrunk image.
    static func coveringSize(of data: Data, box: CGSize) throws -> CGSize {
        let header = try ImageHeader(probing: data)
        let (width, height) = (Double(header.pixelWidth), Double(header.pixelHeight))
        let factor = min(1, max(Double(box.width) / width, Double(box.height) / height))
        guard factor < 1 else { return .zero }
        return CGSize(width: (width * factor).rounded(.up), height: (height * factor).rounded(.up))
    }
}

/// `--interlace`, `--colors`, `--effort`: how the encoder writes.
struct EncodingKnobs: Sendable {
    var interlaced = false
    /// 0: full colour.
    var paletteColorCount = 0
    /// nil: libvips' default.
    var effort: Int?
}

/// Why an input was not converted, in words (beside the library's own errors).
enum ConversionError: Error, CustomStringConvertible {
    case transformDoesNotApply
    case unknownFormat
    case replacesInput
    case sameOutput(as: String)

    var description: String {
        switch self {
        case .transformDoesNotApply: "the transform does not apply to this image"
        case .unknownFormat: "cannot tell the image's format: give --format"
        case .replacesInput: "the output would replace the input"
        case .sameOutput(let other): "the same output as \(other)"
        }
    }
}
