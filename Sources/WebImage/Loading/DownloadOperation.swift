import AsyncHTTPClient
import Foundation
internal import ImageEngine
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What identifies one shared request: the URL, and the validators of a revalidation (a
/// conditional request answers differently from a plain one, so they are not shared).
struct DownloadKey: Hashable, Sendable {
    let url: URL
    let validators: HTTPValidators?
}

/// What a download needs from its downloader, fixed when it is made.
struct DownloadEnvironment: Sendable {
    let hops: HopByHopClient
    let config: ImageDownloaderConfig
    let responseModifier: (any DownloaderResponseModifierProtocol)?
    let decryptor: (any DownloaderDecryptorProtocol)?
    let events: DownloadEventBroadcaster
    let observability: DownloadObservability
}

/// One HTTP request shared by every caller of the same URL (SDWebImage's download operation).
/// It waits in the downloader's queue, runs once, and is never reused: a caller that comes after
/// it finished or was cancelled gets a new one. Cancelling one caller completes only that caller;
/// when the last caller leaves, the request stops and its connection is closed.
final class DownloadOperation: Sendable {
    struct Caller {
        let id: UInt64
        let options: DownloaderOptions
        let context: WebImageContext?
        let coderOptions: ImageCoderOptions
        /// False for callers that want the bytes only.
        let decodes: Bool
        let callbacks: DownloadCallbacks
        /// When this caller's download deadline passes, if it has one.
        let deadline: ContinuousClock.Instant?
        /// The most body bytes this caller takes (its context's `maximumResponseSize`), when
        /// lower than the downloader's limit.
        let maximumBytes: Int?
    }

    enum Phase {
        case waiting
        case running(Task<Void, Never>)
        /// The body is in; callers are being decoded for (late callers join).
        case finishing(data: Data)
        case finished
    }

    struct State {
        var phase = Phase.waiting
        var callers: [Caller] = []
        var nextCallerID: UInt64 = 0
        var response: HTTPURLResponse?
        var metrics = DownloadMetrics()
        var lastProgressReported = 0
        var partialDecode: PartialDecode?
        /// When the transfer started.
        var startedAt: ContinuousClock.Instant?
        /// The timers of the callers' deadlines, cancelled when the operation ends.
        var deadlineTimers: [Task<Void, Never>] = []
    }

    let key: DownloadKey
    let request: URLRequest
    /// The options of the first caller: they decide TLS verification.
    let options: DownloaderOptions
    let environment: DownloadEnvironment
    let state = Locked(State())
    /// Called once when the operation is done (finished, failed or cancelled): frees its slot.
    private let onEnd: @Sendable (DownloadOperation) -> Void

    init(key: DownloadKey, request: URLRequest, options: DownloaderOptions, environment: DownloadEnvironment,
         onEnd: @escaping @Sendable (DownloadOperation) -> Void) {
        self.key = key
        self.request = request
        self.options = options
        self.environment = environment
        self.onEnd = onEnd
    }

    var url: URL { key.url }

    /// The highest priority among the callers.
    var priority: DownloadPriority {
        state.withLock { state in state.callers.map { DownloadPriority($0.options) }.max() ?? .low }
    }

    /// Adds a caller unless the operation is done; returns its id. A caller that joins while the
    /// body is being decoded for the others is decoded for too. A caller with a deadline (its
    /// context's, else the downloader's) fails with `URLError(.timedOut)` when it passes.
    func addCaller(options: DownloaderOptions, context: WebImageContext?, decodes: Bool, callbacks: DownloadCallbacks) -> UInt64? {
        let seconds = context?.downloadDeadline ?? environment.config.downloadDeadline
        let deadline = seconds.flatMap { $0 > 0 && $0.isFinite ? ContinuousClock.now + .seconds($0) : nil }
        return state.withLock { state in
            if case .finished = state.phase { return nil }
            let id = state.nextCallerID
            state.nextCallerID += 1
            let coderOptions = ImageDecoding.coderOptions(forName: key.url.absoluteString, options: WebImageOptions(decodingSwitchesOf: options), context: context)
            state.callers.append(Caller(
                id: id, options: options, context: context, coderOptions: coderOptions, decodes: decodes, callbacks: callbacks,
                deadline: deadline,
                maximumBytes: context?.maximumResponseSize.flatMap { $0 < environment.config.maximumResponseSize ? max(0, $0) : nil }
            ))
            if let deadline, let seconds {
                state.deadlineTimers.append(Task { [weak self] in
                    guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil, let self else { return }
                    drop(callerID: id, error: Self.timedOut(url, "the download's deadline of \(seconds) s passed"))
                })
            }
            return id
        }
    }

    /// The latest deadline among the callers still waiting for the transfer; nil when one of
    /// them has none.
    var latestDeadline: ContinuousClock.Instant? {
        state.withLock { state in
            let deadlines = state.callers.map(\.deadline)
            guard !deadlines.contains(where: { $0 == nil }) else { return nil }
            return deadlines.compactMap { $0 }.max()
        }
    }

    /// `URLError(.timedOut)` for a bound of the whole download that passed.
    static func timedOut(_ url: URL, _ reason: String) -> URLError {
        URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: reason])
    }

    /// Completes caller `id` with `.cancelled`; stops the request when no caller is left.
    func cancel(callerID id: UInt64) {
        drop(callerID: id, error: WebImageError.cancelled)
    }

    /// Completes caller `id` with `error`; stops the request when no caller is left.
    private func drop(callerID id: UInt64, error: any Error) {
        let (caller, stopped) = state.withLock { state -> (Caller?, Task<Void, Never>??) in
            guard let index = state.callers.firstIndex(where: { $0.id == id }) else { return (nil, nil) }
            let caller = state.callers.remove(at: index)
            guard state.callers.isEmpty else { return (caller, nil) }
            switch state.phase {
            case .waiting:
                state.phase = .finished
                return (caller, .some(nil))
            case .running(let task):
                state.phase = .finished
                return (caller, .some(task))
            case .finishing, .finished:
                return (caller, nil)
            }
        }
        if let stopped {
            stopped?.cancel()
            recordTransferEnd(error: error)
        }
        caller?.callbacks.finish(nil, nil, error, operation: self)
        if stopped != nil { end() }
    }

    /// Fails the callers whose own byte limit `bytes` (declared or received) passes, each alone
    /// with `URLError(.dataLengthExceedsMaximum)`; the transfer stops when none is left.
    func dropCallers(over bytes: Int) {
        let over = state.withLock { state in state.callers.filter { $0.maximumBytes.map { bytes > $0 } ?? false } }
        for caller in over {
            drop(callerID: caller.id, error: Self.tooLarge(url: url, limit: caller.maximumBytes ?? 0))
        }
    }

    /// Cancels every caller.
    func cancelAll() {
        let ids = state.withLock { $0.callers.map(\.id) }
        for id in ids { cancel(callerID: id) }
    }

    /// Starts the request unless every caller left while it waited.
    func start() {
        state.withLock { state in
            guard case .waiting = state.phase else { return }
            state.phase = .running(Task { await self.run() })
        }
    }

    var response: HTTPURLResponse? { state.withLock { $0.response } }
    var metrics: DownloadMetrics { state.withLock { $0.metrics } }

    /// Posts the stop (and finish) event and counts the outcome: when the transfer ends, before
    /// the callers hear of it, as SDWebImage posts its notifications.
    func recordTransferEnd(error: (any Error)?) {
        state.withLock { state in
            guard let startedAt = state.startedAt else { return }
            let elapsed = ContinuousClock.now - startedAt
            state.metrics.totalTime = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        }
        environment.events.post(.stop(url: url))
        if error == nil { environment.events.post(.finish(url: url)) }
        environment.observability.countOutcome(error)
    }

    /// Frees the slot once every caller is served.
    func end() {
        let timers = state.withLock { state in
            defer { state.deadlineTimers = [] }
            return state.deadlineTimers
        }
        for timer in timers { timer.cancel() }
        onEnd(self)
    }

    /// True while the transfer may still deliver (no cancellation, not finished).
    var isTransferring: Bool {
        state.withLock { state in
            if case .running = state.phase { return true }
            return false
        }
    }
}
