import Foundation

/// One frame of an animation and how long it shows: SDWebImage's `SDImageFrame`.
public struct ImageFrame: Sendable {
    /// The frame, a still image.
    public let image: Image
    /// How long the frame shows, in seconds.
    public let duration: TimeInterval

    /// A frame showing `image` for `duration` seconds.
    public init(image: Image, duration: TimeInterval) {
        self.image = image
        self.duration = duration
    }
}
