import Foundation
import Metrics

/// The file date that decides when a disk entry expires and which entries a size trim removes first.
public enum DiskCacheExpireType: Sendable, Hashable {
    /// The last time the entry was read or written (kept by the cache itself, not by `atime` updates).
    case accessDate
    /// The last time the entry was written.
    case modificationDate
    /// When the file was created (falls back to the modification date where the file system has no birth time).
    case creationDate
    /// The last change of the file or its attributes (`ctime`).
    case changeDate
}

/// The settings of an `ImageCache`: SDWebImage's `SDImageCacheConfig`.
public struct ImageCacheConfig: Sendable {
    /// Keep decoded images in the memory tier.
    public var shouldCacheImagesInMemory = true
    /// Also keep weak references, so an image evicted from memory while still in use elsewhere is found.
    public var shouldUseWeakMemoryCache = false
    /// Seconds a disk entry lives (by `diskCacheExpireType`); negative = forever. One week by default.
    public var maxDiskAge: TimeInterval = 604_800
    /// Bytes the disk tier may hold; 0 = unlimited. Going over trims the oldest entries to half of it.
    public var maxDiskSize = 0
    /// Total cost (bytes of pixels) the memory tier may hold; 0 = unlimited.
    public var maxMemoryCost = 0
    /// Number of images the memory tier may hold; 0 = unlimited.
    public var maxMemoryCount = 0
    /// The date `maxDiskAge` and size trims go by.
    public var diskCacheExpireType: DiskCacheExpireType = .accessDate
    /// Seconds between two background removals of expired disk entries; 0 = none. The disk tier
    /// removes expired entries when it is made and after writes, at most once per this interval:
    /// what SDWebImage does when an app enters the background, for processes that never do.
    /// One hour by default.
    public var expiredDataRemovalInterval: TimeInterval = 3_600
    /// Flush each disk entry to the device (`fsync`) before it replaces the old one. Stores are
    /// atomic either way (written aside, then renamed); without the flush, a power loss can leave
    /// a torn entry, which a read detects as undecodable and removes. Turn it off for entries
    /// that can be made again (an image server's results) to save a device flush per store.
    public var diskCacheSyncsWrites = true
    /// The memory tier's implementation.
    public var memoryCacheType: any MemoryCacheProtocol.Type = MemoryCache.self
    /// The disk tier's implementation.
    public var diskCacheType: any DiskCacheProtocol.Type = DiskCache.self
    /// The swift-metrics backend of the cache's counters (`webimage_cache_lookups_total{tier,
    /// result}`); nil = the global `MetricsSystem.factory`, as bootstrapped before the first
    /// lookup of any cache.
    public var metricsFactory: (any MetricsFactory)?

    /// SDWebImage's defaults, as each property says.
    public init() {}

    /// The configuration `ImageCache.shared` starts with.
    public static let `default` = ImageCacheConfig()
}
