import Foundation
import HTTPTypes
import Logging
import Metrics
import NIOCore
import WebImage

/// An image server: imgproxy's URLs answered with WebImage's engine, caches and downloader.
///
/// A Swift service mounts it in its own Hummingbird router under a prefix:
/// ```swift
/// let images = try ImageServer(configuration: configuration)
/// let router = Router(context: ImageServerContext.self)
/// images.addRoutes(to: router.group("images"))    // GET /images/{signature}/{options}/{source}
/// ```
/// or in a Vapor application (WebImageVapor's `ImageRoutes`); `webimage serve` is the first with
/// its own application (`ImageServer.run(configuration:parser:logger:)`). Every framework hands
/// the request to the same core, `respond(to:)`, which knows none of them.
///
/// A request, folder by folder: its path is read into an `ImageRequest` (Request: signature,
/// options, source); the output format is planned and the result's key made (Processing,
/// Result); the result is looked up (memory, then disk, then the shared store); an `If-None-Match` that matches the
/// result's entity tag, or the tag the stored source's version gives, is answered 304 before any
/// fetch or processing; otherwise the work is shared with identical requests in flight and runs
/// in a worker slot: the source from the source store or fetched (Source), processed
/// (Processing), stored (Result). An error is never stored; a source that cannot be had or read
/// is answered with the fallback image, when one is configured, which is not stored either.
/// Request IDs, the access log, the request counters, CORS, the bearer secret and `HEAD` are
/// steps of `respond(to:)` (Core).
public final class ImageServer: Sendable {
    public let configuration: ImageServerConfiguration
    let parser: any ImageRequestParser
    let processor = ImageProcessor()
    let results: ResultStore
    let sources: SourceStore
    let slots: WorkerSlots
    let inFlight = SharedWork<Made>()
    let watches = RequestWatches()
    package let metrics: ServerMetrics
    let healthCheck = HealthCheck()
    /// The paths of the health check and the playground, as `respond(to:)` matches them.
    let routes: Routes
    /// `SECRET`'s check; nil: none configured.
    let bearerSecret: BearerSecret?
    /// The disk stores' threads.
    let diskThreads: DiskThreads
    let downloader: ImageDownloader
    /// `ALLOWED_SOURCES`, checked once, on a miss before the source is looked for: a source it
    /// refuses is 404, never the fallback (imgproxy checks it before the download too).
    let allowedSources: AllowedSources
    let fallbackImage: FallbackImage?
    let sourceCookies: SourceCookies?
    /// The mark `watermark` draws; nil: none configured (the option then draws nothing).
    let watermarkImage: WatermarkImage?
    /// What `CACHE_KEY_HEADERS` and `CACHE_KEY_COOKIES` add to results' keys; nil: nothing.
    let resultKeyParts: ResultKeyRequestParts?

    /// A server with `configuration`, parsing paths with `parser`, fetching remote sources with
    /// `downloader` and counting with `metricsFactory` (nil: the global one).
    public init(
        configuration: ImageServerConfiguration, parser: any ImageRequestParser, downloader: ImageDownloader,
        metricsFactory: (any MetricsFactory)? = nil
    ) throws(ImageServerConfigurationError) {
        self.configuration = configuration
        self.parser = parser
        self.downloader = downloader
        allowedSources = AllowedSources(configuration.allowedSources)
        routes = Routes(configuration: configuration)
        bearerSecret = configuration.secret.map(BearerSecret.init)
        fallbackImage = try FallbackImage(configuration: configuration)
        sourceCookies = try SourceCookies(configuration: configuration)
        watermarkImage = try WatermarkImage(configuration: configuration)
        let diskThreads = DiskThreads()
        self.diskThreads = diskThreads
        var resultConfig = ImageCacheConfig()
        resultConfig.maxDiskSize = configuration.resultCacheSize
        resultConfig.maxDiskAge = -1
        resultConfig.diskCacheSyncsWrites = configuration.resultCacheSyncsWrites
        resultConfig.metricsFactory = metricsFactory
        // A source, like a result, can be fetched again: neither is flushed to the device.
        var sourceConfig = resultConfig
        sourceConfig.maxDiskSize = configuration.sourceCacheSize
        let folder = configuration.cacheDirectory
        let metrics = ServerMetrics(factory: metricsFactory)
        self.metrics = metrics
        resultKeyParts = ResultKeyRequestParts(configuration.resultCache)
        let shared = try configuration.resultCache.sharedStorage(metrics: metrics)
        results = ResultStore(
            memoryBytes: configuration.memoryCacheSize,
            disk: EntryStore(namespace: "results", directory: configuration.resultCache.diskFolder(cacheDirectory: folder), config: resultConfig, threads: diskThreads),
            shared: shared
        )
        var localRoot: LocalSourceRoot?
        if let root = configuration.localFilesystemRoot {
            guard let resolved = LocalSourceRoot(path: root) else {
                throw .localFilesystemRootIsNotAFolder(root)
            }
            localRoot = resolved
        }
        var s3: S3Source?
        if configuration.usesS3 {
            guard let source = S3Source(settings: configuration.s3, base: downloader.config) else { throw .invalidS3Endpoint(configuration.s3.endpoint ?? "") }
            s3 = source
        }
        sources = SourceStore(
            disk: EntryStore(namespace: "sources", directory: folder, config: sourceConfig, threads: diskThreads), memoryBytes: configuration.sourceMemoryCacheSize,
            downloader: downloader, localRoot: localRoot, s3: s3, shared: configuration.resultCache.keepsSources ? shared : nil
        )
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
            downloader: ImageServer.makeDownloader(configuration: configuration, metricsFactory: metricsFactory), metricsFactory: metricsFactory
        )
    }

    // MARK: Answering

    /// The answer to a `GET` or `HEAD` of the image URL `path` (below the prefix, from the slash
    /// before its signature).
    func respondToImage(
        _ head: HTTPRequest, path: Substring, logger: Logger, clientGone: () -> EventLoopFuture<Void>?
    ) async throws(ImageServerError) -> ImageServerResponse {
        do {
            let imageRequest = try parser.parse(path: String(path), now: Date())
            Self.annotateRequest(source: imageRequest.source, options: imageRequest.canonicalForm)
            let plan = OutputFormatPlan(options: imageRequest.options, accept: head.headerFields[.accept], configuration: configuration.processing)
            let cookie = sourceCookies?.header(for: head, source: imageRequest.source)
            let job = ImageJob(
                request: imageRequest, format: plan, sourceCookie: cookie, watermark: try await watermark(drawnBy: imageRequest.options),
                requestParts: resultKeyParts?.lines(of: head) ?? []
            )
            let ifNoneMatch = configuration.usesETag ? head.headerFields[.ifNoneMatch] : nil
            if let result = results.memoryResult(forKey: job.key) {
                // Answered at once: no timeout or client watch to set up.
                return try answer(stored: result, from: .memory, job: job, ifNoneMatch: ifNoneMatch)
            }
            return try await watches.run(timeout: .nanoseconds(Int64(min(configuration.timeout, 1e9) * 1e9)), clientGone: clientGone()) {
                try await self.answer(job, ifNoneMatch: ifNoneMatch, logger: logger)
            }
        } catch {
            throw Self.serverError(error)
        }
    }

    /// The request's span attributes: its source, and its options when it has a canonical form.
    static func annotateRequest(source: SourceURL, options: String?) {
        RequestSpan.annotateRequest { attributes in
            attributes["imgproxy.source_image_url"] = source.description
            attributes["imgproxy.source_image_origin"] = source.origin
            if let options { attributes["imgproxy.options"] = options }
        }
    }

    /// `source`'s bytes from the source store (at most `maximumBytes`, 0: the downloader's
    /// limit), in the download span; a refused source counted.
    func fetchedSource(_ source: SourceURL, maximumBytes: Int, cookie: String?, logger: Logger) async throws -> SourceImage {
        do {
            return try await RequestSpan.downloadingImage.run(attributes: { attributes in
                attributes["imgproxy.image_url"] = source.description
                attributes["imgproxy.image_origin"] = source.origin
            }) {
                try await sources.source(source, maximumBytes: maximumBytes, cookie: cookie, logger: logger)
            }
        } catch let error as ImageServerError {
            if case .sourceRefused = error { metrics.sourcesRefused.increment() }
            throw error
        }
    }

    /// What a request's failure answers: its own status, a timeout 503, a client gone 499,
    /// anything else 500.
    static func serverError(_ error: any Error) -> ImageServerError {
        switch error {
        case let error as ImageServerError: error
        case is TimeoutError: .timeout
        case is CancellationError: .clientClosed
        default: .internalError("\(error)")
        }
    }

    /// Throws 404 for a remote source `ALLOWED_SOURCES` refuses, counted.
    func checkAllowed(_ source: SourceURL) throws(ImageServerError) {
        if case .remote(let url) = source, !allowedSources.allows(url) {
            metrics.sourcesRefused.increment()
            throw .sourceRefused("\(url.absoluteString) is not in \(ImageServerConfiguration.environmentName(of: \.allowedSources))")
        }
    }

    /// Fetches what the server needs before it takes requests: the watermark, when it comes
    /// from a URL (`WATERMARK_URL`). Throws, naming the setting, when it cannot be had: a host
    /// calls it before it listens, as `webimage serve` does (imgproxy's start does the same).
    public func prepare() async throws {
        _ = try await watermarkImage?.mark(downloader: downloader)
    }

    /// The server's mark when `options` draw it (and one is configured): fetched first when it
    /// comes from a URL that has not arrived yet (500 when it cannot be had).
    private func watermark(drawnBy options: ProcessingOptions) async throws -> WatermarkMark? {
        guard options.watermark.opacity > 0, let watermarkImage else { return nil }
        do {
            return try await watermarkImage.mark(downloader: downloader)
        } catch {
            throw ImageServerError.internalError("the watermark could not be had: \(error)")
        }
    }

    /// A stored result's answer (the request's limits checked against what it was made from),
    /// counted under the tier it came from.
    private func answer(stored result: StoredResult, from tier: ResultStore.Tier, job: ImageJob, ifNoneMatch: String?) throws -> ImageServerResponse {
        metrics.cacheLookup(tier: tier.rawValue)
        try result.metadata.check(job.request.options)
        return ImageResponse.result(result, job: job, cache: tier.rawValue, ifNoneMatch: ifNoneMatch, configuration: configuration)
    }

    private func answer(_ job: ImageJob, ifNoneMatch: String?, logger: Logger) async throws -> ImageServerResponse {
        if let (result, tier) = await results.localResult(forKey: job.key) {
            return try answer(stored: result, from: tier, job: job, ifNoneMatch: ifNoneMatch)
        }
        // With a shared store, a miss is counted once the store has missed too.
        let sharing = results.shared != nil
        if !sharing { metrics.cacheLookup(tier: "miss") }
        try checkAllowed(job.request.source)
        // A source fetched with the request's cookies is not in the source store.
        if ifNoneMatch != nil, job.sourceCookie == nil, let version = EntityTag.sourceVersion(validators: await sources.storedValidators(of: job.request.source)) {
            let tag = EntityTag.make(sourceVersion: version, key: job.key)
            if EntityTag.notModified(ifNoneMatch: ifNoneMatch, tag) {
                if sharing { metrics.cacheLookup(tier: "miss") }
                return ImageResponse.notModified(entityTag: tag, job: job, cache: "source", configuration: configuration)
            }
        }
        // Identical requests share the shared store's lookup as they share the making.
        let (made, joined) = try await inFlight.value(forKey: job.key.text) {
            if let stored = try await self.results.sharedResult(forKey: job.key, logger: logger) { return Made(result: stored, fallbackFor: nil, tier: .storage) }
            return try await self.make(job, logger: logger)
        }
        // A joined request's work has the spans of the request that began it.
        if joined { RequestSpan.annotateRequest { $0["webimage.joined"] = true } }
        if let tier = made.tier { return try answer(stored: made.result, from: tier, job: job, ifNoneMatch: ifNoneMatch) }
        if sharing { metrics.cacheLookup(tier: "miss") }
        if let failure = made.fallbackFor {
            return ImageResponse.fallback(made.result, job: job, failure: failure, configuration: configuration)
        }
        return ImageResponse.result(made.result, job: job, cache: "miss", ifNoneMatch: ifNoneMatch, configuration: configuration)
    }

    /// What a making gives: the result, or the fallback image made in place of a source that
    /// could not be had or read (`fallbackFor`: why), which is never stored.
    struct Made: Sendable {
        let result: StoredResult
        let fallbackFor: ImageServerError?
        /// The tier it was found in instead of being made (the shared store); nil: made.
        var tier: ResultStore.Tier? = nil
        /// A made result's bytes as the processor made them, for the shared store's write.
        var data: Data? = nil
    }

    /// Fetches and processes in a worker slot, then keeps the result: in memory at once, on disk
    /// behind the response (as a fetched source is), so that no response waits on the disk. A
    /// source that cannot be had (any fetch or read failure) or read (not an image, corrupt)
    /// gives the fallback image instead, when one is configured.
    private func make(_ job: ImageJob, logger: Logger) async throws -> Made {
        let made = try await makeInSlot(job, logger: logger)
        // Shared behind the response, or before it with CACHE_REPORT_ERRORS: out of the slot,
        // so that a slow store holds no worker.
        if made.fallbackFor == nil, let data = made.data { try await results.share(made.result, data: data, forKey: job.key, logger: logger) }
        return made
    }

    private func makeInSlot(_ job: ImageJob, logger: Logger) async throws -> Made {
        try await slots.withSlot {
            let source: SourceImage
            do {
                source = try await fetchedSource(
                    job.request.source, maximumBytes: job.request.options.maxSourceFileSize, cookie: job.sourceCookie, logger: logger
                )
            } catch let error as ImageServerError where error != .clientClosed {
                return try await self.fallback(for: error, job: job, logger: logger)
            }
            metrics.sourceBytes.increment(by: source.data.count)
            try Task.checkCancellation()
            logger.debug("processing", metadata: ["job": "\(job)"])
            let started = ContinuousClock.now
            let processed: ProcessedImage
            do {
                processed = try await process(source.data, job: job)
            } catch let error as ImageServerError {
                guard case .unreadableSource = error else { throw error }
                return try await self.fallback(for: error, job: job, logger: logger)
            }
            metrics.processingDuration.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            metrics.processed.increment()
            let entityTag = EntityTag.make(sourceVersion: try await EntityTag.sourceVersion(source), key: job.key)
            let result = Self.stored(processed, entityTag: entityTag, source: source)
            results.store(result, data: processed.data, forKey: job.key, logger: logger)
            return Made(result: result, fallbackFor: nil, data: processed.data)
        }
    }

    /// The fallback image processed as `job` asks, in place of a source that failed with
    /// `failure`; throws `failure` when no fallback image is configured, or it cannot be had or made.
    private func fallback(for failure: ImageServerError, job: ImageJob, logger: Logger) async throws -> Made {
        guard let fallbackImage, let data = await fallbackImage.data(downloader: downloader, logger: logger) else { throw failure }
        logger.warning("the source could not be had or read: answering the fallback image", metadata: ["reason": "\(failure)"])
        let processed: ProcessedImage
        do {
            processed = try await process(data, job: job)
        } catch {
            logger.warning("the fallback image could not be made", metadata: ["reason": "\(error)"])
            throw failure
        }
        metrics.processed.increment()
        return Made(result: Self.stored(processed, entityTag: "", source: nil), fallbackFor: failure)
    }

    /// `data` processed as `job` asks, in its span.
    private func process(_ data: Data, job: ImageJob) async throws -> ProcessedImage {
        try await RequestSpan.processingImage.run(attributes: { $0["imgproxy.options"] = job.request.canonicalForm }) {
            try await processor.process(data, options: job.request.options, format: job.format, watermark: job.watermark)
        }
    }

    /// `processed` as the result store keeps it, with what the response says of it.
    private static func stored(_ processed: ProcessedImage, entityTag: String, source: SourceImage?) -> StoredResult {
        var metadata = ResultMetadata(
            contentType: processed.format.mimeType, fileExtension: processed.format.fileExtension, entityTag: entityTag,
            lastModified: source?.validators?.lastModified, sourceCacheControl: source?.cacheControl, sourceExpires: source?.expires
        )
        (metadata.pixelWidth, metadata.pixelHeight, metadata.sourceFacts) = (processed.pixelWidth, processed.pixelHeight, processed.sourceFacts)
        return StoredResult(body: ByteBuffer(bytes: processed.data), metadata: metadata)
    }

    /// Returns once every source and result the server began writing to disk is written: call it
    /// before the process exits (`run` does, at shutdown) so that no write is cut short.
    public func finishWrites() async {
        await sources.finishWrites()
        await results.finishWrites()
    }
}
