import Foundation

/// The frames of an animation made from images in memory (`ImageCoderHelper.animatedImage`).
struct ImageFramesProvider: AnimatedImageProvider {
    let frames: [ImageFrame]

    /// Nothing: the frames were never encoded.
    var animatedImageData: Data? { nil }
    var animatedImageFrameCount: Int { frames.count }
    /// Forever, as SDWebImage's frames-made animations play.
    var animatedImageLoopCount: Int { 0 }

    func animatedImageFrame(at index: Int) -> Image? {
        frames.indices.contains(index) ? frames[index].image : nil
    }

    func animatedImageDuration(at index: Int) -> TimeInterval {
        frames.indices.contains(index) ? frames[index].duration : 0
    }
}
