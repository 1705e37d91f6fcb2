import Foundation

/// Frames of an animated image that say why a frame cannot be given. SDWebImage's
/// `animatedImageFrame(at:)` answers nil alike for a frame out of range, one that does not
/// decode, and one a decode limit or the time budget stopped; `decodeFrame(at:)` throws which.
/// A provider written with typed errors implements `decodeFrame(at:)`, and the optional form
/// follows from it.
public protocol ThrowingAnimatedImageProvider: AnimatedImageProvider {
    /// Frame `index` as a still image, or why not: `overLimit` when a decode limit or the time
    /// budget (`decodeTimeBudget.animation`) stopped it, `corruptData` when it does not decode
    /// or is out of range.
    func decodeFrame(at index: Int) throws(ImageCodingError) -> Image
}

extension ThrowingAnimatedImageProvider {
    /// `decodeFrame(at:)`, nil where it throws.
    public func animatedImageFrame(at index: Int) -> Image? {
        try? decodeFrame(at: index)
    }
}

extension AnimatedImageProvider {
    /// Frame `index`, or why not: a `ThrowingAnimatedImageProvider`'s reason, another
    /// provider's nil as a frame of `format` that cannot be decoded.
    func frameOrError(at index: Int, format: ImageFormat) throws(ImageCodingError) -> Image {
        if let throwing = self as? any ThrowingAnimatedImageProvider { return try throwing.decodeFrame(at: index) }
        guard let frame = animatedImageFrame(at: index) else {
            throw .corruptData(format: format, reason: "frame \(index) cannot be decoded")
        }
        return frame
    }
}

extension ImageCodingError {
    /// A frame asked for that an animation of `count` frames in `format` does not have.
    static func noFrame(_ index: Int, of count: Int, format: ImageFormat) -> ImageCodingError {
        .corruptData(format: format, reason: "no frame \(index) in an animation of \(count) frames")
    }
}

extension Image {
    /// Frame `index` as a still image (the image itself, or its first frame, at 0), or why not:
    /// `overLimit` when a decode limit or the time budget stopped it, `corruptData` when it does
    /// not decode or is out of range. `frame(at:)` answers nil for all of these; a provider
    /// that is not a `ThrowingAnimatedImageProvider` says only that the frame is missing.
    public func decodeFrame(at index: Int) throws(ImageCodingError) -> Image {
        guard index >= 0, index < frameCount else { throw .noFrame(index, of: frameCount, format: format) }
        guard index > 0, let provider = animatedImageProvider else { return isAnimated ? Image(sharing: self, animatedImageProvider: nil) : self }
        return try provider.frameOrError(at: index, format: format)
    }
}
