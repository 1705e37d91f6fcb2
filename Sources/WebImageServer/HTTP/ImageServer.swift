import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import WebImage
import WebImageSupport

/// An image server: imgproxy's URLs answered with WebImage's engine, caches and downloader.
///
/// A Swift service mounts its routes in its own Hummingbird router under a prefix:
/// ```swift
/// let images = try ImageServer(configuration: configuration)
/// let router = Router(context: ImageServerContext.self)
/// images.addRoutes(to: router.group("images"))    // GET /images/{signature}/{options}/{source}
/// ```
/// `webimage serve` is this with its own application (`ImageServer.run()`).
///
/// A request: the path is parsed and its signature checked; the result is looked up by its key
/// (memory, then disk); an `If-None-Match` that matches the result's entity tag, or the tag the
/// cached source's version gives, is answered 304 before any fetch or processing; otherwise the
/// work is shared with identical requests in flight and runs in a worker slot: the source from
/// the source cache or fetched, processed, stored. An error is never stored.
public final class ImageServer: Sendable {
    public let configuration: ImageServerConfiguration
    let parser: any ImageRequestParser
    let results: ResultStore
    let sources: SourceStore
    let slots: WorkerSlots
    let inFlight = SharedWork<ServedResult>()
    let clientGone = ClientGoneWaiters()
    let metrics: ServerMetrics
    /// Requests being answered (for the in-flight gauge).
    private let answering = Locked(0)

    /// A server with `configuration`, parsing paths with `parser`, fetching remote sources with
    /// `downloader` and counting with `metricsFactory` (nil: the global one).
    public init(
        configuration: ImageServerConfiguration, parser: any ImageRequestParser, downloader: ImageDownloader,
        metricsFactory: (any MetricsFactory)? = nil
    ) throws(ImageServerError) {
        self.configuration = configuration
        self.parser = parser
        var resultConfig = ImageCacheConfig()
        resultConfig.shouldCacheImagesInMemory = false
        resultConfig.maxDiskSize = configuration.resultCacheSize
        resultConfig.maxDiskAge = -1
        resultConfig.diskCacheSyncsWrites = configuration.resultCacheSyncsWrites
        resultConfig.metricsFactory = metricsFactory
        var sourceConfig = resultConfig
        sourceConfig.maxDiskSize = configuration.sourceCacheSize
        sourceConfig.diskCacheSyncsWrites = true
        let folder = configuration.cacheDirectory
        results = ResultStore(
            memoryBytes: configuration.memoryCacheSize,
            disk: ImageCache(namespace: "results", diskCacheDirectory: folder, config: resultConfig)
        )
        var localRoot: LocalSourceRoot?
        if let root = configuration.localFilesystemRoot {
            guard let resolved = LocalSourceRoot(path: root) else {
                throw ImageServerError.internalError("WEBIMAGE_LOCAL_FILESYSTEM_ROOT \(root) is not a folder")
            }
            localRoot = resolved
        }
        sources = SourceStore(
            disk: ImageCache(namespace: "sources", diskCacheDirectory: folder, config: sourceConfig),
            downloader: downloader, localRoot: localRoot, allowedSources: AllowedSources(configuration.allowedSources),
            maximumBytes: configuration.processing.maxSourceFileSize > 0 ? configuration.processing.maxSourceFileSize : downloader.config.maximumResponseSize
        )
        let metrics = ServerMetrics(factory: metricsFactory)
        self.metrics = metrics
        slots = WorkerSlots(workers: configuration.workers, queueSize: configuration.requestsQueueSize) { busy, queued in
            metrics.workersBusy.record(busy)
            metrics.queueDepth.record(queued)
        }
    }

    /// A server as `webimage serve` runs it: imgproxy's URLs checked with the configuration's
    /// keys and processing settings, sources fetched by `makeDownloader(configuration:)`.
    public convenience init(configuration: ImageServerConfiguration, metricsFactory: (any MetricsFactory)? = nil) throws {
        try self.init(
            configuration: configuration, parser: configuration.makeParser(),
            downloader: ImageServer.makeDownloader(configuration: configuration), metricsFactory: metricsFactory
        )
    }

    /// Adds `GET health`, the playground when configured (`/` and `playground/sign`), and
    /// `GET **` (image URLs) to `routes`: a router, or a group of it under the prefix the images
    /// live at.
    public func addRoutes<Routes: RouterMethods>(to routes: Routes) {
        routes.get("health") { _, _ in await self.health() }
        addPlaygroundRoutes(to: routes)
        routes.get("**") { request, context in
            await self.respond(to: request, context: context)
        }
    }

    // MARK: Answering

    /// The path after the routes' prefix, from its slash before the signature: the router
    /// matched `<prefix>/**`, and that pattern names the prefix.
    private func imagePath(of request: Request, context: some RequestContext) -> Substring {
        let path = Substring(request.uri.path)
        guard let pattern = context.endpointPath, pattern.hasSuffix("/**") else { return path }
        let prefix = pattern.dropLast(3)
        guard path.hasPrefix(prefix) else { return path }
        return path.dropFirst(prefix.count)
    }

    func respond(to request: Request, context: some RequestContext) async -> Response {
        let started = ContinuousClock.now
        let requestID = RequestID.take(request.headers[Self.requestIDField])
        metrics.inFlight.record(answering.withLock { count in count += 1; return count })
        defer { metrics.inFlight.record(answering.withLock { count in count -= 1; return count }) }
        let path = imagePath(of: request, context: context)
        var answer: Answer
        var loggedPath = "/" + (path.dropFirst().split(separator: "/", maxSplits: 1).dropFirst().first ?? "")
        do {
            let imageRequest = try parser.imageRequest(path: path, accept: request.headers[.accept])
            loggedPath = imageRequest.loggedPath
            if let expires = imageRequest.expires, expires <= Date() {
                throw ImageServerError.expired
            }
            let ifNoneMatch = configuration.usesETag ? request.headers[.ifNoneMatch] : nil
            if let result = results.memoryResult(forKey: imageRequest.resultKey) {
                // Answered at once: no timeout or client watch to set up.
                metrics.cacheLookup(tier: ResultStore.Tier.memory.rawValue)
                answer = .result(result, request: imageRequest, cache: ResultStore.Tier.memory.rawValue, ifNoneMatch: ifNoneMatch)
            } else {
                let closed = (context as? any ClientConnectionContext)?.connectionClosed
                answer = try await withTimeout(seconds: configuration.timeout) {
                    try await self.untilClientCloses(closed) {
                        try await self.answer(imageRequest, ifNoneMatch: ifNoneMatch)
                    }
                }
            }
        } catch let error as ImageServerError {
            answer = .failure(error)
        } catch is TimeoutError {
            answer = .failure(.timeout)
        } catch is CancellationError {
            answer = .failure(.clientClosed)
        } catch {
            answer = .failure(.internalError("\(error)"))
        }
        let response = answer.response(configuration: configuration, requestID: requestID)
        let duration = ContinuousClock.now - started
        record(answer, response: response, path: loggedPath, requestID: requestID, duration: duration)
        return response
    }

    /// Runs `work`, cancelling it when `closed` completes first (the client went away).
    private func untilClientCloses<T: Sendable>(_ closed: EventLoopFuture<Void>?, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let closed else { return try await work() }
        return try await clientGone.run(until: closed, work)
    }

    private func answer(_ request: ImageRequest, ifNoneMatch: String?) async throws -> Answer {
        if let (result, tier) = await results.result(forKey: request.resultKey) {
            metrics.cacheLookup(tier: tier.rawValue)
            return .result(result, request: request, cache: tier.rawValue, ifNoneMatch: ifNoneMatch)
        }
        metrics.cacheLookup(tier: "miss")
        if let ifNoneMatch, let version = await sources.cachedVersion(of: request.source),
           EntityTag.matches(ifNoneMatch: ifNoneMatch, EntityTag.make(sourceVersion: version, resultKey: request.resultKey)) {
            return .notModified(entityTag: EntityTag.make(sourceVersion: version, resultKey: request.resultKey), request: request)
        }
        let (result, _) = try await inFlight.value(forKey: request.resultKey) { try await self.make(request) }
        return .result(result, request: request, cache: "miss", ifNoneMatch: ifNoneMatch)
    }

    /// Fetches and processes in a worker slot, then stores the result. The slot is held from
    /// the fetch to the encode: a fetched source is stored beside the processing, and the
    /// result after the slot is free (storing waits on the disk, not the CPU).
    private func make(_ request: ImageRequest) async throws -> ServedResult {
        let (result, sourceKept) = try await slots.withSlot {
            let source: SourceImage
            let sourceKept: Task<Void, Never>?
            do {
                (source, sourceKept) = try await sources.source(request.source, maximumBytes: request.maximumSourceBytes)
            } catch ImageServerError.sourceRefused(let reason) {
                metrics.sourcesRefused.increment()
                throw ImageServerError.sourceRefused(reason)
            }
            metrics.sourceBytes.increment(by: source.data.count)
            try Task.checkCancellation()
            let started = ContinuousClock.now
            let processed = try await request.process(source)
            metrics.processingDuration.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            metrics.processed.increment()
            let metadata = ResultMetadata(
                contentType: processed.format.mimeType, fileExtension: processed.format.fileExtension,
                entityTag: EntityTag.make(sourceVersion: EntityTag.sourceVersion(source), resultKey: request.resultKey),
                lastModified: source.validators?.lastModified,
                sourceCacheControl: source.cacheControl, sourceExpires: source.expires
            )
            return (ServedResult(body: ByteBuffer(bytes: processed.data), metadata: metadata), sourceKept)
        }
        await results.store(result, forKey: request.resultKey)
        await sourceKept?.value
        return result
    }

    /// `GET /health`: a tiny image encoded through libvips, within 5 s: 200, else 503.
    func health() async -> Response {
        let works = (try? await withTimeout(seconds: 5) {
            try await BlockingPool.run {
                Image(rgba8Pixels: [UInt8](repeating: 200, count: 4 * 4 * 4), width: 4, height: 4)?
                    .encodedData(format: .png) != nil
            }
        }) ?? false
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"]
        headers[.contentLength] = works ? "2" : "9"
        return Response(status: works ? .ok : .serviceUnavailable, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: works ? "OK" : "unhealthy")))
    }

    // MARK: Logs and counts

    static let requestIDField = HTTPField.Name("X-Request-ID")!

    private func record(_ answer: Answer, response: Response, path: String, requestID: String, duration: Duration) {
        let bytes = response.body.contentLength ?? 0
        metrics.requests(status: Int(response.status.code), format: answer.format)
        metrics.requestDuration.recordNanoseconds(duration.nanoseconds)
        metrics.responseBytes.increment(by: bytes)
        var metadata: Logger.Metadata = [
            "request_id": "\(requestID)", "status": "\(response.status.code)", "path": "\(path)",
            "bytes": "\(bytes)", "duration_ms": "\(Self.milliseconds(duration))",
            "cache": "\(answer.cache)",
        ]
        if case .failure(let error) = answer { metadata["reason"] = "\(error.description)" }
        ImageServerLog.access.info("GET \(path) \(response.status.code)", metadata: metadata)
    }
}

extension ImageServer {
    /// `duration` in milliseconds with one decimal, for the access log (without
    /// `String(format:)`, which formats through CoreFoundation on Linux).
    static func milliseconds(_ duration: Duration) -> String {
        let tenths = (duration.nanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension Duration {
    /// The whole duration in nanoseconds (clamped at Int64's range).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000
    }
}
