import Foundation

/// Frames of an animated image, decoded on demand: SDWebImage's `SDAnimatedImageProvider`.
public protocol AnimatedImageProvider: Sendable {
    /// The encoded data the frames come from, if kept.
    var animatedImageData: Data? { get }
    /// Number of frames.
    var animatedImageFrameCount: Int { get }
    /// Times the animation plays (0 = forever).
    var animatedImageLoopCount: Int { get }
    /// Frame `index` as a still image, or nil.
    func animatedImageFrame(at index: Int) -> Image?
    /// How long frame `index` shows, in seconds.
    func animatedImageDuration(at index: Int) -> TimeInterval
    /// Bytes the provider itself keeps in memory, such as frames decoded ahead; counted in the
    /// image's `memoryCost` (default 0: frames decoded on demand).
    var animatedImageMemoryCost: Int { get }
}

extension AnimatedImageProvider {
    public var animatedImageMemoryCost: Int { 0 }
}
