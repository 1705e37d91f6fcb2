import Foundation
internal import ImageEngine

/// Helpers around decoding: SDWebImage's `SDImageCoderHelper`. The decoding ones block (libvips
/// work): from `async` code, call them through `BlockingPool.run`.
public enum ImageCoderHelper {
    /// 60 MiB, SDWebImage's default limit for `decodedAndScaledDownImage`.
    public static let defaultScaleDownLimitBytes = ImageCoderOptions.defaultScaleDownLimitBytes

    /// `image` with its pixels decoded (SDWebImage's force decode); nil when they cannot be.
    /// Animated images decode their first frame; the others stay with their provider.
    public static func decodedImage(with image: Image) -> Image? {
        try? image.decoded()
    }

    /// `image` decoded, scaled down first (aspect ratio kept) when its RGBA8 bitmap would take
    /// more than `limitBytes` (0 or less: the default). A lazy image is scaled while its source
    /// decodes, so the full bitmap is never held. Animated images are returned as they are, as
    /// SDWebImage does.
    public static func decodedAndScaledDownImage(with image: Image, limitBytes: Int = defaultScaleDownLimitBytes) -> Image? {
        guard !image.isAnimated else { return image }
        guard let (width, height) = scaledDownPixelSize(
            width: image.pixelWidth, height: image.pixelHeight,
            limitBytes: limitBytes > 0 ? limitBytes : defaultScaleDownLimitBytes
        ) else { return decodedImage(with: image) }
        let scaled = Image(
            recipe: image.recipe.appending { image throws(VipsError) in
                try image.thumbnail(width: width, height: height, sizing: .force)
            },
            pixels: nil, pixelWidth: width, pixelHeight: height, scale: image.scale, format: image.format,
            hasAlpha: image.hasAlpha, isVector: image.isVector, metadata: image.metadata
        )
        return decodedImage(with: scaled)
    }

    /// The size an image of `width` x `height` pixels scales down to, aspect kept, so that its
    /// RGBA8 bitmap fits in `limitBytes`; nil when it fits already or there is no limit (0).
    /// Decoding with `decodeScaleDownLimitBytes` shrinks to the same size.
    static func scaledDownPixelSize(width: Int, height: Int, limitBytes: Int) -> (width: Int, height: Int)? {
        let bytes = Double(width) * Double(height) * 4
        guard limitBytes > 0, bytes > Double(limitBytes) else { return nil }
        let factor = (Double(limitBytes) / bytes).squareRoot()
        return (max(1, Int(Double(width) * factor)), max(1, Int(Double(height) * factor)))
    }

    /// The size to draw an image of `imageSize` at for `scaleSize`, as SDWebImage computes it:
    /// fitted inside (`preserveAspectRatio`, the other side rounded up) or stretched to it, and
    /// no larger than `imageSize` unless `shouldScaleUp`. Sizes that are not positive and
    /// finite give `imageSize`.
    public static func scaledSize(
        imageSize: CGSize, scaleSize: CGSize, preserveAspectRatio: Bool, shouldScaleUp: Bool
    ) -> CGSize {
        let width = imageSize.width
        let height = imageSize.height
        let usable = [width, height, scaleSize.width, scaleSize.height].allSatisfy { $0 > 0 && $0.isFinite }
        guard usable else { return imageSize }
        var result: CGSize
        if preserveAspectRatio {
            let pixelRatio = width / height
            let scaleRatio = scaleSize.width / scaleSize.height
            result = pixelRatio > scaleRatio
                ? CGSize(width: scaleSize.width, height: (scaleSize.width / pixelRatio).rounded(.up))
                : CGSize(width: (scaleSize.height * pixelRatio).rounded(.up), height: scaleSize.height)
        } else {
            result = scaleSize
        }
        if !shouldScaleUp {
            result = CGSize(width: min(width, result.width), height: min(height, result.height))
        }
        return result
    }

    /// An animation of `frames`, playing forever; the frame itself for one frame; nil for none,
    /// or for frames of different pixel sizes (an animation has one size).
    public static func animatedImage(with frames: [ImageFrame]) -> Image? {
        guard let first = frames.first else { return nil }
        guard frames.count > 1 else { return first.image }
        let stills = frames.map { ImageFrame(image: $0.image.frame(at: 0) ?? $0.image, duration: $0.duration) }
        guard stills.allSatisfy({ $0.image.pixelWidth == first.image.pixelWidth && $0.image.pixelHeight == first.image.pixelHeight })
        else { return nil }
        return Image(sharing: stills[0].image, animatedImageProvider: ImageFramesProvider(frames: stills))
    }

    /// The frames of `image` with their durations (one frame of duration 0 for a still image);
    /// nil when a frame cannot be decoded (`decodeFrames(from:)` says why).
    public static func frames(from image: Image) -> [ImageFrame]? {
        try? decodeFrames(from: image)
    }

    /// `frames(from:)`, saying why a frame cannot be given (`Image.decodeFrame(at:)`):
    /// `overLimit` when a decode limit or the time budget stopped it.
    public static func decodeFrames(from image: Image) throws(ImageCodingError) -> [ImageFrame] {
        try (0..<image.frameCount).map { index throws(ImageCodingError) in
            ImageFrame(image: try image.decodeFrame(at: index), duration: image.frameDuration(at: index))
        }
    }
}
