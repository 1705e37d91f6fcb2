import Foundation

/// The frames of an animation made from images in memory (`ImageCoderHelper.animatedImage`).
struct ImageFramesProvider: ThrowingAnimatedImageProvider {
    let frames: [ImageFrame]

    /// Nothing: the frames were never encoded.
    var animatedImageData: Data? { nil }
    var animatedImageFrameCount: Int { frames.count }
    /// Forever, as SDWebImage's frames-made animations play.
    var animatedImageLoopCount: Int { 0 }

    func decodeFrame(at index: Int) throws(ImageCodingError) -> Image {
        guard frames.indices.contains(index) else { throw .noFrame(index, of: frames.count, format: frames.first?.image.format ?? .undefined) }
        return frames[index].image
    }

    func animatedImageDuration(at index: Int) -> TimeInterval {
        frames.indices.contains(index) ? frames[index].duration : 0
    }
}
