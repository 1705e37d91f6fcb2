import Logging
import WebImageSupport

/// A warning logged at most once a `period`: a storage that is down fails every request, and
/// one line per request would flood the log. The next line logged says how many were held back.
final class ThrottledWarning: Sendable {
    let period: Duration
    private let state = Locked<(last: ContinuousClock.Instant?, heldBack: Int)>((nil, 0))

    init(period: Duration) {
        self.period = period
    }

    /// Logs `message` with `metadata` unless a line was logged within the period.
    func warn(_ message: @autoclosure () -> Logger.Message, metadata: Logger.Metadata, logger: Logger) {
        let now = ContinuousClock.now
        let heldBack = state.withLock { state -> Int? in
            if let last = state.last, now - last < period {
                state.heldBack += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.heldBack
        }
        guard let heldBack else { return }
        var metadata = metadata
        if heldBack > 0 { metadata["held_back"] = "\(heldBack)" }
        logger.warning(message(), metadata: metadata)
    }
}
