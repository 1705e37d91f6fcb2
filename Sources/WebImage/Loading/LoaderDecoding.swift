import Foundation
import Logging

/// How a loader turns received bytes into an image: SDWebImage's `SDImageLoaderDecodeImageData`,
/// shared by every built-in loader.
enum LoaderDecoding {
    static let logger = Logger(label: "swift-webimage.loader")

    /// The coder options a load asks for: the context's, then the options' switches, then the
    /// scale written in the file name (`@2x`, `@3x`) when the context gives none.
    static func coderOptions(for url: URL?, options: DownloaderOptions, context: WebImageContext?) -> ImageCoderOptions {
        var coderOptions = context?.decodeOptions ?? ImageCoderOptions()
        if context?.imageScaleFactor == nil, context?.imageDecodeOptions == nil, let url {
            coderOptions.decodeScaleFactor = scaleFactor(forKey: url.deletingPathExtension().lastPathComponent)
        }
        if options.contains(.decodeFirstFrameOnly) { coderOptions.decodeFirstFrameOnly = true }
        if options.contains(.scaleDownLargeImages), coderOptions.decodeScaleDownLimitBytes == 0 {
            coderOptions.decodeScaleDownLimitBytes = ImageCoderOptions.defaultScaleDownLimitBytes
        }
        if options.contains(.avoidDecodeImage) { coderOptions.decodeUseLazyDecoding = true }
        return coderOptions
    }

    /// SDWebImage's `SDImageScaleFactorForKey`: 2 or 3 for names ending in `@2x` / `@3x`.
    static func scaleFactor(forKey name: String) -> Double {
        if name.hasSuffix("@2x") { return 2 }
        if name.hasSuffix("@3x") { return 3 }
        return 1
    }

    /// Decodes `data` with the context's coder (else the shared coders); a failure is
    /// `WebImageError.badImageData`, with the coder's reason logged. Blocking: call it on the
    /// blocking pool.
    static func decode(_ data: Data, url: URL?, options coderOptions: ImageCoderOptions, context: WebImageContext?) throws(WebImageError) -> Image {
        guard !data.isEmpty else { throw .badImageData }
        let coder: any ImageCoder = context?.imageCoder ?? ImageCodersManager.shared
        do {
            let image = try coder.decode(data, options: coderOptions)
            guard image.pixelWidth > 0, image.pixelHeight > 0 else { throw ImageCodingError.emptyData }
            return image
        } catch {
            logger.debug("image data does not decode", metadata: ["url": "\(url?.absoluteString ?? "-")", "reason": "\(error)"])
            throw .badImageData
        }
    }
}
