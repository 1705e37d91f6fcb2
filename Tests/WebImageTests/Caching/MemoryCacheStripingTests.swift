import Dispatch
import Testing
@testable import WebImage
import WebImageTestSupport

/// The limits and the eviction order hold across the cache's shards (keys are spread over shards
/// by hash; these tests use enough keys that they land in several).
@Suite("Caching: MemoryCache across shards", .offThePool)
struct MemoryCacheStripingTests {
    @Test func evictionFollowsReadOrderAcrossTheWholeCache() throws {
        let cache = MemoryCache(countLimit: 64)
        let keys = (0..<64).map { "k\($0)" }
        for key in keys { cache.setObject(try CacheFixtures.solidImage(), forKey: key, cost: 1) }
        // Read every key in a shuffled but fixed order: that order is now the recency order.
        let readOrder = (0..<64).map { keys[($0 * 37) % 64] }
        for key in readOrder { #expect(cache.object(forKey: key) != nil) }
        for index in 0..<16 { cache.setObject(try CacheFixtures.solidImage(), forKey: "new\(index)", cost: 1) }
        // Exactly the 16 least recently read went, whatever shards they were in.
        #expect(readOrder.prefix(16).allSatisfy { cache.object(forKey: $0) == nil })
        #expect(readOrder.dropFirst(16).allSatisfy { cache.object(forKey: $0) != nil })
        #expect(cache.count == 64)
    }

    @Test func costEvictionTakesTheLeastRecentlyUsedWhateverItsShard() throws {
        let cache = MemoryCache(costLimit: 1_000)
        let keys = (0..<100).map { "k\($0)" }
        for key in keys { cache.setObject(try CacheFixtures.solidImage(), forKey: key, cost: 10) }
        // Touch the first 50 again: the other 50 are now the oldest.
        for key in keys.prefix(50) { _ = cache.object(forKey: key) }
        cache.setObject(try CacheFixtures.solidImage(), forKey: "big", cost: 495)
        // 495 more than the limit allows needs 50 entries of 10 freed: the 50 untouched ones.
        #expect(keys.dropFirst(50).allSatisfy { cache.object(forKey: $0) == nil })
        #expect(keys.prefix(50).allSatisfy { cache.object(forKey: $0) != nil })
        #expect(cache.totalCost == 995)
    }

    @Test func concurrentStoresKeepBothLimitsAndExactTotals() throws {
        let cache = MemoryCache(costLimit: 2_000, countLimit: 50)
        let images = try (0..<4).map { _ in try CacheFixtures.solidImage() }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<3_000 {
                let key = "k\((index * 13 + thread * 7) % 500)"
                cache.setObject(images[thread], forKey: key, cost: 1 + (index % 60))
                _ = cache.object(forKey: "k\((index * 11) % 500)")
            }
        }
        // Once the stores have returned, the last evictor brought the cache within both limits.
        #expect(cache.count <= 50)
        #expect(cache.totalCost <= 2_000)
        let held = (0..<500).map { "k\($0)" }.filter { cache.object(forKey: $0) != nil }
        #expect(held.count == cache.count)
        for key in held { cache.removeObject(forKey: key) }
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
    }

    @Test func theWeakMirrorFindsEveryHeldImageAfterConcurrentEviction() throws {
        let cache = MemoryCache(countLimit: 8, usesWeakMirror: true)
        let held = try (0..<40).map { _ in try CacheFixtures.solidImage() }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in stride(from: thread, to: 40, by: 4) {
                cache.setObject(held[index], forKey: "held\(index)", cost: 1)
                for filler in 0..<4 {
                    if let image = try? CacheFixtures.solidImage() {
                        cache.setObject(image, forKey: "filler\(index)-\(filler)", cost: 1)
                    }
                }
            }
        }
        // Evicted from the strong tier long ago, each is still found while the test holds it.
        for index in 0..<40 { #expect(cache.object(forKey: "held\(index)") === held[index]) }
        #expect(cache.count <= 8)
    }
}
