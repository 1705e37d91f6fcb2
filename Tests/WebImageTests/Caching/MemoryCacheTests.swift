import Dispatch
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("Caching: MemoryCache", .offThePool)
struct MemoryCacheTests {
    @Test func storesAndFindsByKey() throws {
        let cache = MemoryCache()
        let image = try CacheFixtures.solidImage()
        cache.setObject(image, forKey: "a", cost: 10)
        #expect(cache.object(forKey: "a") === image)
        #expect(cache.object(forKey: "b") == nil)
        #expect(cache.count == 1)
        #expect(cache.totalCost == 10)
    }

    /// The same cache holds any object: here encoded bytes, as an image server keeps its results.
    @Test func anyObjectIsHeldAndEvictedByCost() throws {
        final class Encoded: Sendable {
            let bytes: [UInt8]
            init(_ count: Int) { bytes = [UInt8](repeating: 7, count: count) }
        }
        let cache = ObjectMemoryCache<Encoded>(costLimit: 10_000)
        let first = Encoded(6_000)
        cache.setObject(first, forKey: "first", cost: first.bytes.count)
        #expect(cache.object(forKey: "first") === first)
        let second = Encoded(6_000)
        cache.setObject(second, forKey: "second", cost: second.bytes.count)
        #expect(cache.object(forKey: "first") == nil && cache.object(forKey: "second") === second)
        #expect(cache.totalCost == 6_000 && cache.count == 1)
    }

    @Test func costLimitIsNeverExceededAfterAnyStore() throws {
        let limit = 1_000
        let cache = MemoryCache(costLimit: limit)
        let image = try CacheFixtures.solidImage()
        var expectedKeys: Set<String> = []
        for index in 0..<500 {
            let cost = (index * 7_919) % 401
            cache.setObject(image, forKey: "k\(index % 37)", cost: cost)
            expectedKeys.insert("k\(index % 37)")
            #expect(cache.totalCost <= limit)
        }
        // Exact accounting: emptying it brings the total back to zero.
        for key in expectedKeys { cache.removeObject(forKey: key) }
        #expect(cache.totalCost == 0)
        #expect(cache.count == 0)
    }

    @Test func evictsTheLeastRecentlyReadFirst() throws {
        let cache = MemoryCache(costLimit: 30)
        let image = try CacheFixtures.solidImage()
        cache.setObject(image, forKey: "a", cost: 10)
        cache.setObject(image, forKey: "b", cost: 10)
        cache.setObject(image, forKey: "c", cost: 10)
        _ = cache.object(forKey: "a")
        cache.setObject(image, forKey: "d", cost: 10)
        #expect(cache.object(forKey: "b") == nil)
        #expect(cache.object(forKey: "a") != nil)
        #expect(cache.object(forKey: "c") != nil)
        #expect(cache.object(forKey: "d") != nil)
        #expect(cache.totalCost == 30)
    }

    @Test func countLimitEvictsLeastRecentlyUsed() throws {
        let cache = MemoryCache(countLimit: 2)
        let image = try CacheFixtures.solidImage()
        cache.setObject(image, forKey: "a", cost: 1)
        cache.setObject(image, forKey: "b", cost: 1)
        _ = cache.object(forKey: "a")
        cache.setObject(image, forKey: "c", cost: 1)
        #expect(cache.count == 2)
        #expect(cache.object(forKey: "b") == nil)
    }

    @Test func replacingAnEntryAccountsItsNewCost() throws {
        let cache = MemoryCache()
        let image = try CacheFixtures.solidImage()
        cache.setObject(image, forKey: "a", cost: 10)
        cache.setObject(image, forKey: "a", cost: 25)
        #expect(cache.totalCost == 25)
        #expect(cache.count == 1)
    }

    @Test func anEntryLargerThanTheLimitIsNotKept() throws {
        let cache = MemoryCache(costLimit: 10)
        cache.setObject(try CacheFixtures.solidImage(), forKey: "big", cost: 11)
        #expect(cache.object(forKey: "big") == nil)
        #expect(cache.totalCost == 0)
    }

    @Test func weakMirrorReturnsAnEvictedImageStillHeldElsewhere() throws {
        let weak = MemoryCache(countLimit: 1, usesWeakMirror: true)
        let strong = MemoryCache(countLimit: 1)
        let held = try CacheFixtures.solidImage()
        for cache in [weak, strong] {
            cache.setObject(held, forKey: "held", cost: 1)
            cache.setObject(try CacheFixtures.solidImage(), forKey: "other", cost: 1)
        }
        #expect(weak.object(forKey: "held") === held)
        #expect(strong.object(forKey: "held") == nil)
        // Found through the mirror, it is back in the strong tier (within the limits).
        #expect(weak.count == 1)
    }

    @Test func weakMirrorForgetsImagesNobodyHolds() throws {
        let cache = MemoryCache(countLimit: 1, usesWeakMirror: true)
        cache.setObject(try CacheFixtures.solidImage(), forKey: "gone", cost: 1)
        cache.setObject(try CacheFixtures.solidImage(), forKey: "other", cost: 1)
        #expect(cache.object(forKey: "gone") == nil)
    }

    @Test func trimAndRemoveAll() throws {
        let cache = MemoryCache()
        let image = try CacheFixtures.solidImage()
        for index in 0..<10 { cache.setObject(image, forKey: "k\(index)", cost: 10) }
        _ = cache.object(forKey: "k0")
        cache.trim(toCost: 50)
        #expect(cache.totalCost == 50)
        #expect(cache.object(forKey: "k0") != nil)
        #expect(cache.object(forKey: "k1") == nil)
        cache.trim(toCount: 2)
        #expect(cache.count == 2)
        cache.removeAllObjects()
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
    }

    @Test func concurrentUseKeepsExactAccountingAndTheLimit() throws {
        let cache = MemoryCache(costLimit: 5_000)
        let image = try CacheFixtures.solidImage()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<2_000 {
                let key = "k\((index * 31 + thread) % 300)"
                if index % 3 == 0 { _ = cache.object(forKey: key) }
                if index % 17 == 0 { cache.removeObject(forKey: key) }
                cache.setObject(image, forKey: key, cost: 10 + index % 90)
            }
        }
        #expect(cache.totalCost <= 5_000)
        let held = (0..<300).filter { cache.object(forKey: "k\($0)") != nil }.count
        #expect(cache.count == held)
        for index in 0..<300 { cache.removeObject(forKey: "k\(index)") }
        #expect(cache.totalCost == 0)
        #expect(cache.count == 0)
    }

    @Test func configSetsTheLimits() {
        var config = ImageCacheConfig()
        config.maxMemoryCost = 123
        config.maxMemoryCount = 7
        config.shouldUseWeakMemoryCache = true
        let cache = MemoryCache(config: config)
        #expect(cache.costLimit == 123)
        #expect(cache.countLimit == 7)
        #expect(cache.usesWeakMirror)
    }
}
