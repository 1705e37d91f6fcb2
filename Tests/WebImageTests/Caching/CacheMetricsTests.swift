import Foundation
import Metrics
import MetricsTestKit
import Testing
@testable import WebImage
import WebImageTestSupport

/// The lookup counters, through a metrics backend of the test's own (the global `MetricsSystem`
/// is never bootstrapped here: tests run in parallel in one process).
@Suite("Caching: metrics", .offThePool)
struct CacheMetricsTests {
    /// The value of `webimage_cache_lookups_total{tier, result}`, or 0 when never counted.
    private func lookups(_ metrics: TestMetrics, tier: String, result: String) -> Int64 {
        let counter = try? metrics.expectCounter("webimage_cache_lookups_total", [("tier", tier), ("result", result)])
        return counter?.totalValue ?? 0
    }

    /// Memory hits, memory misses, disk hits, disk misses.
    private func counts(_ metrics: TestMetrics) -> [Int64] {
        [
            lookups(metrics, tier: "memory", result: "hit"), lookups(metrics, tier: "memory", result: "miss"),
            lookups(metrics, tier: "disk", result: "hit"), lookups(metrics, tier: "disk", result: "miss"),
        ]
    }

    /// A cache in `scratch` whose counters report to `metrics`.
    private func cache(reportingTo metrics: TestMetrics, in scratch: ScratchFolder, namespace: String = "test") -> ImageCache {
        var config = ImageCacheConfig()
        config.metricsFactory = metrics
        return scratch.imageCache(namespace: namespace, config: config)
    }

    @Test func lookupsAreCountedPerTierAsTheCallerSeesThem() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let metrics = TestMetrics()
        let cache = cache(reportingTo: metrics, in: scratch)
        let data = try TestImages.data("sdwebimage/TestImage.png")
        await cache.store(try CacheFixtures.image("sdwebimage/TestImage.png"), imageData: data, forKey: "k")
        #expect(counts(metrics) == [0, 0, 0, 0])

        #expect(await cache.queryImage(forKey: "k").cacheType == .memory)
        #expect(counts(metrics) == [1, 0, 0, 0])

        #expect(await cache.queryImage(forKey: "missing").cacheType == .none)
        #expect(counts(metrics) == [1, 1, 0, 1])

        cache.clearMemory()
        #expect(await cache.queryImage(forKey: "k").cacheType == .disk)
        #expect(counts(metrics) == [1, 2, 1, 1])
        #expect(await cache.queryImage(forKey: "k").cacheType == .memory)
        #expect(counts(metrics) == [2, 2, 1, 1])

        // A file that does not decode is a disk miss.
        try cache.storeImageDataToDisk(Data("not an image".utf8), forKey: "bad")
        #expect(await cache.queryImage(forKey: "bad").cacheType == .none)
        #expect(counts(metrics) == [2, 3, 1, 2])

        // The synchronous forms count too; a memory-only query asks no disk.
        #expect(cache.imageFromCache(forKey: "k") != nil)
        #expect(cache.imageFromDiskCache(forKey: "k") != nil)
        #expect(await cache.queryImage(forKey: "missing", cacheType: .memory).cacheType == .none)
        #expect(counts(metrics) == [3, 4, 2, 2])
    }

    @Test func aMemoryImageTheOptionsRuleOutIsAMiss() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let metrics = TestMetrics()
        let cache = cache(reportingTo: metrics, in: scratch)
        let data = try TestImages.data("sdwebimage/TestImage.gif")
        await cache.store(try CacheFixtures.image("sdwebimage/TestImage.gif"), imageData: data, forKey: "gif")
        #expect(await cache.queryImage(forKey: "gif", options: .decodeFirstFrameOnly).cacheType == .disk)
        #expect(counts(metrics) == [0, 1, 1, 0])
    }

    @Test func cachesWithTheirOwnBackendsCountApart() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let (first, second) = (TestMetrics(), TestMetrics())
        let firstCache = cache(reportingTo: first, in: scratch, namespace: "first")
        let secondCache = cache(reportingTo: second, in: scratch, namespace: "second")
        _ = await firstCache.queryImage(forKey: "k")
        _ = await firstCache.queryImage(forKey: "k")
        _ = await secondCache.queryImage(forKey: "k")
        #expect(counts(first) == [0, 2, 0, 2])
        #expect(counts(second) == [0, 1, 0, 1])
    }
}
