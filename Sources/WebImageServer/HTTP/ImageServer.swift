import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import WebImage

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
/// A request, folder by folder: its path is read into an `ImageRequest` (Request: signature,
/// options, source); the output format is planned and the result's key made (Processing,
/// Result); the result is looked up (memory, then disk); an `If-None-Match` that matches the
/// result's entity tag, or the tag the stored source's version gives, is answered 304 before any
/// fetch or processing; otherwise the work is shared with identical requests in flight and runs
/// in a worker slot: the source from the source store or fetched (Source), processed
/// (Processing), stored (Result). An error is never stored. Request IDs, the access log and the
/// request counters are middleware (HTTP/Middleware).
public final class ImageServer: Sendable {
    public let configuration: ImageServerConfiguration
    let parser: any ImageRequestParser
    let processor = ImageProcessor()
    let results: ResultStore
    let sources: SourceStore
    let slots: WorkerSlots
    let inFlight = SharedWork<StoredResult>()
    let clientGone = ClientGoneWaiters()
    let metrics: ServerMetrics
    let healthCheck = HealthCheck()

    /// A server with `configuration`, parsing paths with `parser`, fetching remote sources with
    /// `downloader` and counting with `metricsFactory` (nil: the global one).
    public init(
        configuration: ImageServerConfiguration, parser: any ImageRequestParser, downloader: ImageDownloader,
        metricsFactory: (any MetricsFactory)? = nil
    ) throws(ImageServerConfigurationError) {
        self.configuration = configuration
        self.parser = parser
        var resultConfig = ImageCacheConfig()
        resultConfig.maxDiskSize = configuration.resultCacheSize
        resultConfig.maxDiskAge = -1
        resultConfig.diskCacheSyncsWrites = configuration.resultCacheSyncsWrites
        resultConfig.metricsFactory = metricsFactory
        // A source, like a result, can be fetched again: neither is flushed to the device.
        var sourceConfig = resultConfig
        sourceConfig.maxDiskSize = configuration.sourceCacheSize
        let folder = configuration.cacheDirectory
        results = ResultStore(
            memoryBytes: configuration.memoryCacheSize,
            disk: EntryStore(namespace: "results", directory: folder, config: resultConfig)
        )
        var localRoot: LocalSourceRoot?
        if let root = configuration.localFilesystemRoot {
            guard let resolved = LocalSourceRoot(path: root) else {
                throw .localFilesystemRootIsNotAFolder(root)
            }
            localRoot = resolved
        }
        sources = SourceStore(
            disk: EntryStore(namespace: "sources", directory: folder, config: sourceConfig),
            downloader: downloader, localRoot: localRoot, allowedSources: AllowedSources(configuration.allowedSources)
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
    /// `GET **` (image URLs, behind the request ID, access log and metrics middleware) to
    /// `routes`: a router, or a group of it under the prefix the images live at.
    public func addRoutes<Routes: RouterMethods>(to routes: Routes) {
        routes.get("health") { _, _ in await self.healthCheck.response() }
        addPlaygroundRoutes(to: routes)
        routes.group()
            .add(middleware: RequestIDMiddleware())
            .add(middleware: AccessLogMiddleware())
            .add(middleware: RequestMetricsMiddleware(metrics: metrics))
            .get("**") { request, context in try await self.respond(to: request, context: context) }
    }

    /// The `X-Cache` header: where the result came from (memory, disk, miss; source for a 304
    /// answered from the stored source's version).
    static let cacheField = HTTPField.Name("X-Cache")!

    // MARK: Answering

    /// The response to an image request; a failure is thrown as `ImageRequestFailure`, whose
    /// response the request ID middleware writes.
    func respond(to request: Request, context: some RequestContext) async throws(ImageRequestFailure) -> Response {
        do {
            let imageRequest = try parser.parse(path: String(ImagePath.path(request, context: context)), now: Date())
            let plan = OutputFormatPlan(options: imageRequest.options, accept: request.headers[.accept], configuration: configuration.processing)
            let job = ImageJob(request: imageRequest, format: plan)
            let ifNoneMatch = configuration.usesETag ? request.headers[.ifNoneMatch] : nil
            if let result = results.memoryResult(forKey: job.key) {
                // Answered at once: no timeout or client watch to set up.
                metrics.cacheLookup(tier: ResultStore.Tier.memory.rawValue)
                try result.metadata.check(imageRequest.options)
                return ImageResponse.result(result, job: job, cache: ResultStore.Tier.memory.rawValue, ifNoneMatch: ifNoneMatch, configuration: configuration)
            }
            let closed = (context as? any ClientConnectionContext)?.connectionClosed
            let logger = context.logger
            return try await withTimeout(seconds: configuration.timeout) {
                try await self.untilClientCloses(closed) {
                    try await self.answer(job, ifNoneMatch: ifNoneMatch, logger: logger)
                }
            }
        } catch let error as ImageServerError {
            throw ImageRequestFailure(error)
        } catch is TimeoutError {
            throw ImageRequestFailure(.timeout)
        } catch is CancellationError {
            throw ImageRequestFailure(.clientClosed)
        } catch {
            throw ImageRequestFailure(.internalError("\(error)"))
        }
    }

    /// Runs `work`, cancelling it when `closed` completes first (the client went away).
    private func untilClientCloses<T: Sendable>(_ closed: EventLoopFuture<Void>?, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let closed else { return try await work() }
        return try await clientGone.run(until: closed, work)
    }

    private func answer(_ job: ImageJob, ifNoneMatch: String?, logger: Logger) async throws -> Response {
        if let (result, tier) = await results.result(forKey: job.key) {
            metrics.cacheLookup(tier: tier.rawValue)
            try result.metadata.check(job.request.options)
            return ImageResponse.result(result, job: job, cache: tier.rawValue, ifNoneMatch: ifNoneMatch, configuration: configuration)
        }
        metrics.cacheLookup(tier: "miss")
        if ifNoneMatch != nil, let version = EntityTag.sourceVersion(validators: await sources.storedValidators(of: job.request.source)) {
            let tag = EntityTag.make(sourceVersion: version, key: job.key)
            if EntityTag.notModified(ifNoneMatch: ifNoneMatch, tag) {
                return ImageResponse.notModified(entityTag: tag, job: job, cache: "source", configuration: configuration)
            }
        }
        let (result, _) = try await inFlight.value(forKey: job.key.text) { try await self.make(job, logger: logger) }
        return ImageResponse.result(result, job: job, cache: "miss", ifNoneMatch: ifNoneMatch, configuration: configuration)
    }

    /// Fetches and processes in a worker slot, then keeps the result: in memory at once, on disk
    /// behind the response (as a fetched source is), so that no response waits on the disk.
    private func make(_ job: ImageJob, logger: Logger) async throws -> StoredResult {
        try await slots.withSlot {
            let source: SourceImage
            do {
                source = try await sources.source(job.request.source, maximumBytes: job.request.options.maxSourceFileSize, logger: logger)
            } catch ImageServerError.sourceRefused(let reason) {
                metrics.sourcesRefused.increment()
                throw ImageServerError.sourceRefused(reason)
            }
            metrics.sourceBytes.increment(by: source.data.count)
            try Task.checkCancellation()
            logger.debug("processing", metadata: ["job": "\(job)"])
            let started = ContinuousClock.now
            let processed = try await processor.process(source.data, options: job.request.options, format: job.format)
            metrics.processingDuration.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            metrics.processed.increment()
            var metadata = ResultMetadata(
                contentType: processed.format.mimeType, fileExtension: processed.format.fileExtension,
                entityTag: EntityTag.make(sourceVersion: EntityTag.sourceVersion(source), key: job.key),
                lastModified: source.validators?.lastModified,
                sourceCacheControl: source.cacheControl, sourceExpires: source.expires
            )
            (metadata.pixelWidth, metadata.pixelHeight, metadata.sourceFacts) = (processed.pixelWidth, processed.pixelHeight, processed.sourceFacts)
            let result = StoredResult(body: ByteBuffer(bytes: processed.data), metadata: metadata)
            results.store(result, data: processed.data, forKey: job.key, logger: logger)
            return result
        }
    }

    /// Returns once every source and result the server began writing to disk is written: call it
    /// before the process exits (`run` does, at shutdown) so that no write is cut short.
    public func finishWrites() async {
        await sources.finishWrites()
        await results.finishWrites()
    }
}

/// A failed image request, as the image routes throw it: the error (for the access log and the
/// counters) and the response the client gets (its status, a short public message, no-store).
struct ImageRequestFailure: Error {
    let error: ImageServerError

    init(_ error: ImageServerError) {
        self.error = error
    }

    var response: Response { ImageResponse.failure(error) }
}
