import Dispatch
import Foundation
internal import ImageEngine

/// A memory tier in front of a disk tier: SDWebImage's `SDImageCache`.
///
/// Memory stores happen at once; disk work runs on this cache's serial I/O queue (a dedicated
/// DispatchQueue, off the Swift cooperative pool), so a query issued after a store completes
/// sees it. Disk hits are decoded on `Vips.blockingPool`, in parallel, then kept in memory.
/// Disk failures (folder removed, read-only, disk full) are logged; the memory tier keeps working.
/// Under a cgroup v2 memory limit, the memory tier is halved whenever usage reaches 90 % of it.
public final class ImageCache: Sendable {

    /// The cache under namespace "default" in `defaultDiskCacheDirectory`.
    public static let shared = ImageCache(namespace: "default")

    /// The settings this cache was made with.
    public let config: ImageCacheConfig
    /// The memory tier.
    public let memoryCache: any MemoryCacheProtocol
    /// The disk tier.
    public let diskCache: any DiskCacheProtocol
    /// The folder of the disk tier: `<diskCacheDirectory>/<namespace>`.
    public let diskCachePath: String

    /// Disk reads and writes, in submission order.
    let ioQueue = DispatchQueue(label: "swift-webimage.image-cache.io", qos: .userInitiated)
    /// Marks `ioQueue`, so synchronous calls made on it (from a completion) run inline, not deadlock.
    private let ioQueueKey = DispatchSpecificKey<Bool>()
    private let pathBlock = Locked<(@Sendable (String) -> String?)?>(nil)
    /// The counters of `config.metricsFactory`; nil = the global ones.
    private let ownLookupCounters: CacheLookupCounters?

    /// `$XDG_CACHE_HOME/swift-webimage`, or `~/.cache/swift-webimage` when it is not set.
    public static var defaultDiskCacheDirectory: String {
        defaultDiskCacheDirectory(
            environment: ProcessInfo.processInfo.environment, home: FileManager.default.homeDirectoryForCurrentUser.path
        )
    }

    /// `defaultDiskCacheDirectory` for this environment and home folder. An `XDG_CACHE_HOME`
    /// that is not an absolute path is ignored, as the XDG base directory spec says.
    static func defaultDiskCacheDirectory(environment: [String: String], home: String) -> String {
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.cache"
        return base + "/swift-webimage"
    }

    /// A cache whose disk tier is the folder `namespace` inside `diskCacheDirectory`
    /// (`defaultDiskCacheDirectory` when nil). `/` and NUL in the namespace become `_`.
    public init(namespace: String, diskCacheDirectory: String? = nil, config: ImageCacheConfig = .default) {
        let folderName = namespace.isEmpty || namespace == "." || namespace == ".."
            ? "default"
            : namespace.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\u{0}", with: "_")
        let path = (diskCacheDirectory ?? Self.defaultDiskCacheDirectory) + "/" + folderName
        self.config = config
        diskCachePath = path
        memoryCache = config.memoryCacheType.init(config: config)
        diskCache = config.diskCacheType.init(cachePath: path, config: config) ?? DiskCache(cachePath: path, config: config)
        ownLookupCounters = config.metricsFactory.map(CacheLookupCounters.init(factory:))
        ioQueue.setSpecific(key: ioQueueKey, value: true)
        Self.watchMemoryPressure(of: self)
    }

    /// Finds the file of a key in read-only extra folders, searched after `diskCachePath`.
    public var additionalCachePathBlock: (@Sendable (String) -> String?)? {
        get { pathBlock.withLock { $0 } }
        set { pathBlock.withLock { $0 = newValue } }
    }

    /// The file the disk entry for `key` is stored in.
    public func cachePath(forKey key: String) -> String? {
        diskCache.cachePath(forKey: key)
    }

    // MARK: Memory

    /// The image in the memory tier under `key`.
    public func imageFromMemoryCache(forKey key: String?) -> Image? {
        guard let key else { return nil }
        let image = memoryCache.object(forKey: key)
        lookupCounters.countMemoryLookup(hit: image != nil)
        return image
    }

    /// Puts `image` in the memory tier (if `shouldCacheImagesInMemory`) with its `memoryCost`.
    public func storeImageToMemory(_ image: Image?, forKey key: String?) {
        guard let image, let key, config.shouldCacheImagesInMemory else { return }
        memoryCache.setObject(image, forKey: key, cost: image.memoryCost)
    }

    /// Empties the memory tier.
    public func clearMemory() {
        memoryCache.removeAllObjects()
    }

    // MARK: Disk, synchronous (block the caller on file I/O)

    /// The data for `key` in `diskCachePath`, then in the extra folders.
    public func diskImageData(forKey key: String?) -> Data? {
        guard let key else { return nil }
        return onIOQueue { diskDataSearchingAllPaths(forKey: key) }
    }

    /// True when the disk tier holds `key` (extra folders included).
    public func diskImageDataExists(withKey key: String?) -> Bool {
        guard let key else { return false }
        return onIOQueue {
            diskCache.containsData(forKey: key)
                || additionalCachePathBlock?(key).map { FileManager.default.fileExists(atPath: $0) } == true
        }
    }

    /// Writes `imageData` for `key` to the disk tier now.
    public func storeImageDataToDisk(_ imageData: Data?, forKey key: String?) throws {
        guard let imageData, let key else { return }
        try onIOQueue { try diskCache.setData(imageData, forKey: key) }
    }

    /// The image decoded from the disk tier (then kept in memory), or nil.
    public func imageFromDiskCache(forKey key: String?) -> Image? {
        imageFromDiskCache(forKey: key, options: [], context: nil)
    }

    /// The image in memory, else from disk.
    public func imageFromCache(forKey key: String?) -> Image? {
        imageFromMemoryCache(forKey: key) ?? imageFromDiskCache(forKey: key)
    }

    /// Bytes of the disk tier's entries.
    public func totalDiskSize() -> Int {
        onIOQueue { diskCache.totalSize }
    }

    /// Number of the disk tier's entries.
    public func totalDiskCount() -> Int {
        onIOQueue { diskCache.totalCount }
    }

    // MARK: Disk, asynchronous

    /// Counts the disk tier's entries and bytes on the I/O queue.
    public func calculateSize(completion: @escaping @Sendable (_ fileCount: Int, _ totalSize: Int) -> Void) {
        ioQueue.async { [self] in completion(diskCache.totalCount, diskCache.totalSize) }
    }

    /// Removes every disk entry (the folder stays). `completion` has no default, so that
    /// `await cache.clearDisk()` names the `async` form, which waits.
    public func clearDisk(completion: ImageCacheCompletion?) {
        ioQueue.async { [self] in
            diskCache.removeAllData()
            completion?()
        }
    }

    /// Removes expired disk entries, then the oldest while over `maxDiskSize`.
    public func deleteOldFiles(completion: ImageCacheCompletion?) {
        ioQueue.async { [self] in
            diskCache.removeExpiredData()
            completion?()
        }
    }

    /// Stores `image` in memory at once and, with `toDisk`, `imageData` (or the image encoded when
    /// nil) on disk; `completion` runs after the disk write. `completion` has no default: a call
    /// without it is the `async` form, which returns after the write.
    public func store(
        _ image: Image?, imageData: Data? = nil, forKey key: String?, toDisk: Bool = true,
        completion: ImageCacheCompletion?
    ) {
        store(image, imageData: imageData, forKey: key, toMemory: true, toDisk: toDisk, completion: completion)
    }

    /// Removes `key` from the chosen tiers; `completion` runs after the disk removal.
    public func removeImage(
        forKey key: String?, fromMemory: Bool = true, fromDisk: Bool = true, completion: ImageCacheCompletion?
    ) {
        guard let key else {
            completion?()
            return
        }
        if fromMemory { memoryCache.removeObject(forKey: key) }
        guard fromDisk else {
            completion?()
            return
        }
        ioQueue.async { [self] in
            diskCache.removeData(forKey: key)
            completion?()
        }
    }

    // MARK: Internals

    func store(
        _ image: Image?, imageData: Data?, forKey key: String?, toMemory: Bool, toDisk: Bool,
        completion: ImageCacheCompletion?
    ) {
        guard let key, image != nil || imageData != nil else {
            completion?()
            return
        }
        if toMemory { storeImageToMemory(image, forKey: key) }
        guard toDisk else {
            completion?()
            return
        }
        ioQueue.async { [self] in
            if let data = imageData ?? image.flatMap(Self.encodedForDisk) {
                do {
                    try diskCache.setData(data, forKey: key)
                } catch {
                    CacheObservability.logger.warning("cannot store \(key) on disk: \(error)")
                }
            }
            completion?()
        }
    }

    /// The bytes to keep for an image stored without data: an animation's original bytes (else
    /// GIF), PNG when it has alpha or more than 8 bits (16-bit with its `cICP`: an HDR image
    /// stays HDR), JPEG otherwise.
    static func encodedForDisk(_ image: Image) -> Data? {
        if image.isAnimated, let original = image.animatedImageProvider?.animatedImageData { return original }
        do {
            let format: ImageFormat = image.bitsPerComponent > 8 ? .png : .undefined
            return try ImageCodersManager.shared.encode(image, format: format, options: ImageCoderOptions())
        } catch {
            CacheObservability.logger.warning("cannot encode \(image) for the disk cache: \(error)")
            return nil
        }
    }

    /// Where this cache counts its lookups.
    var lookupCounters: CacheLookupCounters { ownLookupCounters ?? .global }

    /// Runs `body` on `ioQueue` and waits for it; inline when already there.
    func onIOQueue<T>(_ body: () throws -> T) rethrows -> T {
        if DispatchQueue.getSpecific(key: ioQueueKey) == true { return try body() }
        return try ioQueue.sync(execute: body)
    }

    /// Main folder first, then the extra folders. Runs on `ioQueue`.
    func diskDataSearchingAllPaths(forKey key: String) -> Data? {
        if let data = diskCache.data(forKey: key) { return data }
        guard let path = additionalCachePathBlock?(key) else { return nil }
        return CacheFile.read(path)
    }
}
