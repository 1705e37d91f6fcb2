import HTTPTypes
import NIOCore
import NIOPosix
import WebImage
import WebImageSupport

/// `GET /health`: a tiny image encoded through the library, on a thread of its own, within
/// 5 s: 200 `OK`, else 503. Its own thread, not `BlockingPool`'s: a server whose workers are all
/// decoding is busy, not unhealthy, and its health must not queue behind them. Checks asked for
/// while one runs share it. A check that hangs is answered 503 at its timeout, not awaited: a
/// blocking call cannot be cancelled, and a task group would wait for it.
final class HealthCheck: Sendable {
    private let thread: NIOThreadPool
    private let running = SharedWork<Bool>()
    private let timeout: TimeAmount
    private let check: @Sendable () -> Bool

    /// A check that runs `check` (by default, a 4x4 PNG encoded by the engine), answered false
    /// once `timeout` has passed without its end.
    init(timeout: TimeAmount = .seconds(5), check: @escaping @Sendable () -> Bool = HealthCheck.engineEncodes) {
        self.timeout = timeout
        self.check = check
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    deinit {
        thread.shutdownGracefully { _ in }
    }

    /// Ends the check's thread (the server's service, at the application's stop).
    func shutdown() async {
        try? await thread.shutdownGracefully()
    }

    /// Whether the engine encodes a tiny image.
    static func engineEncodes() -> Bool {
        Image(rgba8Pixels: [UInt8](repeating: 200, count: 4 * 4 * 4), width: 4, height: 4)?.encodedData(format: .png) != nil
    }

    /// Whether the check passes, run on the check's own thread, within its time.
    func passes() async -> Bool {
        let result = try? await running.value(forKey: "health") { await self.runWithinTimeout() }
        return result?.0 ?? false
    }

    /// The check's outcome, or false at the timeout, whichever comes first: both arrive on one
    /// event loop, and the first resumes the caller.
    private func runWithinTimeout() async -> Bool {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let work = thread.runIfActive(eventLoop: eventLoop, check)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiting = Locked<CheckedContinuation<Bool, Never>?>(continuation)
            let answer: @Sendable (Bool) -> Void = { passed in
                waiting.withLock { waiting in
                    defer { waiting = nil }
                    return waiting
                }?.resume(returning: passed)
            }
            let timer = eventLoop.scheduleTask(in: timeout) { answer(false) }
            work.whenComplete { result in
                timer.cancel()
                answer((try? result.get()) ?? false)
            }
        }
    }

    /// 200 `OK` when the check passes, else 503 `unhealthy`.
    func response() async -> ImageServerResponse {
        let works = await passes()
        return .text(works ? "OK" : "unhealthy", status: works ? .ok : .serviceUnavailable, cacheControl: "no-cache")
    }
}
