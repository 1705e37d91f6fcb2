import Foundation
import LibVips

/// JPEG through libjpeg-turbo's TurboJPEG API, for images up to `maxPixelCount`: decode at the
/// DCT scale nearest above the asked size, encode straight from pixels. On such images
/// libvips' fixed cost per pipeline outweighs the work; larger ones, CMYK files, files
/// TurboJPEG cannot read, and encodes that need more than plain pixels (alpha to flatten, a
/// size or byte budget) go to `VipsImageCoder`, which gives the same results.
public final class TurboJPEGCoder: ThrowingImageCoder {
    public static let shared = TurboJPEGCoder()

    /// Images above this many pixels (source or encoded) go to libvips, which streams them
    /// instead of holding a whole bitmap. Same bound as the cached colour transforms.
    public static let maxPixelCount = VipsImageRef.cachedTransformMaxPixels

    private let fallback: VipsImageCoder

    /// A coder that hands what it does not take to `fallback`.
    public init(fallback: VipsImageCoder = .shared) {
        self.fallback = fallback
    }

    public func canDecode(from data: Data) -> Bool {
        ImageFormat(sniffing: data) == .jpeg
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        format == .jpeg
    }

    public func decode(_ data: Data, options: ImageCoderOptions) throws(ImageCodingError) -> Image {
        guard let loader = VipsLoader(format: ImageFormat(sniffing: data)), loader.format == .jpeg,
              let stored = TurboJPEG.header(of: data), !stored.isCMYK,
              stored.width * stored.height <= Self.maxPixelCount
        else { return try fallback.decode(data, options: options) }
        // libvips reads the header too: orientation, colour profile, and the pixel limit.
        let header = try loader.header(of: data, options: options)
        let size = Self.outputSize(header: header, plan: DecodePlan(header: header, options: options))
        // Decode at the smallest DCT scale that still covers the output, in stored orientation.
        let needed = header.orientation >= 5 ? (size.height, size.width) : (size.width, size.height)
        let scaled = TurboJPEG.scaledSize(stored, minimumWidth: needed.0, minimumHeight: needed.1)
        let profile = VipsImageRef.isSRGBProfile(header.iccProfile) ? nil : header.iccProfile
        let orientation = header.orientation
        var pipeline = ImagePipeline { () throws(VipsError) in
            try VipsImageRef.wrapping(TurboJPEG.decodeRGBA(data, size: scaled, iccProfile: profile), orientation: orientation)
        }
        if orientation > 1 {
            pipeline = pipeline.appending { image throws(VipsError) in try image.call("autorot") }
        }
        let upright = orientation >= 5 ? (scaled.height, scaled.width) : (scaled.width, scaled.height)
        if upright != (size.width, size.height) {
            let horizontal = Double(size.width) / Double(upright.0)
            let vertical = Double(size.height) / Double(upright.1)
            pipeline = pipeline.appending { image throws(VipsError) in
                try image.call("resize", "scale=\(horizontal),vscale=\(vertical)")
            }
        }
        var pixels: PixelBuffer?
        if !options.decodeUseLazyDecoding {
            do {
                pixels = try pipeline.build().renderInline()
            } catch {
                throw .corruptData(format: .jpeg, reason: error.message)
            }
        }
        return Image(
            pipeline: pixels.map(ImagePipeline.bitmap) ?? pipeline, pixels: pixels,
            pixelWidth: size.width, pixelHeight: size.height, scale: options.decodeScaleFactor,
            format: .jpeg, hasAlpha: false, sourceByteCount: data.count
        )
    }

    /// The upright size `plan` gives, computed as libvips' thumbnail does (fit: the longer
    /// relative side fills the box, the other rounds to the nearest pixel).
    static func outputSize(header: VipsHeader, plan: DecodePlan) -> (width: Int, height: Int) {
        switch plan.mode {
        case .full:
            return (header.width, header.height)
        case let .thumbnail(width, height, stretch):
            if stretch { return (width, height) }
            let factor = min(Double(width) / Double(header.width), Double(height) / Double(header.height))
            return (
                max(1, min(width, Int((Double(header.width) * factor).rounded()))),
                max(1, min(height, Int((Double(header.height) * factor).rounded())))
            )
        }
    }

    public func encode(_ image: Image, format: ImageFormat, options: ImageCoderOptions) throws(ImageCodingError) -> Data {
        let box = options.encodeMaxPixelSize
        let fitsBox = box.width < 1 || box.height < 1 || (image.pixelWidth <= Int(box.width) && image.pixelHeight <= Int(box.height))
        guard format == .jpeg, !image.hasAlpha, fitsBox, options.encodeMaxFileSize <= 0,
              image.pixelWidth * image.pixelHeight <= Self.maxPixelCount
        else { return try fallback.encode(image, format: format, options: options) }
        do {
            let pixels = try image.makeVipsImage().render()
            return try TurboJPEG.encode(pixels, quality: VipsSaver.qualityValue(options.encodeCompressionQuality))
        } catch {
            throw .encodingFailed(format: .jpeg, reason: error.message)
        }
    }
}
