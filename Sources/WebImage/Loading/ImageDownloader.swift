import AsyncHTTPClient
import Foundation
internal import ImageEngine
import Metrics
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads images over HTTP(S): SDWebImage's `SDWebImageDownloader`, on AsyncHTTPClient.
///
/// Callers of the same URL share one request; at most `maxConcurrentDownloads` run at once, the
/// others wait by priority, then in `executionOrder`. Transient failures are retried, a dropped
/// body resumes with a range request when the server allows it, and the body is decoded once per
/// distinct set of decode options among the callers.
public final class ImageDownloader: ImageLoader {
    /// The downloader `ImageLoadersManager.shared` uses.
    public static let shared = ImageDownloader(config: .default, isShared: true)

    /// The configuration the downloader was made with.
    public let config: ImageDownloaderConfig

    private struct State {
        var headers: [String: String]
        var requestModifier: (any DownloaderRequestModifierProtocol)?
        var responseModifier: (any DownloaderResponseModifierProtocol)?
        var decryptor: (any DownloaderDecryptorProtocol)?
        /// Every download running or waiting.
        var operations: [ObjectIdentifier: DownloadOperation] = [:]
        /// The downloads a new caller of the same key joins.
        var sharedOperations: [DownloadKey: DownloadOperation] = [:]
        var queue = DownloadQueue()
        var running: Set<ObjectIdentifier> = []
        var maxConcurrentDownloads: Int
        var isSuspended = false
        var isInvalidated = false
    }

    private let state: Locked<State>
    private let clients: DownloadClients
    private let hops: HopByHopClient
    private let broadcaster = DownloadEventBroadcaster()
    private let observability: DownloadObservability
    private let isShared: Bool

    /// A downloader with its own HTTP client (connection pool).
    public convenience init(config: ImageDownloaderConfig = .default) {
        self.init(config: config, isShared: false)
    }

    private init(config: ImageDownloaderConfig, isShared: Bool) {
        self.config = config
        self.isShared = isShared
        var clientConfig = HTTPClient.Configuration()
        let timeout = TimeAmount.nanoseconds(Int64(config.effectiveTimeout * 1e9))
        clientConfig.timeout = HTTPClient.Configuration.Timeout(connect: timeout, read: timeout)
        // Bodies are kept as sent: no Content-Encoding is asked for and none is decoded, so a
        // compression bomb stays its compressed size, within `maximumResponseSize`.
        clientConfig.decompression = .disabled
        // A refused connection fails at once instead of being retried until the deadline.
        clientConfig.connectionPool.retryConnectionEstablishment = false
        clientConfig.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, config.maxConcurrentDownloads)
        // No span or header of the client's own: it would take the context of the task that runs
        // the transfer, which may be another caller's; `makeOperation` sends the caller's.
        clientConfig.tracing.tracer = nil
        clients = DownloadClients(configuration: clientConfig)
        hops = HopByHopClient(clients: clients, sourceGuard: config.sourceGuard, maximumRedirects: config.maximumRedirects)
        observability = DownloadObservability(factory: config.metricsFactory ?? MetricsSystem.factory)
        var headers = ["Accept": "image/*,*/*;q=0.8", "User-Agent": Self.defaultUserAgent]
        if let username = config.username, let password = config.password {
            headers["Authorization"] = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        }
        state = Locked(State(headers: headers, maxConcurrentDownloads: max(1, config.maxConcurrentDownloads)))
    }

    deinit {
        clients.shutdown()
    }

    /// `<process>/<version> (Linux) swift-webimage`, as SDWebImage names its app and system.
    static let defaultUserAgent: String = {
        let process = ProcessInfo.processInfo
        let version = process.operatingSystemVersion
        return "\(process.processName) (Linux \(version.majorVersion).\(version.minorVersion).\(version.patchVersion)) swift-webimage"
    }()

    // MARK: Settings

    /// Sets (or with nil removes) a header sent with every request.
    public func setValue(_ value: String?, forHTTPHeaderField field: String) {
        state.withLock { $0.headers[field] = value }
    }

    /// The value of a header sent with every request.
    public func value(forHTTPHeaderField field: String) -> String? {
        state.withLock { $0.headers[field] }
    }

    /// Changes every request before it is sent (a context's modifier takes its place).
    public var requestModifier: (any DownloaderRequestModifierProtocol)? {
        get { state.withLock { $0.requestModifier } }
        set { state.withLock { $0.requestModifier = newValue } }
    }

    /// Changes every response before it is checked (a context's modifier takes its place).
    public var responseModifier: (any DownloaderResponseModifierProtocol)? {
        get { state.withLock { $0.responseModifier } }
        set { state.withLock { $0.responseModifier = newValue } }
    }

    /// Turns every body into image data (a context's decryptor takes its place).
    public var decryptor: (any DownloaderDecryptorProtocol)? {
        get { state.withLock { $0.decryptor } }
        set { state.withLock { $0.decryptor = newValue } }
    }

    /// Downloads running at once; a change applies to the next start.
    public var maxConcurrentDownloads: Int {
        get { state.withLock { $0.maxConcurrentDownloads } }
        set {
            state.withLock { $0.maxConcurrentDownloads = max(1, newValue) }
            startWaiting()
        }
    }

    /// While true, no waiting download starts; running ones go on.
    public var isSuspended: Bool {
        get { state.withLock { $0.isSuspended } }
        set {
            state.withLock { $0.isSuspended = newValue }
            startWaiting()
        }
    }

    /// Downloads running or waiting.
    public var currentDownloadCount: Int {
        state.withLock { $0.operations.count }
    }

    /// The callers attached to the downloads running or waiting (for tests that hold the queue
    /// until every caller has joined).
    var currentCallerCount: Int {
        let operations = state.withLock { Array($0.operations.values) }
        return operations.reduce(0) { count, operation in count + operation.state.withLock { $0.callers.count } }
    }

    /// Start, response, stop and finish events of every download, from now on. Each access
    /// gives a new stream; events are kept for a slow reader up to 1,024.
    public var events: AsyncStream<DownloadEvent> {
        broadcaster.makeStream()
    }

    // MARK: Downloading

    /// Downloads `url`. `completed` runs once with `finished == true` (and, with
    /// `.progressiveLoad`, with partial images before that); a nil or empty URL completes at once
    /// with `.invalidURL` and returns nil.
    @discardableResult
    public func downloadImage(
        with url: URL?, options: DownloaderOptions = [], context: WebImageContext? = nil,
        progress: ImageLoaderProgress? = nil, completed: ImageLoaderCompletion? = nil
    ) -> DownloadToken? {
        download(url, options: options, context: context, decodes: true,
                 callbacks: DownloadCallbacks(progress: progress, completion: completed, callbackQueue: context?.callbackQueue))
    }

    private func download(
        _ url: URL?, options: DownloaderOptions, context: WebImageContext?, decodes: Bool, callbacks: DownloadCallbacks
    ) -> DownloadToken? {
        guard let url, !url.absoluteString.isEmpty else {
            callbacks.finish(nil, nil, WebImageError.invalidURL)
            return nil
        }
        let key = DownloadKey(url: url, validators: context?.downloadValidators)
        // A caller with a modifier or decryptor of its own gets a request of its own: closures
        // cannot be compared, and another caller's must not shape its result.
        let shared = context?.downloadRequestModifier == nil && context?.downloadResponseModifier == nil
            && context?.downloadDecryptor == nil
        let attached = state.withLock { state -> Result<DownloadToken, WebImageError> in
            guard !state.isInvalidated else { return .failure(.invalidDownloadOperation) }
            if shared, let operation = state.sharedOperations[key],
               let id = operation.addCaller(options: options, context: context, decodes: decodes, callbacks: callbacks) {
                state.queue.raisePriority(of: operation, to: DownloadPriority(options))
                return .success(DownloadToken(operation: operation, callerID: id, callbacks: callbacks))
            }
            guard let operation = makeOperation(key: key, options: options, context: context, state: state) else {
                return .failure(.invalidDownloadOperation)
            }
            guard let id = operation.addCaller(options: options, context: context, decodes: decodes, callbacks: callbacks) else {
                return .failure(.invalidDownloadOperation)
            }
            state.operations[ObjectIdentifier(operation)] = operation
            if shared { state.sharedOperations[key] = operation }
            state.queue.enqueue(operation, priority: DownloadPriority(options))
            return .success(DownloadToken(operation: operation, callerID: id, callbacks: callbacks))
        }
        switch attached {
        case .success(let token):
            startWaiting()
            return token
        case .failure(let error):
            callbacks.finish(nil, nil, error)
            return nil
        }
    }

    /// Downloads `url` and returns the image with its data, response and validators; cancelling
    /// the task cancels this caller, which then throws `WebImageError.cancelled`.
    public func downloadImage(
        with url: URL, options: DownloaderOptions = [], context: WebImageContext? = nil,
        progress: ImageLoaderProgress? = nil
    ) async throws -> ImageDownloadResult {
        let (image, data, response, metrics) = try await download(url, options: options, context: context, decodes: true, progress: progress)
        guard let image else { throw WebImageError.badImageData }
        return ImageDownloadResult(
            image: image, data: data, response: response,
            validators: response.flatMap(HTTPValidators.init(response:)), metrics: metrics
        )
    }

    /// Downloads `url` without decoding it (shared with image downloads of the same URL): the
    /// bytes after the decryptor, with the response, validators and metrics.
    public func downloadData(
        with url: URL, options: DownloaderOptions = [], context: WebImageContext? = nil,
        progress: ImageLoaderProgress? = nil
    ) async throws -> ImageDataDownloadResult {
        let (_, data, response, metrics) = try await download(url, options: options, context: context, decodes: false, progress: progress)
        return ImageDataDownloadResult(
            data: data, response: response, validators: response.flatMap(HTTPValidators.init(response:)), metrics: metrics
        )
    }

    private func download(
        _ url: URL, options: DownloaderOptions, context: WebImageContext?, decodes: Bool, progress: ImageLoaderProgress?
    ) async throws -> (Image?, Data, HTTPURLResponse?, DownloadMetrics) {
        let operation = OperationHolder()
        let box = CallbacksBox()
        let callbacks = DownloadCallbacks(progress: progress, completion: { image, data, error, finished in
            guard finished, let (callbacks, continuation) = box.take() else { return }
            if let data, error == nil {
                let outcome = callbacks?.outcome
                continuation.resume(returning: (image, data, outcome?.response, outcome?.metrics ?? DownloadMetrics()))
            } else {
                continuation.resume(throwing: error ?? WebImageError.badImageData)
            }
        }, callbackQueue: nil)
        box.callbacks = callbacks
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                box.setContinuation(continuation)
                operation.set(download(url, options: options, context: context, decodes: decodes, callbacks: callbacks))
            }
        } onCancel: {
            operation.cancel()
        }
    }

    /// Cancels every download, running or waiting.
    public func cancelAllDownloads() {
        let operations = state.withLock { Array($0.operations.values) }
        for operation in operations { operation.cancelAll() }
    }

    /// Cancels every download (when `cancelPendingOperations`) and closes the connection pool;
    /// later downloads fail with `.invalidDownloadOperation`. Does nothing on the shared downloader.
    public func invalidateSessionAndCancel(_ cancelPendingOperations: Bool) {
        guard !isShared else { return }
        state.withLock { $0.isInvalidated = true }
        if cancelPendingOperations { cancelAllDownloads() }
        clients.shutdown()
    }

    // MARK: ImageLoader

    /// True for http and https URLs.
    public func canRequestImage(for url: URL?) -> Bool {
        guard let scheme = url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    @discardableResult
    public func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext?,
        progress: ImageLoaderProgress?, completed: ImageLoaderCompletion?
    ) -> (any WebImageOperation)? {
        downloadImage(with: url, options: DownloaderOptions(options), context: context, progress: progress, completed: completed)
    }

    /// The validators of the response a `DownloadToken` of this downloader received.
    public func responseValidators(of operation: any WebImageOperation) -> HTTPValidators? {
        (operation as? DownloadToken)?.validators
    }

    // MARK: Scheduling

    /// The operation for a new request, with the headers and modifiers in force now; nil when
    /// the request modifier refuses the request.
    private func makeOperation(key: DownloadKey, options: DownloaderOptions, context: WebImageContext?, state: State) -> DownloadOperation? {
        var request = URLRequest(url: key.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: config.effectiveTimeout)
        for (field, value) in state.headers { request.setValue(value, forHTTPHeaderField: field) }
        if let modifier = context?.downloadRequestModifier ?? state.requestModifier {
            guard let modified = modifier.modifiedRequest(with: request) else { return nil }
            request = modified
        }
        // After the modifier: a signing one (S3's) does not sign the trace headers.
        if config.propagatesTraceContext { TraceHeaders.inject(into: &request) }
        let environment = DownloadEnvironment(
            hops: hops, config: config,
            responseModifier: context?.downloadResponseModifier ?? state.responseModifier,
            decryptor: context?.downloadDecryptor ?? state.decryptor,
            events: broadcaster, observability: observability
        )
        // The operation keeps its downloader (and so the HTTP client) alive until it ends, as a
        // URL session keeps its delegate: `ImageDownloader().downloadImage(...)` completes.
        return DownloadOperation(key: key, request: request, options: options, environment: environment) { operation in
            self.operationEnded(operation)
        }
    }

    private func operationEnded(_ operation: DownloadOperation) {
        state.withLock { state in
            state.operations[ObjectIdentifier(operation)] = nil
            if state.sharedOperations[operation.key] === operation { state.sharedOperations[operation.key] = nil }
            state.running.remove(ObjectIdentifier(operation))
            state.queue.remove(operation)
        }
        startWaiting()
    }

    /// Starts waiting downloads while slots are free.
    private func startWaiting() {
        let starting = state.withLock { state -> [DownloadOperation] in
            var starting: [DownloadOperation] = []
            while !state.isSuspended, state.running.count < state.maxConcurrentDownloads,
                  let next = state.queue.next(order: config.executionOrder) {
                state.running.insert(ObjectIdentifier(next))
                starting.append(next)
            }
            return starting
        }
        for operation in starting { operation.start() }
    }
}

/// What `ImageDownloader.downloadImage(with:options:context:progress:) async` returns.
public struct ImageDownloadResult: Sendable {
    /// The decoded image.
    public var image: Image
    /// The body, as received (after the decryptor).
    public var data: Data
    /// The response (after the response modifier).
    public var response: HTTPURLResponse?
    /// The response's ETag and Last-Modified, to keep with a cached copy.
    public var validators: HTTPValidators?
    /// Timings and counts.
    public var metrics: DownloadMetrics
}

/// What `ImageDownloader.downloadData(with:options:context:progress:)` returns.
public struct ImageDataDownloadResult: Sendable {
    /// The body, as received (after the decryptor).
    public var data: Data
    /// The response (after the response modifier).
    public var response: HTTPURLResponse?
    /// The response's ETag and Last-Modified, to keep with a cached copy.
    public var validators: HTTPValidators?
    /// Timings and counts.
    public var metrics: DownloadMetrics
}

private typealias DownloadOutcome = (Image?, Data, HTTPURLResponse?, DownloadMetrics)

/// Links the async forms' continuation and callbacks, which refer to each other.
private final class CallbacksBox: Sendable {
    private let state = Locked<(callbacks: DownloadCallbacks?, continuation: CheckedContinuation<DownloadOutcome, any Error>?)>((nil, nil))

    var callbacks: DownloadCallbacks? {
        get { state.withLock { $0.callbacks } }
        set { state.withLock { $0.callbacks = newValue } }
    }

    func setContinuation(_ continuation: CheckedContinuation<DownloadOutcome, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// The callbacks and the continuation, once: the box lets go of both.
    func take() -> (DownloadCallbacks?, CheckedContinuation<DownloadOutcome, any Error>)? {
        state.withLock { state in
            defer { state = (nil, nil) }
            return state.continuation.map { (state.callbacks, $0) }
        }
    }
}
