import Foundation

/// The frames of an animation passed through a transform, each when asked for.
struct MappedFramesProvider: AnimatedImageProvider {
    let source: any AnimatedImageProvider
    /// Frame 0, transformed already (it sets the animation's size).
    let first: Image
    let transform: @Sendable (Image) -> Image?

    /// Nothing: the source's bytes are not these frames.
    var animatedImageData: Data? { nil }
    var animatedImageFrameCount: Int { source.animatedImageFrameCount }
    var animatedImageLoopCount: Int { source.animatedImageLoopCount }

    func animatedImageFrame(at index: Int) -> Image? {
        if index == 0 { return first }
        guard let frame = source.animatedImageFrame(at: index).flatMap(transform)?.frame(at: 0),
              frame.pixelWidth == first.pixelWidth, frame.pixelHeight == first.pixelHeight
        else { return nil }
        return frame
    }

    func animatedImageDuration(at index: Int) -> TimeInterval {
        source.animatedImageDuration(at: index)
    }
}
