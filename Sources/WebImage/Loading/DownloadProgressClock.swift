internal import ImageEngine

/// When a download last received new body bytes, and so when it stalls: the bound on the time a
/// download spends without new bytes across its attempts, retry waits and resumes
/// (`ImageDownloaderConfig.stallTimeout`). New bytes are bytes beyond the most the download ever
/// held: a body that starts over makes no progress until it passes where it broke off.
final class DownloadProgressClock: Sendable {
    private struct State {
        var lastProgress: ContinuousClock.Instant
        var mostReceived = 0
    }

    private let stallLimit: Duration
    private let state: Locked<State>

    init(stallLimit: Duration, started: ContinuousClock.Instant) {
        self.stallLimit = stallLimit
        state = Locked(State(lastProgress: started))
    }

    /// The most body bytes the download held at once so far.
    var mostReceived: Int { state.withLock { $0.mostReceived } }

    /// When the download stalls unless new bytes come first.
    var stallDeadline: ContinuousClock.Instant { state.withLock { $0.lastProgress } + stallLimit }

    /// Notes the body's size after a chunk; bytes beyond the most received move the stall bound.
    func record(bodySize: Int) {
        state.withLock { state in
            guard bodySize > state.mostReceived else { return }
            state.mostReceived = bodySize
            state.lastProgress = .now
        }
    }

    /// Returns true once the stall bound passes, false when the task is cancelled first. Sleeps
    /// until the bound in force, so it wakes once per stall limit at most while bytes flow.
    ///
    /// Bytes are counted by the task that reads the body, on the cooperative pool; when that pool
    /// was starved (a busy machine), the reader and this watchdog wake together, and bytes that
    /// did arrive in time are not counted yet. So a bound found passed is checked again after a
    /// short grace, which lets the reader run first.
    func waitForStall() async -> Bool {
        var graceGiven = false
        while true {
            let deadline = stallDeadline
            if ContinuousClock.now >= deadline {
                if graceGiven { return true }
                graceGiven = true
                guard (try? await Task.sleep(for: Self.grace)) != nil else { return false }
                continue
            }
            graceGiven = false
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return false }
        }
    }

    /// The time a reader woken with the watchdog gets to count its bytes.
    static let grace = Duration.milliseconds(50)
}
