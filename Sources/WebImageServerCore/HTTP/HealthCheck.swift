import HTTPTypes
import NIOCore
import NIOPosix
import WebImage

/// `GET /health`: a tiny image encoded through the library, on a thread of its own, within
/// 5 s: 200 `OK`, else 503. Its own thread, not `BlockingPool`'s: a server whose workers are all
/// decoding is busy, not unhealthy, and its health must not queue behind them. Checks asked for
/// while one runs share it.
final class HealthCheck: Sendable {
    private let thread: NIOThreadPool
    private let running = SharedWork<Bool>()

    init() {
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

    /// Whether the engine encodes, run on the check's own thread.
    func passes() async -> Bool {
        let thread = self.thread
        let result = try? await running.value(forKey: "health") {
            try await withTimeout(seconds: 5) {
                try await thread.runIfActive {
                    Image(rgba8Pixels: [UInt8](repeating: 200, count: 4 * 4 * 4), width: 4, height: 4)?.encodedData(format: .png) != nil
                }
            }
        }
        return result?.0 ?? false
    }

    /// 200 `OK` when the check passes, else 503 `unhealthy`.
    func response() async -> ImageServerResponse {
        let works = await passes()
        return .text(works ? "OK" : "unhealthy", status: works ? .ok : .serviceUnavailable, cacheControl: "no-cache")
    }
}
