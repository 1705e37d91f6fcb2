/// The order an `AnimatedImagePlayer` shows frames in: SDWebImage's `SDAnimatedImagePlaybackMode`.
public enum PlaybackMode: Int, Sendable {
    /// First to last, then again.
    case normal = 0
    /// Last to first, then again.
    case reverse
    /// First to last and back to the first, the end frames shown once per turn.
    case bounce
    /// Last to first and back to the last.
    case reversedBounce

    /// The frame a loop starts (and ends) on.
    func startIndex(frameCount: Int) -> Int {
        self == .normal || self == .bounce ? 0 : frameCount - 1
    }

    /// The frame after `index`; a bounce turns at either end (`turned` records the direction).
    func index(after index: Int, frameCount: Int, turned: inout Bool) -> Int {
        switch self {
        case .normal: return (index + 1) % frameCount
        case .reverse: return (index - 1 + frameCount) % frameCount
        case .bounce, .reversedBounce:
            var step = (self == .bounce) != turned ? 1 : -1
            if !(0..<frameCount).contains(index + step) {
                turned.toggle()
                step = -step
            }
            return index + step
        }
    }
}
