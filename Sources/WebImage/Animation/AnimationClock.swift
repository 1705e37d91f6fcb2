import Foundation
internal import ImageEngine

/// What drives an `AnimatedImagePlayer`: calls its tick with the time elapsed since the previous
/// tick. A display link on Apple platforms; here a timer (`TimerAnimationClock`), or
/// `ManualAnimationClock` for tests that step time by hand.
public protocol AnimationClock: Sendable {
    /// Starts calling `tick` with the seconds elapsed since the previous call (or since `start`).
    func start(_ tick: @escaping @Sendable (TimeInterval) -> Void)
    /// Stops the ticks; `start` may be called again.
    func stop()
}

/// A clock ticking `framesPerSecond` times a second on a background queue (60 by default).
public final class TimerAnimationClock: AnimationClock {
    private let interval: DispatchTimeInterval
    private let timer = Locked<DispatchSourceTimer?>(nil)

    /// A clock ticking `framesPerSecond` times a second.
    public init(framesPerSecond: Int = 60) {
        interval = .nanoseconds(1_000_000_000 / max(1, framesPerSecond))
    }

    public func start(_ tick: @escaping @Sendable (TimeInterval) -> Void) {
        let interval = interval
        timer.withLock { running in
            running?.cancel()
            let source = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .userInteractive))
            let last = Locked(DispatchTime.now().uptimeNanoseconds)
            source.setEventHandler {
                let now = DispatchTime.now().uptimeNanoseconds
                let elapsed = last.withLock { previous in defer { previous = now }; return now &- previous }
                tick(Double(elapsed) / 1_000_000_000)
            }
            source.schedule(deadline: .now() + interval, repeating: interval)
            source.resume()
            running = source
        }
    }

    public func stop() {
        timer.withLock { running in
            running?.cancel()
            running = nil
        }
    }

    deinit { stop() }
}

/// A clock that ticks only when told: `advance(by:)` gives the player exactly that much time.
public final class ManualAnimationClock: AnimationClock {
    private let tick = Locked<(@Sendable (TimeInterval) -> Void)?>(nil)

    /// A stopped clock.
    public init() {}

    public func start(_ tick: @escaping @Sendable (TimeInterval) -> Void) {
        self.tick.withLock { $0 = tick }
    }

    public func stop() {
        tick.withLock { $0 = nil }
    }

    /// True between `start` and `stop`.
    public var isRunning: Bool { tick.withLock { $0 != nil } }

    /// Ticks once with `seconds` elapsed (nothing when stopped).
    public func advance(by seconds: TimeInterval) {
        tick.withLock { $0 }?(seconds)
    }
}
