import Foundation

/// Called with the image found (if any), its data (when read from disk) and the tier it came from.
public typealias ImageCacheQueryCompletion = @Sendable (Image?, Data?, ImageCacheType) -> Void
/// Called when a cache operation is done.
public typealias ImageCacheCompletion = @Sendable () -> Void
/// Called with the tier that holds an image, or `.none`.
public typealias ImageCacheContainsCompletion = @Sendable (ImageCacheType) -> Void

/// A cache the manager can query and fill: SDWebImage's `SDImageCache` protocol. The callback
/// forms are the requirements; the `async` forms are built on them, with the same labels but no
/// `completion:`, and return when the completion would run. Conforming types give their
/// callback methods no default `completion:`, so an `await` call cannot pick one by mistake.
public protocol ImageCacheProtocol: Sendable {
    /// Looks `key` up in the tiers of `cacheType`; `completion` runs exactly once, also when the
    /// returned operation is cancelled (then with nothing found).
    @discardableResult
    func queryImage(
        forKey key: String?, options: WebImageOptions, context: WebImageContext?, cacheType: ImageCacheType,
        completion: ImageCacheQueryCompletion?
    ) -> (any WebImageOperation)?

    /// Stores `image` and/or `imageData` under `key` in the tiers of `cacheType`.
    func store(
        _ image: Image?, imageData: Data?, forKey key: String?, cacheType: ImageCacheType,
        completion: ImageCacheCompletion?
    )

    /// Removes `key` from the tiers of `cacheType`.
    func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheCompletion?)

    /// Answers the tier that holds `key` (memory first), or `.none`.
    func containsImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheContainsCompletion?)

    /// Empties the tiers of `cacheType`.
    func clear(with cacheType: ImageCacheType, completion: ImageCacheCompletion?)

    /// The image memory holds for `key`, answered on the calling thread without waiting, for
    /// the async load's fast path; nil when memory has none or the options rule it out (an
    /// animation when only the first frame is wanted). The default answers nil: every load
    /// then goes through `queryImage`, which gives the same image.
    func memoryImage(forKey key: String, options: WebImageOptions, context: WebImageContext?) -> Image?

    /// Keeps the HTTP validators of the data stored under `key` (its entity tag and
    /// last-modified date), so that `.refreshCached` can ask the server whether it changed.
    /// The default keeps none and completes at once: the server is then asked without them.
    func storeValidators(_ validators: HTTPValidators, forKey key: String, completion: ImageCacheCompletion?)

    /// The validators kept for `key`, or nil; `completion` runs exactly once. The default
    /// answers nil at once.
    func queryValidators(forKey key: String, completion: @escaping ImageCacheValidatorsCompletion)
}

/// Called with the validators kept for a key, or nil.
public typealias ImageCacheValidatorsCompletion = @Sendable (HTTPValidators?) -> Void

/// What an asynchronous query found.
public typealias ImageCacheQueryResult = (image: Image?, data: Data?, cacheType: ImageCacheType)

extension ImageCacheProtocol {
    /// Looks `key` up; cancelling the task cancels the query, which then finds nothing.
    /// `.queryDiskDataSync` and `.queryMemoryDataSync` are ignored here: they ask for disk I/O and
    /// decoding on the calling thread, which in an `async` function is a cooperative-pool thread.
    public func queryImage(
        forKey key: String?, options: WebImageOptions = [], context: WebImageContext? = nil,
        cacheType: ImageCacheType = .all
    ) async -> ImageCacheQueryResult {
        let operation = OperationHolder()
        let options = options.subtracting(.synchronousQueries)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let started = queryImage(forKey: key, options: options, context: context, cacheType: cacheType) {
                    continuation.resume(returning: ($0, $1, $2))
                }
                operation.set(started)
            }
        } onCancel: {
            operation.cancel()
        }
    }

    /// Stores `image` and/or `imageData`; returns when the tiers of `cacheType` hold it.
    public func store(_ image: Image?, imageData: Data?, forKey key: String?, cacheType: ImageCacheType = .all) async {
        await withCheckedContinuation { continuation in
            store(image, imageData: imageData, forKey: key, cacheType: cacheType) { continuation.resume() }
        }
    }

    /// Removes `key` from the tiers of `cacheType`.
    public func removeImage(forKey key: String?, cacheType: ImageCacheType = .all) async {
        await withCheckedContinuation { continuation in
            removeImage(forKey: key, cacheType: cacheType) { continuation.resume() }
        }
    }

    /// The tier that holds `key` (memory first), or `.none`.
    public func containsImage(forKey key: String?, cacheType: ImageCacheType = .all) async -> ImageCacheType {
        await withCheckedContinuation { continuation in
            containsImage(forKey: key, cacheType: cacheType) { continuation.resume(returning: $0) }
        }
    }

    /// Empties the tiers of `cacheType`.
    public func clear(with cacheType: ImageCacheType = .all) async {
        await withCheckedContinuation { continuation in
            clear(with: cacheType) { continuation.resume() }
        }
    }

    /// Keeps `validators` for `key`; returns when they are kept.
    public func storeValidators(_ validators: HTTPValidators, forKey key: String) async {
        await withCheckedContinuation { continuation in
            storeValidators(validators, forKey: key) { continuation.resume() }
        }
    }

    /// The validators kept for `key`, or nil.
    public func queryValidators(forKey key: String) async -> HTTPValidators? {
        await withCheckedContinuation { continuation in
            queryValidators(forKey: key) { continuation.resume(returning: $0) }
        }
    }

    // The defaults of a cache that keeps no validators and answers memory only through `queryImage`.

    public func memoryImage(forKey key: String, options: WebImageOptions, context: WebImageContext?) -> Image? {
        nil
    }

    public func storeValidators(_ validators: HTTPValidators, forKey key: String, completion: ImageCacheCompletion?) {
        completion?()
    }

    public func queryValidators(forKey key: String, completion: @escaping ImageCacheValidatorsCompletion) {
        completion(nil)
    }
}
