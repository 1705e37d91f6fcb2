import Foundation
internal import ImageEngine
import Synchronization

extension WebImageManager {
    /// Loads `url`: from memory, disk or the loader, transformed and cached. `completed` runs
    /// once with `finished == true`, except: partial images of a progressive load come before
    /// (with `finished == false`), and with `.refreshCached` a cached image comes first and the
    /// server's new image, if it sent one, after. After `cancel()` it runs once with `.cancelled`.
    @discardableResult
    public func loadImage(
        with url: URL?, options: WebImageOptions = [], context: WebImageContext? = nil,
        progress: ImageLoaderProgress? = nil, completed: @escaping WebImageCompletion
    ) -> CombinedOperation {
        let (processedOptions, processedContext) = currentSettings.processor?.processed(url: url, options: options, context: context)
            ?? (options, context)
        let load = ManagerLoad(manager: self, url: url, options: processedOptions, context: processedContext,
                               progress: progress, completed: completed)
        load.start()
        return load.operation
    }

    /// Loads `url` and returns the first final image; cancelling the task cancels the load
    /// (`WebImageError.cancelled`). A cache miss that may not be loaded throws `.notInCache`.
    /// With `.refreshCached`, a cached image is returned at once and the revalidation goes on
    /// in the background, updating the cache. `.queryDiskDataSync` and `.queryMemoryDataSync`
    /// are ignored, as by the cache's async `queryImage`: they ask for disk I/O and decoding on
    /// the calling thread, here a cooperative-pool thread.
    public func loadImage(
        with url: URL?, options: WebImageOptions = [], context: WebImageContext? = nil,
        progress: ImageLoaderProgress? = nil
    ) async throws -> ImageLoadResult {
        let options = options.subtracting(.synchronousQueries)
        if let hit = memoryHit(url, options: options, context: context) { return hit }
        let holder = OperationHolder()
        let resumed = Locked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ImageLoadResult, any Error>) in
                let operation = loadImage(with: url, options: options, context: context, progress: progress) { image, data, error, cacheType, finished, imageURL in
                    guard finished, resumed.withLock({ done in defer { done = true }; return !done }) else { return }
                    if let image, let imageURL {
                        continuation.resume(returning: ImageLoadResult(image: image, data: data, cacheType: cacheType, url: imageURL))
                    } else {
                        continuation.resume(throwing: error ?? WebImageError.notInCache)
                    }
                }
                holder.set(operation)
            }
        } onCancel: {
            holder.cancel()
        }
    }
}

extension WebImageManager {
    /// The async form's fast path: a memory hit answered on the caller's task, with none of a
    /// load's machinery (the flow gives the same answer, at several times the cost).
    func memoryHit(_ url: URL?, options: WebImageOptions, context: WebImageContext?) -> ImageLoadResult? {
        guard let url, currentSettings.processor == nil,
              options.isDisjoint(with: [.fromLoaderOnly, .refreshCached, .queryMemoryData]),
              (context?.queryCacheType ?? .all).includesMemory
        else { return nil }
        let cache = context?.imageCache ?? imageCache
        let key = cacheKey(for: url, context: context)
        guard !key.isEmpty, let image = cache.memoryImage(forKey: key, options: options, context: context),
              options.contains(.retryFailed) || !isFailedURL(url)
        else { return nil }
        return ImageLoadResult(image: image, data: nil, cacheType: .memory, url: url)
    }
}

/// One load through the manager's steps. Its fields are fixed at the start; `operation` holds
/// what runs and whether it was cancelled.
final class ManagerLoad: Sendable {
    let manager: WebImageManager
    let url: URL?
    let options: WebImageOptions
    let context: WebImageContext?
    let progress: ImageLoaderProgress?
    let completed: WebImageCompletion
    let operation = CombinedOperation()
    let transformer: (any ImageTransformer)?
    let cache: any ImageCacheProtocol
    let key: String
    let originalKey: String
    /// True while this load leads the loading of `key` (others wait for it).
    private let isLeading = Atomic(false)

    init(manager: WebImageManager, url: URL?, options: WebImageOptions, context: WebImageContext?,
         progress: ImageLoaderProgress?, completed: @escaping WebImageCompletion) {
        self.manager = manager
        self.url = url
        self.options = options
        self.context = context
        self.progress = progress
        self.completed = completed
        transformer = context?.imageTransformer ?? manager.transformer
        cache = context?.imageCache ?? manager.imageCache
        key = manager.cacheKey(for: url, context: context, transformer: transformer)
        originalKey = manager.originalCacheKey(for: url, context: context)
    }

    private var thumbnailSize: CGSize? { context?.decodeThumbnail?.size }

    /// True when the original's bytes decode to other pixels than the original image in
    /// memory: a thumbnail, or HDR.
    private var decodesVariant: Bool { thumbnailSize != nil || context?.decodesToHDR == true }

    /// True when the final key differs from the original's: a thumbnail, HDR or a transformer.
    private var isDerived: Bool { decodesVariant || transformer != nil }

    func start() {
        operation.setCancelHandler { [self] in
            manager.unregister(operation)
            endLead()
            deliver(nil, nil, WebImageError.cancelled, .none, finished: true)
        }
        guard let url, !url.absoluteString.isEmpty else {
            finish(nil, nil, WebImageError.invalidURL, .none)
            return
        }
        if !options.contains(.retryFailed), manager.isFailedURL(url) {
            finish(nil, nil, WebImageError.blackListed, .none)
            return
        }
        manager.register(operation)
        if options.contains(.fromLoaderOnly) {
            load(cachedImage: nil, cachedData: nil, cacheType: .none)
        } else {
            queryCache()
        }
    }

    // MARK: Steps

    private func queryCache(options: WebImageOptions? = nil) {
        let queryType = context?.queryCacheType ?? .all
        let options = options ?? self.options
        operation.setCacheOperation(cache.queryImage(forKey: key, options: options, context: context, cacheType: queryType) { [self] image, data, cacheType in
            guard operation.isActive else { return }
            if image == nil, isDerived {
                queryOriginal(options: options)
            } else {
                load(cachedImage: image, cachedData: data, cacheType: cacheType)
            }
        })
    }

    /// On a thumbnail, HDR or transformed miss: the original from the cache, thumbnailed or HDR
    /// (the disk hit decodes so) and transformed, without a request.
    private func queryOriginal(options: WebImageOptions) {
        let queryType = context?.originalQueryCacheType ?? .disk
        guard queryType != .none else {
            load(cachedImage: nil, cachedData: nil, cacheType: .none)
            return
        }
        let originalCache = context?.originalImageCache ?? cache
        // A memory hit of the original is full size and SDR: only the disk, which decodes at the
        // thumbnail size or to HDR, serves those; what it decodes so stays out of memory under
        // the original's key.
        let tiers = decodesVariant ? queryType.withoutMemory : queryType
        guard tiers != .none else {
            load(cachedImage: nil, cachedData: nil, cacheType: .none)
            return
        }
        var queryContext = context
        if decodesVariant { queryContext?.storeCacheType = (context?.storeCacheType ?? .all).withoutMemory }
        operation.setCacheOperation(originalCache.queryImage(forKey: originalKey, options: options, context: queryContext, cacheType: tiers) { [self] image, data, cacheType in
            guard operation.isActive else { return }
            guard let image else {
                load(cachedImage: nil, cachedData: nil, cacheType: .none)
                return
            }
            transformAndStore(image, data: data, cacheType: cacheType, downloaded: false)
        })
    }

    private func load(cachedImage: Image?, cachedData: Data?, cacheType: ImageCacheType) {
        guard let url else { return }
        let loader = context?.imageLoader ?? manager.imageLoader
        let allowed = manager.currentSettings.shouldDownload?(url) ?? true
        let shouldLoad = !options.contains(.fromCacheOnly) && (cachedImage == nil || options.contains(.refreshCached))
            && allowed && loader.canRequestImage(for: url)
        guard shouldLoad else {
            finish(cachedImage, cachedData, nil, cachedImage == nil ? .none : cacheType)
            return
        }
        guard let cachedImage else {
            // Identical loads share one load: a follower waits for the leader, then asks the
            // cache again (refreshing, forced and progressive loads always load).
            let shareable = options.isDisjoint(with: [.refreshCached, .fromLoaderOnly, .progressiveLoad])
            if shareable, !manager.leadOrWait(forKey: key, wake: { [self] in
                guard operation.isActive else { return }
                if !options.contains(.retryFailed), manager.isFailedURL(url) {
                    finish(nil, nil, WebImageError.blackListed, .none)
                } else {
                    // On the leader's thread, which may run a task: never a synchronous query.
                    queryCache(options: options.subtracting(.synchronousQueries))
                }
            }) {
                return
            }
            guard shareable else {
                request(url, from: loader, context: context, cachedImage: nil)
                return
            }
            isLeading.store(true, ordering: .releasing)
            // A leader that just ended may have stored the image after this load's query.
            let memoryCheck = cache.queryImage(forKey: key, options: options, context: context, cacheType: .memory) { [self] image, data, cacheType in
                guard operation.isActive else { return }
                if let image {
                    finish(image, data, nil, cacheType)
                } else {
                    request(url, from: loader, context: context, cachedImage: nil)
                }
            }
            operation.setCacheOperation(memoryCheck)
            return
        }
        // refreshCached: the cached image now; then the server is asked whether it changed,
        // with the validators kept beside the disk entry (read off the cooperative pool).
        deliver(cachedImage, cachedData, nil, cacheType, finished: true)
        Task { [self] in
            var loadContext = context ?? WebImageContext()
            loadContext.downloadValidators = await storedValidators()
            guard operation.isActive else { return }
            request(url, from: loader, context: loadContext, cachedImage: cachedImage)
        }
    }

    private func request(_ url: URL, from loader: any ImageLoader, context: WebImageContext?, cachedImage: Image?) {
        operation.setLoaderOperation(loader.requestImage(with: url, options: options, context: context, progress: progress) { [self] image, data, error, finished in
            guard operation.isActive else { return }
            if let error {
                if (error as? WebImageError) == .cancelled { return }
                if (error as? WebImageError) == .cacheNotModified, cachedImage != nil {
                    // Revalidated: the cached image, already delivered, is current.
                    finish(nil, nil, nil, .none, deliver: false)
                    return
                }
                manager.recordFailure(url, error: error, loader: loader, options: options)
                finish(nil, nil, error, .none)
                return
            }
            guard let image else {
                finish(nil, nil, WebImageError.badImageData, .none)
                return
            }
            guard finished else {
                deliver(image, data, nil, .none, finished: false)
                return
            }
            if options.contains(.retryFailed) { manager.removeFailedURL(url) }
            let validators = operation.loaderOperation.flatMap { loader.responseValidators(of: $0) }
            transformAndStore(image, data: data, cacheType: .none, downloaded: true, validators: validators)
        })
    }

    /// Transforms (off the cooperative pool), stores the original and the result, completes.
    private func transformAndStore(_ original: Image, data: Data?, cacheType: ImageCacheType, downloaded: Bool, validators: HTTPValidators? = nil) {
        let transformer = self.transformer.flatMap { transformer -> (any ImageTransformer)? in
            if original.isAnimated, !options.contains(.transformAnimatedImage) { return nil }
            if original.isVector, !options.contains(.transformVectorImage) { return nil }
            return transformer
        }
        let key = self.key
        Task { [self] in
            var image = original
            var transformed = false
            if let transformer, let result = try? await BlockingPool.run({ transformer.transformedImage(with: original, forKey: key) }) {
                image = result
                transformed = true
            }
            guard operation.isActive else { return }
            await store(original: original, originalData: data, final: image, transformed: transformed,
                        downloaded: downloaded, validators: validators)
            finish(image, transformed || thumbnailSize != nil ? nil : data, nil, cacheType)
        }
    }

    /// Stores the original (when the result is derived from it and it was downloaded) under the
    /// original key and the result under the final key; waits for the stores only with
    /// `.waitStoreCache`. Returns when the caller may complete.
    private func store(original: Image, originalData: Data?, final: Image, transformed: Bool, downloaded: Bool,
                       validators: HTTPValidators?) async {
        let serializer = context?.cacheSerializer ?? manager.currentSettings.serializer
        let storeType = context?.storeCacheType ?? .all
        let originalStoreType = context?.originalStoreCacheType ?? .disk
        let derived = transformed || thumbnailSize != nil
        var stores: [@Sendable (@escaping @Sendable () -> Void) -> Void] = []
        if downloaded, derived, originalStoreType != .none, let originalData {
            let originalCache = context?.originalImageCache ?? cache
            let originalKey = self.originalKey
            // The decoded image is the thumbnail or HDR when one was asked for: only the
            // original image goes to memory.
            let image: Image? = decodesVariant ? nil : original
            let tiers: ImageCacheType = image == nil ? (originalStoreType.includesDisk ? .disk : .none) : originalStoreType
            if tiers != .none {
                stores.append { done in
                    originalCache.store(image, imageData: originalData, forKey: originalKey, cacheType: tiers) {
                        guard tiers.includesDisk, let validators else { return done() }
                        originalCache.storeValidators(validators, forKey: originalKey, completion: done)
                    }
                }
            }
        }
        // A cache hit used as it is is stored already; a thumbnail or transform of a cached
        // original is stored under its own key, the original's data left as it is; an HDR decode
        // of the cached original's bytes goes to memory alone (the disk has those bytes).
        let hdrOfCachedOriginal = !downloaded && !derived && context?.decodesToHDR == true
        let finalStoreType = hdrOfCachedOriginal ? storeType.memoryTier : storeType
        if finalStoreType != .none, downloaded || derived || hdrOfCachedOriginal {
            let url = self.url
            // A serializer encodes, as a rule: on the blocking pool.
            let data = if let serializer {
                try? await BlockingPool.run { serializer.cacheData(with: final, originalData: derived ? nil : originalData, imageURL: url) }
            } else {
                derived ? nil : originalData
            }
            let cache = self.cache
            let key = self.key
            stores.append { done in
                cache.store(final, imageData: data, forKey: key, cacheType: finalStoreType) {
                    guard !derived, finalStoreType.includesDisk, let validators else { return done() }
                    cache.storeValidators(validators, forKey: key, completion: done)
                }
            }
        }
        if options.contains(.waitStoreCache) {
            for store in stores {
                await withCheckedContinuation { continuation in store { continuation.resume() } }
            }
        } else {
            for store in stores { store {} }
        }
    }

    // MARK: Validators

    /// The validators the cache kept with the original's entry (else the final key's).
    private func storedValidators() async -> HTTPValidators? {
        let originalCache = context?.originalImageCache ?? cache
        for (candidate, key) in [(originalCache, originalKey), (cache, key)] {
            if let validators = await candidate.queryValidators(forKey: key) { return validators }
        }
        return nil
    }

    // MARK: Completion

    /// The final completion (once; nothing after a cancellation).
    private func finish(_ image: Image?, _ data: Data?, _ error: (any Error)?, _ cacheType: ImageCacheType, deliver shouldDeliver: Bool = true) {
        guard operation.markDone() else { return }
        manager.unregister(operation)
        endLead()
        if shouldDeliver { deliver(image, data, error, cacheType, finished: true) }
    }

    /// Lets the loads waiting for this one go on (after the stores began: memory holds the image).
    private func endLead() {
        guard isLeading.exchange(false, ordering: .acquiringAndReleasing) else { return }
        manager.endLead(forKey: key)
    }

    private func deliver(_ image: Image?, _ data: Data?, _ error: (any Error)?, _ cacheType: ImageCacheType, finished: Bool) {
        let completed = self.completed
        let url = self.url
        if let queue = context?.callbackQueue {
            queue.async { completed(image, data, error, cacheType, finished, url) }
        } else {
            completed(image, data, error, cacheType, finished, url)
        }
    }
}
