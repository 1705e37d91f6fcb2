import Foundation
import ImageEngine
import Synchronization
import Testing
import WebImage
import WebImageTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A downloader of its own for one test, with exact retry waits.
func makeDownloader(_ configure: (inout ImageDownloaderConfig) -> Void = { _ in }) -> ImageDownloader {
    var config = ImageDownloaderConfig()
    config.retryPolicy = DownloadRetryPolicy(maxRetryCount: 2, baseDelay: 0.05, maxDelay: 5, jitter: 0)
    configure(&config)
    return ImageDownloader(config: config)
}

/// What the callback form delivered to one caller.
struct DownloadOutcome: Sendable {
    var image: WebImage.Image?
    var data: Data?
    var error: (any Error)?
    var partialImages: [WebImage.Image] = []

    var webImageError: WebImageError? { error as? WebImageError }
    var urlError: URLError? { error as? URLError }
}

/// Collects one caller's callbacks and lets a test await the final one.
final class DownloadRecorder: Sendable {
    private let state = Locked<(outcome: DownloadOutcome, finished: Bool, waiters: [CheckedContinuation<DownloadOutcome, Never>])>(
        (DownloadOutcome(), false, [])
    )
    private let progressLog = Locked<[(Int, Int)]>([])
    private let completions = Atomic(0)
    private let watchers = Locked<[(condition: @Sendable (Int, Int) -> Bool, continuation: CheckedContinuation<Void, Never>)]>([])

    var progress: ImageLoaderProgress {
        { [self] received, expected, _ in
            progressLog.withLock { $0.append((received, expected)) }
            checkWatchers()
        }
    }

    /// Waits until `condition(bytes received, partial images so far)` holds, or the download
    /// finished (nothing more will come: the test's expectations then say what was missing), or
    /// the task is cancelled (its time limit passed): a test that waits never hangs the run.
    func wait(until condition: @escaping @Sendable (_ received: Int, _ partialImages: Int) -> Bool) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                watchers.withLock { $0.append((condition, continuation)) }
                checkWatchers(releasingAll: Task.isCancelled)
            }
        } onCancel: {
            checkWatchers(releasingAll: true)
        }
    }

    private func checkWatchers(releasingAll: Bool = false) {
        let received = progressLog.withLock { $0.last?.0 ?? 0 }
        let (partials, finished) = state.withLock { ($0.outcome.partialImages.count, $0.finished) }
        let ready = watchers.withLock { watchers in
            let isReady = { (watcher: (condition: @Sendable (Int, Int) -> Bool, continuation: CheckedContinuation<Void, Never>)) in
                releasingAll || finished || watcher.condition(received, partials)
            }
            let ready = watchers.filter(isReady)
            watchers.removeAll(where: isReady)
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    var completion: ImageLoaderCompletion {
        { [self] image, data, error, finished in
            let waiters = state.withLock { state -> [CheckedContinuation<DownloadOutcome, Never>] in
                guard finished else {
                    if let image { state.outcome.partialImages.append(image) }
                    return []
                }
                completions.add(1, ordering: .relaxed)
                state.outcome.image = image
                state.outcome.data = data
                state.outcome.error = error
                state.finished = true
                defer { state.waiters = [] }
                return state.waiters
            }
            let outcome = state.withLock { $0.outcome }
            for waiter in waiters { waiter.resume(returning: outcome) }
            checkWatchers()
        }
    }

    /// The progress reports so far.
    var progressReports: [(Int, Int)] { progressLog.withLock { $0 } }
    /// How many times the final completion ran.
    var completionCount: Int { completions.load(ordering: .relaxed) }

    /// Waits for the final completion.
    func outcome() async -> DownloadOutcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> DownloadOutcome? in
                if state.finished { return state.outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

extension ImageDownloader {
    /// Downloads `url` with a new recorder and returns the final outcome with the time it took.
    func timedDownload(_ url: URL) async -> (outcome: DownloadOutcome, elapsed: Duration, token: DownloadToken?, recorder: DownloadRecorder) {
        let started = ContinuousClock.now
        let (token, recorder) = recordedDownload(url)
        let outcome = await recorder.outcome()
        return (outcome, ContinuousClock.now - started, token, recorder)
    }

    /// Starts a download recorded by a new recorder.
    func recordedDownload(
        _ url: URL?, options: DownloaderOptions = [], context: WebImageContext? = nil
    ) -> (DownloadToken?, DownloadRecorder) {
        let recorder = DownloadRecorder()
        let token = downloadImage(with: url, options: options, context: context, progress: recorder.progress, completed: recorder.completion)
        return (token, recorder)
    }
}
