internal import ImageEngine

/// The CPU time a decode may take to compute its pixels, by what it makes, before it is stopped
/// with `ImageCodingError.overLimit`: the budget for work that no other decode limit counts (a
/// vector image of thousands of shapes, a PDF page drawing a form 10^8 times). CPU time, not
/// wall time: a busy machine does not stop a decode that would fit.
public struct DecodeTimeBudget: Sendable, Equatable {
    /// A still image shrunk on load (`decodeThumbnailPixelSize`, `decodeScaleDownLimitBytes`).
    public var thumbnail: Duration
    /// A still image at full size, or an animation's first frame.
    public var fullSize: Duration
    /// Every frame of an animation, read in order once.
    public var animation: Duration

    /// 2 s for a thumbnail, 3 s at full size, 5 s for an animation's frames.
    public init(thumbnail: Duration = .seconds(2), fullSize: Duration = .seconds(3), animation: Duration = .seconds(5)) {
        self.thumbnail = thumbnail
        self.fullSize = fullSize
        self.animation = animation
    }

    /// This budget less `spent` on each of its limits (none under a millisecond), for a decode
    /// that follows work on the same source which the budget should count too, such as reading
    /// its header first (`ImageHeader(probing:)` parses a whole SVG).
    public func less(_ spent: Duration) -> DecodeTimeBudget {
        func left(_ limit: Duration) -> Duration { max(.milliseconds(1), limit - max(.zero, spent)) }
        return DecodeTimeBudget(thumbnail: left(thumbnail), fullSize: left(fullSize), animation: left(animation))
    }

    /// The CPU time the calling thread has run, as budgets count it: the difference of two
    /// readings is the work done between them in this thread.
    public static var threadCPUTime: Duration { WorkBudget.threadCPUTime }

    /// The budget of a decode by `plan` (a still image or an animation's first frame).
    func limit(for plan: DecodePlan) -> Duration {
        switch plan.mode {
        case .full: fullSize
        case .thumbnail: thumbnail
        }
    }
}
