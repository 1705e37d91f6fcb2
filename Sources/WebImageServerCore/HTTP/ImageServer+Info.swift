import Foundation
import HTTPTypes
import Logging
import NIOCore
import WebImage

extension ImageServer {
    /// The answer to a `GET` or `HEAD` of `/info` (imgproxy Pro's): `path` is what follows
    /// `/info`, from the slash before the signature. The request goes the image URLs' way:
    /// signed, its source through `ALLOWED_SOURCES`, the source store and the downloader's guard
    /// and limits, the work in a worker slot and shared with identical requests, the answer
    /// (`ImageInfo`'s JSON) kept in the result store, 304 on a matching `If-None-Match`.
    func respondToInfo(
        _ head: HTTPRequest, path: Substring, logger: Logger, clientGone: () -> EventLoopFuture<Void>?
    ) async throws(ImageServerError) -> ImageServerResponse {
        do {
            let request = try parser.parseInfo(path: String(path), now: Date())
            Self.annotateRequest(source: request.source, options: nil)
            let cookie = sourceCookies?.header(for: head, source: request.source)
            let key = ResultKey(info: request, sourceCookie: cookie)
            let ifNoneMatch = configuration.usesETag ? head.headerFields[.ifNoneMatch] : nil
            if let result = results.memoryResult(forKey: key) {
                let tier = ResultStore.Tier.memory.rawValue
                metrics.cacheLookup(tier: tier)
                return ImageResponse.info(result, request: request, cache: tier, ifNoneMatch: ifNoneMatch, configuration: configuration)
            }
            return try await watches.run(timeout: .nanoseconds(Int64(min(configuration.timeout, 1e9) * 1e9)), clientGone: clientGone()) {
                try await self.answerInfo(request, key: key, sourceCookie: cookie, ifNoneMatch: ifNoneMatch, logger: logger)
            }
        } catch {
            throw Self.serverError(error)
        }
    }

    /// An info's answer: stored, else 304 from the stored source's version, else made.
    private func answerInfo(
        _ request: InfoRequest, key: ResultKey, sourceCookie: String?, ifNoneMatch: String?, logger: Logger
    ) async throws -> ImageServerResponse {
        if let (result, tier) = await results.localResult(forKey: key) {
            metrics.cacheLookup(tier: tier.rawValue)
            return ImageResponse.info(result, request: request, cache: tier.rawValue, ifNoneMatch: ifNoneMatch, configuration: configuration)
        }
        metrics.cacheLookup(tier: "miss")
        try checkAllowed(request.source)
        if ifNoneMatch != nil, sourceCookie == nil, let version = EntityTag.sourceVersion(validators: await sources.storedValidators(of: request.source)) {
            let tag = EntityTag.make(sourceVersion: version, key: key)
            if EntityTag.notModified(ifNoneMatch: ifNoneMatch, tag) {
                return ImageResponse.infoNotModified(entityTag: tag, request: request, configuration: configuration)
            }
        }
        let (made, _) = try await inFlight.value(forKey: key.text) {
            try await self.makeInfo(request, key: key, sourceCookie: sourceCookie, logger: logger)
        }
        return ImageResponse.info(made.result, request: request, cache: "miss", ifNoneMatch: ifNoneMatch, configuration: configuration)
    }

    /// Fetches the source and reads its info on the blocking pool, in a worker slot; keeps the
    /// JSON as a result. No fallback image: an info of it would describe another image.
    private func makeInfo(_ request: InfoRequest, key: ResultKey, sourceCookie: String?, logger: Logger) async throws -> Made {
        try await slots.withSlot {
            let source = try await fetchedSource(request.source, maximumBytes: request.limits.maxFileSize, cookie: sourceCookie, logger: logger)
            metrics.sourceBytes.increment(by: source.data.count)
            if let expected = request.expectedHashsum, expected.kind.hex(of: source.data) != expected.hex {
                throw ImageServerError.sourceHashsumMismatch("the source's \(expected.kind.rawValue) is not \(expected.hex)")
            }
            try Task.checkCancellation()
            let started = ContinuousClock.now
            let coderOptions = Self.infoDecodeLimits(
                maxResolution: request.limits.maxResolution, maxFrameResolution: configuration.processing.maxAnimationFrameResolution
            )
            let json: Data
            let faceDetector = configuration.processing.faceDetector
            do {
                json = try await BlockingPool.run {
                    try ImageInfo(data: source.data, options: request.options, coderOptions: coderOptions, faceDetector: faceDetector).jsonData()
                }
            } catch let error as ImageInfoError {
                switch error {
                case .header(let coding), .objects(.decoding(let coding)): throw SourceInspection.mapped(coding)
                case .analysis(let analysis): throw ImageServerError.unreadableSource("\(analysis)")
                case .invalidOption(let reason): throw ImageServerError.invalidOption("info options", reason: reason)
                // The cascade files are the server's: not the source's fault.
                case .objects(.detector(let message)): throw ImageServerError.internalError(message)
                }
            }
            metrics.processingDuration.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            let metadata = ResultMetadata(
                contentType: "application/json", fileExtension: "json",
                entityTag: EntityTag.make(sourceVersion: try await EntityTag.sourceVersion(source), key: key),
                lastModified: source.validators?.lastModified, sourceCacheControl: source.cacheControl, sourceExpires: source.expires
            )
            let result = StoredResult(body: ByteBuffer(bytes: json), metadata: metadata)
            results.store(result, data: json, forKey: key, logger: logger)
            return Made(result: result, fallbackFor: nil)
        }
    }

    /// The decode limits an info is read under: the processing's per-frame resolution limit,
    /// checked on the header before any pixel (a bomb is refused by it); the frames are not
    /// counted, as an info decodes one at most.
    static func infoDecodeLimits(maxResolution: Int, maxFrameResolution: Int) -> ImageCoderOptions {
        var options = ImageCoderOptions()
        let perFrame = maxFrameResolution > 0 ? maxFrameResolution : maxResolution
        options.decodeMaxPixelCount = max(1, perFrame)
        options.decodeMaxFrameCount = .max
        options.decodeMaxTotalPixelCount = .max
        return options
    }
}

extension ResultKey {
    /// An info's key: apart from every image's (its first line), the source, the fields asked
    /// for (`InfoOptions`' description lists every field: the same fields by aliases or in
    /// another order give one key), the source limits (an info read under a higher one is not
    /// an answer to a lower one), the cache buster, and the cookie's digest as an image's.
    init(info request: InfoRequest, sourceCookie: String?) {
        var text = "info\n" + request.source.description + "\n" + String(describing: request.options)
        text += "\nlimits \(request.limits.maxResolution) \(request.limits.maxFileSize)"
        if let hashsum = request.expectedHashsum { text += "\nhashsum " + hashsum.description }
        if let cacheBuster = request.cacheBuster { text += "\ncachebuster " + cacheBuster }
        self.init(text: text, sourceCookie: sourceCookie)
    }
}

extension ImageResponse {
    /// An info's JSON, from `cache` (memory, disk, miss); 304 when `ifNoneMatch` (nil unless
    /// `USE_ETAG`) matches its entity tag. `max-age` is `TTL`, capped by the URL's expiry.
    static func info(
        _ result: StoredResult, request: InfoRequest, cache: String, ifNoneMatch: String?, configuration: ImageServerConfiguration
    ) -> ImageServerResponse {
        var headers = HTTPFields()
        if configuration.usesETag { headers[.eTag] = result.metadata.entityTag }
        headers[.cacheControl] = "public, max-age=\(maxAge(configuration.ttl, expires: request.expires))"
        if let lastModified = result.metadata.lastModified { headers[.lastModified] = lastModified }
        headers[.xCache] = cache
        if EntityTag.notModified(ifNoneMatch: ifNoneMatch, result.metadata.entityTag) {
            return ImageServerResponse(status: .notModified, headerFields: headers)
        }
        headers[.contentType] = result.metadata.contentType
        headers[.contentLength] = String(result.body.readableBytes)
        return ImageServerResponse(status: .ok, headerFields: headers, body: result.body)
    }

    /// 304 with `entityTag`, decided from the stored source's version before any fetch.
    static func infoNotModified(entityTag: String, request: InfoRequest, configuration: ImageServerConfiguration) -> ImageServerResponse {
        var headers = HTTPFields()
        headers[.eTag] = entityTag
        headers[.cacheControl] = "public, max-age=\(maxAge(configuration.ttl, expires: request.expires))"
        headers[.xCache] = "source"
        return ImageServerResponse(status: .notModified, headerFields: headers)
    }
}
