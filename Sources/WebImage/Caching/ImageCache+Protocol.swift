import Foundation

extension ImageCache: ImageCacheProtocol {
    @discardableResult
    public func queryImage(
        forKey key: String?, options: WebImageOptions, context: WebImageContext?, cacheType: ImageCacheType,
        completion: ImageCacheQueryCompletion?
    ) -> (any WebImageOperation)? {
        queryCacheOperation(forKey: key, options: options, context: context, cacheType: cacheType, done: completion)
    }

    public func store(
        _ image: Image?, imageData: Data?, forKey key: String?, cacheType: ImageCacheType,
        completion: ImageCacheCompletion?
    ) {
        store(
            image, imageData: imageData, forKey: key, toMemory: cacheType.includesMemory,
            toDisk: cacheType.includesDisk, completion: completion
        )
    }

    public func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        removeImage(
            forKey: key, fromMemory: cacheType.includesMemory, fromDisk: cacheType.includesDisk, completion: completion
        )
    }

    public func containsImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheContainsCompletion?) {
        guard let key else {
            completion?(.none)
            return
        }
        if cacheType.includesMemory, memoryCache.object(forKey: key) != nil {
            completion?(.memory)
            return
        }
        guard cacheType.includesDisk else {
            completion?(.none)
            return
        }
        ioQueue.async { [self] in
            let onDisk = diskCache.containsData(forKey: key)
                || additionalCachePathBlock?(key).map { FileManager.default.fileExists(atPath: $0) } == true
            completion?(onDisk ? .disk : .none)
        }
    }

    public func clear(with cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        if cacheType.includesMemory { clearMemory() }
        if cacheType.includesDisk {
            clearDisk(completion: completion)
        } else {
            completion?()
        }
    }

    /// Kept in the disk entry's extended data (beside the file), after the entry's write.
    public func storeValidators(_ validators: HTTPValidators, forKey key: String, completion: ImageCacheCompletion?) {
        ioQueue.async { [self] in
            do {
                try diskCache.setExtendedData(validators.extendedData, forKey: key)
            } catch {
                CacheObservability.logger.debug("validators not kept", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            completion?()
        }
    }

    public func queryValidators(forKey key: String, completion: @escaping ImageCacheValidatorsCompletion) {
        ioQueue.async { [self] in
            completion(diskCache.extendedData(forKey: key).flatMap(HTTPValidators.init(extendedData:)))
        }
    }
}
