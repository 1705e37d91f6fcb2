import Foundation
internal import ImageEngine

extension ImageCache {
    /// Looks `key` up: memory first (answered at once), then disk. A disk hit is decoded on
    /// `Vips.blockingPool` and kept in memory; a disk entry that does not decode is a miss and is
    /// removed. `done` runs exactly once, also after `cancel()` (then with nothing found);
    /// asynchronous answers run on the context's `callbackQueue`, or else on a background thread.
    /// Returns nil when answered before returning.
    @discardableResult
    public func queryCacheOperation(
        forKey key: String?, options: WebImageOptions = [], context: WebImageContext? = nil,
        cacheType: ImageCacheType = .all, done: ImageCacheQueryCompletion?
    ) -> (any WebImageOperation)? {
        guard let key, cacheType != .none else {
            done?(nil, nil, .none)
            return nil
        }
        let memoryImage = cacheType.includesMemory ? memoryImage(forKey: key, options: options, context: context) : nil
        if cacheType == .memory || (memoryImage != nil && !options.contains(.queryMemoryData)) {
            done?(memoryImage, nil, memoryImage == nil ? .none : .memory)
            return nil
        }
        let operation = CacheQueryOperation(callbackQueue: context?.callbackQueue, completion: done)
        let synchronous = options.contains(memoryImage == nil ? .queryDiskDataSync : .queryMemoryDataSync)
        if synchronous {
            let data = onIOQueue { diskDataSearchingAllPaths(forKey: key) }
            if let memoryImage {
                operation.finish(memoryImage, data, .memory, synchronously: true)
            } else {
                let image = decodedDiskHit(data, forKey: key, options: options, context: context)
                operation.finish(image, image == nil ? nil : data, image == nil ? .none : .disk, synchronously: true)
            }
            return operation
        }
        ioQueue.async { [self] in
            guard !operation.isCancelled else { return }
            let data = diskDataSearchingAllPaths(forKey: key)
            if let memoryImage {
                operation.finish(memoryImage, data, .memory, synchronously: false)
                return
            }
            guard let data else {
                lookupCounters.countDiskLookup(hit: false)
                operation.finish(nil, nil, .none, synchronously: false)
                return
            }
            guard !operation.isCancelled else { return }
            // Decoding leaves the serial I/O queue: disk hits decode in parallel.
            Vips.blockingPool.submit { [self] _ in
                guard !operation.isCancelled else { return }
                let image = decodedDiskHit(data, forKey: key, options: options, context: context, operation: operation)
                operation.finish(image, image == nil ? nil : data, image == nil ? .none : .disk, synchronously: false)
            }
        }
        return operation
    }

    /// The image decoded from disk with these options, or nil. Blocks on file I/O and decoding.
    public func imageFromDiskCache(forKey key: String?, options: WebImageOptions, context: WebImageContext?) -> Image? {
        guard let key else { return nil }
        let data = onIOQueue { diskDataSearchingAllPaths(forKey: key) }
        return decodedDiskHit(data, forKey: key, options: options, context: context)
    }

    /// The memory image unless the options rule it out (an animation when only the first frame
    /// is wanted, or not of the context's `animatedImageClass`); one ruled out counts as a miss.
    public func memoryImage(forKey key: String, options: WebImageOptions, context: WebImageContext?) -> Image? {
        let image = memoryCache.object(forKey: key).flatMap { image in
            Self.isUsable(image, options: options, context: context) ? image : nil
        }
        lookupCounters.countMemoryLookup(hit: image != nil)
        return image
    }

    private static func isUsable(_ image: Image, options: WebImageOptions, context: WebImageContext?) -> Bool {
        if options.contains(.decodeFirstFrameOnly) && image.isAnimated { return false }
        if options.contains(.matchAnimatedImageClass), let wanted = context?.animatedImageClass {
            guard let provider = image.animatedImageProvider else { return false }
            return ObjectIdentifier(type(of: provider)) == ObjectIdentifier(wanted)
        }
        return true
    }

    /// Decodes disk data and keeps the image in memory (unless `operation` was cancelled
    /// meanwhile, or the image is not the whole original: a thumbnail or first frames kept
    /// under the key would shadow the original, so, as SDWebImage does for thumbnails, it is
    /// not kept; nor when the context's `storeCacheType` leaves memory out). Data that does not
    /// decode is removed from disk (unless replaced meanwhile) and reported as a miss.
    private func decodedDiskHit(
        _ data: Data?, forKey key: String, options: WebImageOptions, context: WebImageContext?,
        operation: CacheQueryOperation? = nil
    ) -> Image? {
        guard let data else {
            lookupCounters.countDiskLookup(hit: false)
            return nil
        }
        let coderOptions = ImageDecoding.coderOptions(forName: key, options: options, context: context)
        let image: Image
        do {
            image = try ImageDecoding.decode(data, name: key, options: coderOptions, context: context)
        } catch {
            CacheObservability.logger.debug("removing undecodable cache entry \(key)")
            lookupCounters.countDiskLookup(hit: false)
            onIOQueue {
                if diskCache.data(forKey: key) == data { diskCache.removeData(forKey: key) }
            }
            return nil
        }
        lookupCounters.countDiskLookup(hit: true)
        let isWholeOriginal = coderOptions.decodeThumbnailPixelSize == .zero && !coderOptions.decodeFirstFrameOnly
            && coderOptions.decodeFrameLimit == .max
        if isWholeOriginal, (context?.storeCacheType ?? .all).includesMemory, operation?.isCancelled != true {
            storeImageToMemory(image, forKey: key)
        }
        return image
    }
}
