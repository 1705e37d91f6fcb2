/// A frame provider that remembers why the last frame it could not give failed
/// (`animatedImageFrame(at:)` returns nil), so that an encoder reading the frames reports that
/// (an animation over its time budget) rather than only the frame's index.
protocol FrameFailureRecording: Sendable {
    /// The failure of the last frame not given, if any.
    var lastFrameFailure: ImageCodingError? { get }
}
