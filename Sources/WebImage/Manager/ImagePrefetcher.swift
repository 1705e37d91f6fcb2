import Foundation
internal import ImageEngine

/// Warms the cache with images that will be needed soon: SDWebImage's `SDWebImagePrefetcher`.
/// At most `maxConcurrentPrefetchCount` loads run at once across all its prefetches, with
/// `.lowPriority` by default, through its manager (so every stage is shared with other loads).
public final class ImagePrefetcher: Sendable {
    /// The prefetcher over `WebImageManager.shared`.
    public static let shared = ImagePrefetcher()

    /// The manager that loads.
    public let imageManager: WebImageManager

    private struct Settings {
        var maxConcurrentPrefetchCount = 3
        var options: WebImageOptions = .lowPriority
        var context: WebImageContext?
        var prefetchesToDiskOnly = false
    }

    private struct Job {
        let token: PrefetchToken
        let url: URL
    }

    private struct Queue {
        var waiting: [Job] = []
        var next = 0
        var running = 0
        var tokens: [ObjectIdentifier: PrefetchToken] = [:]
        /// A thread is starting loads; a load that completes at once (a memory hit) asks it for
        /// another pass instead of starting loads itself, so cache hits never recurse.
        var isStarting = false
        var startRequested = false
    }

    private let settings = Locked(Settings())
    private let queue = Locked(Queue())

    /// A prefetcher loading through `imageManager`.
    public init(imageManager: WebImageManager = .shared) {
        self.imageManager = imageManager
    }

    /// Loads running at once (default 3).
    public var maxConcurrentPrefetchCount: Int {
        get { settings.withLock { $0.maxConcurrentPrefetchCount } }
        set {
            settings.withLock { $0.maxConcurrentPrefetchCount = max(1, newValue) }
            startWaiting()
        }
    }

    /// The options of every prefetch load (default `.lowPriority`). `.queryDiskDataSync` and
    /// `.queryMemoryDataSync` are ignored: a load starts on the thread where another ended,
    /// which may be a cooperative-pool thread.
    public var options: WebImageOptions {
        get { settings.withLock { $0.options } }
        set { settings.withLock { $0.options = newValue } }
    }

    /// The context of every prefetch load.
    public var context: WebImageContext? {
        get { settings.withLock { $0.context } }
        set { settings.withLock { $0.context = newValue } }
    }

    /// When true, images are fetched into the disk cache only: not decoded (`.avoidDecodeImage`)
    /// and not kept in memory.
    public var prefetchesToDiskOnly: Bool {
        get { settings.withLock { $0.prefetchesToDiskOnly } }
        set { settings.withLock { $0.prefetchesToDiskOnly = newValue } }
    }

    /// Prefetches `urls`. `progress` gets (URLs done, successes and failures alike; total);
    /// `completed` gets (URLs loaded, URLs that failed) once all are done or the token is cancelled.
    @discardableResult
    public func prefetchURLs(
        _ urls: [URL], progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil,
        completed: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) -> PrefetchToken {
        let token = PrefetchToken(total: urls.count, progress: progress, completed: completed)
        token.onCancel = { [weak self] token in self?.cancelled(token) }
        guard !urls.isEmpty else {
            token.complete()
            return token
        }
        queue.withLock { queue in
            queue.tokens[ObjectIdentifier(token)] = token
            queue.waiting += urls.map { Job(token: token, url: $0) }
        }
        startWaiting()
        return token
    }

    /// Prefetches `urls` and returns (loaded, failed); cancelling the task cancels the prefetch.
    public func prefetchURLs(
        _ urls: [URL], progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async -> (finished: Int, skipped: Int) {
        let holder = OperationHolder()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                holder.set(prefetchURLs(urls, progress: progress) { continuation.resume(returning: ($0, $1)) })
            }
        } onCancel: {
            holder.cancel()
        }
    }

    /// Cancels every prefetch of this prefetcher.
    public func cancelPrefetching() {
        let tokens = queue.withLock { Array($0.tokens.values) }
        for token in tokens { token.cancel() }
    }

    // MARK: Scheduling

    private func startWaiting() {
        let mayStart = queue.withLock { queue -> Bool in
            queue.startRequested = true
            guard !queue.isStarting else { return false }
            queue.isStarting = true
            return true
        }
        guard mayStart else { return }
        let limit = maxConcurrentPrefetchCount
        let (options, context) = loadSettings()
        while let jobs = nextJobs(limit: limit) {
            for job in jobs {
                let operation = imageManager.loadImage(with: job.url, options: options, context: context) { [weak self] image, _, error, _, finished, _ in
                    guard finished else { return }
                    job.token.record(success: image != nil && error == nil)
                    self?.jobEnded(job)
                }
                job.token.track(operation)
            }
        }
    }

    /// The jobs to start now, or nil (ending the pass) when no pass was asked for since the last.
    private func nextJobs(limit: Int) -> [Job]? {
        queue.withLock { queue -> [Job]? in
            guard queue.startRequested else {
                queue.isStarting = false
                return nil
            }
            queue.startRequested = false
            var jobs: [Job] = []
            while queue.running < limit, queue.next < queue.waiting.count {
                let job = queue.waiting[queue.next]
                queue.next += 1
                guard !job.token.isCancelled else { continue }
                queue.running += 1
                jobs.append(job)
            }
            if queue.next == queue.waiting.count {
                queue.waiting = []
                queue.next = 0
            }
            return jobs
        }
    }

    private func loadSettings() -> (WebImageOptions, WebImageContext?) {
        settings.withLock { settings in
            let options = settings.options.subtracting(.synchronousQueries)
            guard settings.prefetchesToDiskOnly else { return (options, settings.context) }
            var context = settings.context ?? WebImageContext()
            context.storeCacheType = .disk
            context.queryCacheType = .disk
            return (options.union(.avoidDecodeImage), context)
        }
    }

    private func jobEnded(_ job: Job) {
        queue.withLock { queue in
            queue.running -= 1
            if job.token.isDone { queue.tokens[ObjectIdentifier(job.token)] = nil }
        }
        startWaiting()
    }

    private func cancelled(_ token: PrefetchToken) {
        queue.withLock { $0.tokens[ObjectIdentifier(token)] = nil }
    }
}

/// One `prefetchURLs` call: SDWebImage's `SDWebImagePrefetchToken`.
public final class PrefetchToken: WebImageOperation {
    private struct State {
        var done = 0
        var finished = 0
        var skipped = 0
        var isCompleted = false
        var isCancelled = false
        var operations: [ObjectIdentifier: CombinedOperation] = [:]
        var onCancel: (@Sendable (PrefetchToken) -> Void)?
    }

    /// URLs in this prefetch.
    public let totalCount: Int
    private let progress: (@Sendable (Int, Int) -> Void)?
    private let completed: (@Sendable (Int, Int) -> Void)?
    private let state = Locked(State())

    init(total: Int, progress: (@Sendable (Int, Int) -> Void)?, completed: (@Sendable (Int, Int) -> Void)?) {
        totalCount = total
        self.progress = progress
        self.completed = completed
    }

    var onCancel: (@Sendable (PrefetchToken) -> Void)? {
        get { state.withLock { $0.onCancel } }
        set { state.withLock { $0.onCancel = newValue } }
    }

    /// URLs loaded so far.
    public var finishedCount: Int { state.withLock { $0.finished } }
    /// URLs that failed so far.
    public var skippedCount: Int { state.withLock { $0.skipped } }
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }
    var isDone: Bool { state.withLock { $0.isCompleted } }

    /// Stops the loads of this prefetch; `completed` runs with the counts so far.
    public func cancel() {
        let (operations, onCancel) = state.withLock { state -> ([CombinedOperation], (@Sendable (PrefetchToken) -> Void)?) in
            guard !state.isCancelled else { return ([], nil) }
            state.isCancelled = true
            defer { state.operations = [:] }
            return (Array(state.operations.values), state.onCancel)
        }
        for operation in operations { operation.cancel() }
        onCancel?(self)
        complete()
    }

    func track(_ operation: CombinedOperation) {
        let cancelNow = state.withLock { state -> Bool in
            guard !state.isCancelled else { return true }
            state.operations[ObjectIdentifier(operation)] = operation
            return false
        }
        if cancelNow { operation.cancel() }
    }

    func record(success: Bool) {
        let (done, shouldComplete) = state.withLock { state -> (Int, Bool) in
            guard !state.isCancelled else { return (state.done, false) }
            state.done += 1
            if success { state.finished += 1 } else { state.skipped += 1 }
            return (state.done, state.done == totalCount)
        }
        progress?(done, totalCount)
        if shouldComplete { complete() }
    }

    func complete() {
        let counts = state.withLock { state -> (Int, Int)? in
            guard !state.isCompleted else { return nil }
            state.isCompleted = true
            return (state.finished, state.skipped)
        }
        if let counts { completed?(counts.0, counts.1) }
    }
}
