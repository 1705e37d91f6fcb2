import Foundation
import Testing
import WebImageTestServer
@testable import WebImage
import WebImageTestSupport

@Suite("Caching: ImageCachesManager", .offThePool)
struct ImageCachesManagerTests {
    /// A manager over two caches in a scratch folder: `low` added first, `high` last.
    private func withManager(_ body: (ImageCachesManager, ImageCache, ImageCache) async throws -> Void) async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let low = scratch.imageCache(namespace: "low")
        let high = scratch.imageCache(namespace: "high")
        let manager = ImageCachesManager(caches: [low])
        manager.addCache(high)
        try await body(manager, low, high)
    }

    private let data: Data
    private let image: Image

    init() throws {
        data = try TestImages.data("sdwebimage/TestImage.jpg")
        image = try CacheFixtures.image("sdwebimage/TestImage.jpg")
    }

    @Test func defaultsMatchSDWebImage() {
        let manager = ImageCachesManager(caches: [])
        #expect(manager.queryOperationPolicy == .serial)
        #expect(manager.storeOperationPolicy == .highestOnly)
        #expect(manager.removeOperationPolicy == .concurrent)
        #expect(manager.containsOperationPolicy == .serial)
        #expect(manager.clearOperationPolicy == .concurrent)
    }

    @Test func storeGoesToTheHighestOnlyByDefaultAndToTheLowestWhenAsked() async throws {
        try await withManager { manager, low, high in
            await manager.store(image, imageData: data, forKey: "a")
            #expect(high.imageFromMemoryCache(forKey: "a") != nil)
            #expect(low.imageFromMemoryCache(forKey: "a") == nil)
            manager.storeOperationPolicy = .lowestOnly
            await manager.store(image, imageData: data, forKey: "b")
            #expect(low.diskImageDataExists(withKey: "b") && !high.diskImageDataExists(withKey: "b"))
            manager.storeOperationPolicy = .concurrent
            await manager.store(image, imageData: data, forKey: "c")
            #expect(low.diskImageDataExists(withKey: "c") && high.diskImageDataExists(withKey: "c"))
        }
    }

    @Test(arguments: [ImageCachesManagerOperationPolicy.serial, .concurrent])
    func queryFindsAnImageInAnyCache(policy: ImageCachesManagerOperationPolicy) async throws {
        try await withManager { manager, low, _ in
            manager.queryOperationPolicy = policy
            await low.store(image, imageData: data, forKey: "k", cacheType: .disk)
            let found = await manager.queryImage(forKey: "k")
            #expect(found.cacheType == .disk && found.image != nil)
            let missing = await manager.queryImage(forKey: "none")
            #expect(missing.image == nil && missing.cacheType == .none)
        }
    }

    @Test func serialQueriesAskTheHighestPriorityCacheFirst() async throws {
        try await withManager { manager, low, high in
            let lowImage = try CacheFixtures.image("sdwebimage/TestImage.jpg")
            let highImage = try CacheFixtures.image("sdwebimage/TestImage.jpg")
            low.storeImageToMemory(lowImage, forKey: "k")
            high.storeImageToMemory(highImage, forKey: "k")
            #expect(await manager.queryImage(forKey: "k").image === highImage)
            high.clearMemory()
            #expect(await manager.queryImage(forKey: "k").image === lowImage)
        }
    }

    @Test func concurrentQueriesAnswerOnceWithTheFirstImageFound() async throws {
        try await withManager { manager, low, high in
            manager.queryOperationPolicy = .concurrent
            let image = try CacheFixtures.image("sdwebimage/TestImage.jpg")
            low.storeImageToMemory(image, forKey: "k")
            await high.store(nil, imageData: data, forKey: "k", cacheType: .disk)
            // Hold the disk read of the cache asked first, so the memory hit is the first answer.
            let gate = TestGate()
            high.ioQueue.async { gate.block() }
            let calls = CallCounter()
            let found = await withCheckedContinuation { continuation in
                manager.queryImage(forKey: "k", options: [], context: nil, cacheType: .all) { image, _, type in
                    calls.increment()
                    continuation.resume(returning: (image, type))
                }
            }
            #expect(found.0 === image && found.1 == .memory)
            gate.open()
            high.ioQueue.sync {}
            #expect(calls.value == 1)
        }
    }

    @Test func highestOnlyAndLowestOnlyQueryOneCache() async throws {
        try await withManager { manager, low, _ in
            await low.store(image, imageData: data, forKey: "k")
            manager.queryOperationPolicy = .highestOnly
            #expect(await manager.queryImage(forKey: "k").image == nil)
            manager.queryOperationPolicy = .lowestOnly
            #expect(await manager.queryImage(forKey: "k").cacheType == .memory)
        }
    }

    @Test(arguments: [ImageCachesManagerOperationPolicy.serial, .concurrent, .lowestOnly])
    func containsAnswersTheTierThatHoldsIt(policy: ImageCachesManagerOperationPolicy) async throws {
        try await withManager { manager, low, _ in
            manager.containsOperationPolicy = policy
            await low.store(image, imageData: data, forKey: "k", cacheType: .disk)
            #expect(await manager.containsImage(forKey: "k") == .disk)
            #expect(await manager.containsImage(forKey: "other") == .none)
        }
    }

    @Test func removeAndClearReachEveryCache() async throws {
        try await withManager { manager, low, high in
            for cache in [low, high] {
                await cache.store(image, imageData: data, forKey: "a")
                await cache.store(image, imageData: data, forKey: "b")
            }
            await manager.removeImage(forKey: "a")
            for cache in [low, high] { #expect(await cache.containsImage(forKey: "a") == .none) }
            manager.clearOperationPolicy = .serial
            await manager.clear(with: .all)
            for cache in [low, high] {
                #expect(await cache.containsImage(forKey: "b") == .none)
                #expect(cache.totalDiskCount() == 0)
            }
        }
    }

    @Test func aCancelledQueryCallsBackOnceWithNothing() async throws {
        try await withManager { manager, low, _ in
            await low.store(nil, imageData: data, forKey: "k")
            let gate = TestGate()
            low.ioQueue.async { gate.block() }
            let calls = CallCounter()
            let operation = try #require(manager.queryImage(
                forKey: "k", options: [], context: nil, cacheType: .all
            ) { image, _, _ in
                #expect(image == nil)
                calls.increment()
            })
            operation.cancel()
            gate.open()
            low.ioQueue.sync {}
            #expect(calls.value == 1)
        }
    }

    @Test func removeCacheTakesOutThatInstance() async throws {
        try await withManager { manager, low, high in
            manager.removeCache(low)
            #expect(manager.caches.count == 1)
            let remaining = try #require(manager.caches.first as? ImageCache)
            #expect(remaining === high)
        }
    }
}
