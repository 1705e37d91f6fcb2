import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestSupport

/// `ImageCacheConfig.memoryCacheType` / `diskCacheType`: custom tiers an `ImageCache` builds and uses.
@Suite("Caching: custom tiers", .offThePool)
struct CustomTierTests {
    @Test func anImageCacheUsesTheConfiguredTiers() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var config = ImageCacheConfig()
        config.memoryCacheType = DictionaryMemoryCache.self
        config.diskCacheType = RecordingDiskCache.self
        let cache = scratch.imageCache(config: config)
        let memory = try #require(cache.memoryCache as? DictionaryMemoryCache)
        let disk = try #require(cache.diskCache as? RecordingDiskCache)
        let data = try TestImages.data("sdwebimage/TestImage.png")
        await cache.store(try CacheFixtures.image("sdwebimage/TestImage.png"), imageData: data, forKey: "k")
        #expect(memory.count == 1)
        #expect(disk.writtenKeys == ["k"])
        #expect(await cache.queryImage(forKey: "k").cacheType == .memory)
        cache.clearMemory()
        #expect(memory.count == 0)
        #expect(await cache.queryImage(forKey: "k").cacheType == .disk)
        #expect(memory.count == 1)
    }

    @Test func aDiskTierThatCannotBeMadeFallsBackToDiskCache() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var config = ImageCacheConfig()
        config.diskCacheType = UnavailableDiskCache.self
        let cache = scratch.imageCache(config: config)
        #expect(cache.diskCache is DiskCache)
        try cache.storeImageDataToDisk(Data([1, 2, 3]), forKey: "k")
        #expect(cache.diskImageData(forKey: "k") == Data([1, 2, 3]))
    }
}

/// A memory tier without limits: a dictionary behind a lock.
private final class DictionaryMemoryCache: MemoryCacheProtocol {
    private let images = Locked<[String: (image: Image, cost: Int)]>([:])

    init(config: ImageCacheConfig) {}

    func object(forKey key: String) -> Image? { images.withLock { $0[key]?.image } }
    func setObject(_ object: Image, forKey key: String, cost: Int) { images.withLock { $0[key] = (object, cost) } }
    func removeObject(forKey key: String) { images.withLock { $0[key] = nil } }
    func removeAllObjects() { images.withLock { $0.removeAll() } }
    var totalCost: Int { images.withLock { $0.values.reduce(0) { $0 + $1.cost } } }
    var count: Int { images.withLock { $0.count } }
}

/// The default disk tier, recording the keys written.
private final class RecordingDiskCache: DiskCacheProtocol {
    private let disk: DiskCache
    private let written = Locked<[String]>([])

    init?(cachePath: String, config: ImageCacheConfig) {
        disk = DiskCache(cachePath: cachePath, config: config)
    }

    var writtenKeys: [String] { written.withLock { $0 } }

    func containsData(forKey key: String) -> Bool { disk.containsData(forKey: key) }
    func data(forKey key: String) -> Data? { disk.data(forKey: key) }
    func setData(_ data: Data, forKey key: String) throws {
        try disk.setData(data, forKey: key)
        written.withLock { $0.append(key) }
    }
    func extendedData(forKey key: String) -> Data? { disk.extendedData(forKey: key) }
    func setExtendedData(_ data: Data?, forKey key: String) throws { try disk.setExtendedData(data, forKey: key) }
    func removeData(forKey key: String) { disk.removeData(forKey: key) }
    func removeAllData() { disk.removeAllData() }
    func removeExpiredData() { disk.removeExpiredData() }
    func cachePath(forKey key: String) -> String? { disk.cachePath(forKey: key) }
    var totalCount: Int { disk.totalCount }
    var totalSize: Int { disk.totalSize }
}

/// A disk tier that can never be made.
private final class UnavailableDiskCache: DiskCacheProtocol {
    init?(cachePath: String, config: ImageCacheConfig) { nil }

    func containsData(forKey key: String) -> Bool { false }
    func data(forKey key: String) -> Data? { nil }
    func setData(_ data: Data, forKey key: String) throws {}
    func extendedData(forKey key: String) -> Data? { nil }
    func setExtendedData(_ data: Data?, forKey key: String) throws {}
    func removeData(forKey key: String) {}
    func removeAllData() {}
    func removeExpiredData() {}
    func cachePath(forKey key: String) -> String? { nil }
    var totalCount: Int { 0 }
    var totalSize: Int { 0 }
}
