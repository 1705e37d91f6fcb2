import Foundation
import Logging

/// How bytes from a loader or from the disk cache become an image: SDWebImage's
/// `SDImageLoaderDecodeImageData` and `SDImageCacheDecodeImageData`, one path for both, so an
/// image read back from disk comes out as the download gave it. A custom loader or cache
/// decodes through it to give the same images.
public enum ImageDecoding {
    static let logger = Logger(label: "swift-webimage.decoding")

    /// The coder options a load asks for: the context's, then the options' switches, then the
    /// scale written in the file name (`@2x`, `@3x`) when the context gives none. `name` is the
    /// URL, or the cache key, that the bytes came under.
    public static func coderOptions(forName name: String?, options: WebImageOptions, context: WebImageContext?) -> ImageCoderOptions {
        var coderOptions = context?.imageDecodeOptions ?? ImageCoderOptions()
        if let scale = context?.imageScaleFactor { coderOptions.decodeScaleFactor = scale }
        if let size = context?.imageThumbnailPixelSize {
            coderOptions.decodeThumbnailPixelSize = size
            coderOptions.decodePreserveAspectRatio = context?.imagePreserveAspectRatio ?? true
        }
        if context?.imageScaleFactor == nil, context?.imageDecodeOptions == nil, let name {
            coderOptions.decodeScaleFactor = ImageScaleFactor.fromName(name)
        }
        if context?.imageDecodeToHDR == true { coderOptions.decodeToHDR = true }
        if options.contains(.decodeFirstFrameOnly) { coderOptions.decodeFirstFrameOnly = true }
        if options.contains(.scaleDownLargeImages), coderOptions.decodeScaleDownLimitBytes == 0 {
            coderOptions.decodeScaleDownLimitBytes = ImageCoderOptions.defaultScaleDownLimitBytes
        }
        if options.contains(.avoidDecodeImage) { coderOptions.decodeUseLazyDecoding = true }
        if options.contains(.preloadAllFrames) { coderOptions.decodePreloadsAllFrames = true }
        return coderOptions
    }

    /// Decodes `data` with the context's coder (else the shared coders); a failure is
    /// `WebImageError.badImageData`, with the coder's reason logged. Blocking: call it on the
    /// blocking pool.
    public static func decode(_ data: Data, name: String?, options coderOptions: ImageCoderOptions, context: WebImageContext?) throws(WebImageError) -> Image {
        guard !data.isEmpty else { throw .badImageData }
        let coder: any ImageCoder = context?.imageCoder ?? ImageCodersManager.shared
        do {
            let image = try coder.decode(data, options: coderOptions)
            guard image.pixelWidth > 0, image.pixelHeight > 0 else { throw ImageCodingError.emptyData }
            guard coderOptions.decodePreloadsAllFrames, image.isAnimated, let provider = image.animatedImageProvider else { return image }
            return Image(sharing: image, animatedImageProvider: PreloadedFramesProvider(image, provider: provider))
        } catch {
            logger.debug("image data does not decode", metadata: ["name": "\(name ?? "-")", "reason": "\(error)"])
            throw .badImageData
        }
    }
}
