import Foundation
import Glibc
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite("Caching: ImageCache", .offThePool)
struct ImageCacheTests {
    private func withImageCache(
        config: ImageCacheConfig = ImageCacheConfig(), _ body: (ImageCache) async throws -> Void
    ) async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        try await body(scratch.imageCache(config: config))
    }

    @Test func storeThenQueryFromMemoryThenFromDisk() async throws {
        try await withImageCache { cache in
            let data = try TestImages.data("sdwebimage/TestImage.png")
            let image = try CacheFixtures.image("sdwebimage/TestImage.png")
            await cache.store(image, imageData: data, forKey: "k")

            let fromMemory = await cache.queryImage(forKey: "k")
            #expect(fromMemory.cacheType == .memory)
            #expect(fromMemory.image === image)

            cache.clearMemory()
            let fromDisk = await cache.queryImage(forKey: "k")
            #expect(fromDisk.cacheType == .disk)
            #expect(fromDisk.data == data)
            let decoded = try #require(fromDisk.image)
            #expect(try CacheFixtures.pixels(of: decoded) == CacheFixtures.pixels(of: image))
            // The disk hit is now in memory.
            #expect(cache.imageFromMemoryCache(forKey: "k") === decoded)
        }
    }

    @Test func aDiskHitIsDecodedOffTheCallersThread() async throws {
        try await withImageCache { cache in
            await cache.store(nil, imageData: try TestImages.data("sdwebimage/TestImage.png"), forKey: "k")
            let caller = pthread_self()
            let (decodedOnCaller, type) = await withCheckedContinuation { continuation in
                cache.queryCacheOperation(forKey: "k") { image, _, type in
                    continuation.resume(returning: (pthread_equal(pthread_self(), caller) != 0, image == nil ? .none : type))
                }
            }
            #expect(type == .disk)
            #expect(!decodedOnCaller)
        }
    }

    @Test func memoryStoreIsImmediateAndDiskStoreCompletesAfterTheWrite() async throws {
        try await withImageCache { cache in
            let data = try TestImages.data("sdwebimage/TestImage.jpg")
            let image = try CacheFixtures.image("sdwebimage/TestImage.jpg")
            await withCheckedContinuation { continuation in
                cache.store(image, imageData: data, forKey: "k") {
                    #expect(FileManager.default.contents(atPath: cache.cachePath(forKey: "k") ?? "") == data)
                    continuation.resume()
                }
                #expect(cache.imageFromMemoryCache(forKey: "k") === image)
            }
        }
    }

    @Test func synchronousCallsInsideACompletionDoNotDeadlock() async throws {
        try await withImageCache { cache in
            let data = try TestImages.data("sdwebimage/TestImage.jpg")
            let found = await withCheckedContinuation { continuation in
                cache.store(nil, imageData: data, forKey: "k") {
                    continuation.resume(returning: (cache.diskImageData(forKey: "k"), cache.imageFromDiskCache(forKey: "k")))
                }
            }
            #expect(found.0 == data)
            #expect(found.1 != nil)
        }
    }

    @Test func toDiskFalseLeavesTheDiskEmpty() async throws {
        try await withImageCache { cache in
            let image = try CacheFixtures.image("sdwebimage/TestImage.png")
            await withCheckedContinuation { continuation in
                cache.store(image, forKey: "k", toDisk: false) { continuation.resume() }
            }
            await cache.store(image, imageData: nil, forKey: "m", cacheType: .memory)
            #expect(cache.imageFromMemoryCache(forKey: "k") === image)
            #expect(cache.totalDiskCount() == 0)
            #expect(!cache.diskImageDataExists(withKey: "k"))
        }
    }

    @Test func removingFromOneTierLeavesTheOther() async throws {
        try await withImageCache { cache in
            let data = try TestImages.data("sdwebimage/TestImage.png")
            let image = try CacheFixtures.image("sdwebimage/TestImage.png")
            await cache.store(image, imageData: data, forKey: "a")
            await cache.store(image, imageData: data, forKey: "b")

            await cache.removeImage(forKey: "a", cacheType: .memory)
            #expect(cache.imageFromMemoryCache(forKey: "a") == nil)
            #expect(cache.diskImageDataExists(withKey: "a"))
            #expect(await cache.containsImage(forKey: "a") == .disk)

            await withCheckedContinuation { continuation in
                cache.removeImage(forKey: "b", fromMemory: false, fromDisk: true) { continuation.resume() }
            }
            #expect(cache.imageFromMemoryCache(forKey: "b") === image)
            #expect(!cache.diskImageDataExists(withKey: "b"))
            #expect(await cache.containsImage(forKey: "b") == .memory)
            #expect(await cache.containsImage(forKey: "b", cacheType: .disk) == .none)
        }
    }

    @Test func sizesAgreeWithTheFilesAndClearDiskKeepsTheFolder() async throws {
        try await withImageCache { cache in
            let names = ["sdwebimage/TestImage.png", "sdwebimage/TestImage.jpg", "sdwebimage/TestImage.gif"]
            for name in names { await cache.store(nil, imageData: try TestImages.data(name), forKey: name) }
            let files = ScratchFolder.entryNames(in: cache.diskCachePath)
            let bytes = try files.reduce(0) { total, file in
                total + (try #require(FileManager.default.attributesOfItem(atPath: cache.diskCachePath + "/" + file)[.size] as? Int))
            }
            #expect(files.count == 3)
            #expect(cache.totalDiskCount() == 3)
            #expect(cache.totalDiskSize() == bytes)
            let calculated = await withCheckedContinuation { continuation in
                cache.calculateSize { continuation.resume(returning: ($0, $1)) }
            }
            #expect(calculated == (3, bytes))

            await withCheckedContinuation { continuation in cache.clearDisk { continuation.resume() } }
            #expect(ScratchFolder.allNames(in: cache.diskCachePath).isEmpty)
            #expect(FileManager.default.fileExists(atPath: cache.diskCachePath))
            #expect(cache.totalDiskCount() == 0)
        }
    }

    @Test func deleteOldFilesRemovesAnEntryOlderThanMaxDiskAge() async throws {
        // An hour: a test held up by the whole suite's load (53 s once in CI, with 30 s here) must
        // not age the fresh entry; the old one is aged past it by hand.
        var config = ImageCacheConfig()
        config.maxDiskAge = 3600
        try await withImageCache(config: config) { cache in
            let data = try TestImages.data("sdwebimage/TestImage.jpg")
            await cache.store(nil, imageData: data, forKey: "old")
            await cache.store(nil, imageData: data, forKey: "fresh")
            CacheFixtures.age(try #require(cache.cachePath(forKey: "old")), by: 2 * config.maxDiskAge)
            await withCheckedContinuation { continuation in cache.deleteOldFiles { continuation.resume() } }
            #expect(!cache.diskImageDataExists(withKey: "old"))
            #expect(cache.diskImageDataExists(withKey: "fresh"))
        }
    }

    @Test func storingWithoutDataEncodesPNGForAlphaJPEGOtherwiseAndKeepsAnimations() async throws {
        try await withImageCache { cache in
            let withAlpha = try CacheFixtures.image("sdwebimage/TestImage.png")
            let opaque = try CacheFixtures.image("sdwebimage/TestImage.jpg")
            let animated = try CacheFixtures.image("sdwebimage/TestImage.gif")
            #expect(withAlpha.hasAlpha && !opaque.hasAlpha && animated.isAnimated)
            await cache.store(withAlpha, imageData: nil, forKey: "alpha")
            await cache.store(opaque, imageData: nil, forKey: "opaque")
            await cache.store(animated, imageData: nil, forKey: "animated")
            #expect(ImageFormat(sniffing: try #require(cache.diskImageData(forKey: "alpha"))) == .png)
            #expect(ImageFormat(sniffing: try #require(cache.diskImageData(forKey: "opaque"))) == .jpeg)
            let animatedData = try #require(cache.diskImageData(forKey: "animated"))
            #expect(ImageFormat(sniffing: animatedData) == .gif)
            cache.clearMemory()
            let reloaded = try #require(await cache.queryImage(forKey: "animated").image)
            #expect(reloaded.frameCount == animated.frameCount)
        }
    }

    @Test func queryMemoryDataAlsoReadsTheDiskData() async throws {
        try await withImageCache { cache in
            let data = try TestImages.data("sdwebimage/TestImage.png")
            await cache.store(try CacheFixtures.image("sdwebimage/TestImage.png"), imageData: data, forKey: "k")
            let plain = await cache.queryImage(forKey: "k")
            #expect(plain.cacheType == .memory && plain.data == nil)
            let withData = await cache.queryImage(forKey: "k", options: .queryMemoryData)
            #expect(withData.cacheType == .memory && withData.data == data)

            let synchronous = CallCounter()
            cache.queryCacheOperation(forKey: "k", options: [.queryMemoryData, .queryMemoryDataSync]) { image, data, type in
                #expect(image != nil && data != nil && type == .memory)
                synchronous.increment()
            }
            #expect(synchronous.value == 1)
        }
    }

    @Test func queryDiskDataSyncAnswersBeforeReturning() async throws {
        try await withImageCache { cache in
            await cache.store(nil, imageData: try TestImages.data("sdwebimage/TestImage.jpg"), forKey: "k")
            let answered = CallCounter()
            cache.queryCacheOperation(forKey: "k", options: .queryDiskDataSync) { image, _, type in
                #expect(image != nil && type == .disk)
                answered.increment()
            }
            #expect(answered.value == 1)
        }
    }

    @Test func decodeFirstFrameOnlySkipsAnAnimatedMemoryImageAndLeavesItThere() async throws {
        try await withImageCache { cache in
            let data = try TestImages.data("sdwebimage/TestImage.gif")
            let animated = try CacheFixtures.image("sdwebimage/TestImage.gif")
            await cache.store(animated, imageData: data, forKey: "gif")
            let firstFrame = await cache.queryImage(forKey: "gif", options: .decodeFirstFrameOnly)
            #expect(firstFrame.cacheType == .disk)
            #expect(firstFrame.image?.isAnimated == false)
            // The first frame does not replace the animation in memory.
            #expect(cache.imageFromMemoryCache(forKey: "gif") === animated)
        }
    }

    @Test func aThumbnailDecodedFromDiskIsNotKeptInMemoryUnderTheOriginalsKey() async throws {
        try await withImageCache { cache in
            let png = try TestImages.data("sdwebimage/TestImage.png")
            let full = try CacheFixtures.image("sdwebimage/TestImage.png")
            await cache.store(nil, imageData: png, forKey: "png")
            var context = WebImageContext()
            context.imageThumbnailPixelSize = CGSize(width: 8, height: 8)
            let thumbnail = try #require(await cache.queryImage(forKey: "png", context: context).image)
            #expect(thumbnail.pixelWidth <= 8 && thumbnail.pixelHeight <= 8)
            #expect(cache.imageFromMemoryCache(forKey: "png") == nil)
            let original = await cache.queryImage(forKey: "png")
            #expect(original.cacheType == .disk && original.image?.pixelWidth == full.pixelWidth)

            // Nor when the context stores to disk only.
            cache.clearMemory()
            var diskOnly = WebImageContext()
            diskOnly.storeCacheType = .disk
            #expect(await cache.queryImage(forKey: "png", context: diskOnly).cacheType == .disk)
            #expect(cache.imageFromMemoryCache(forKey: "png") == nil)
        }
    }

    @Test func matchAnimatedImageClassSkipsAMemoryImageOfAnotherClass() async throws {
        try await withImageCache { cache in
            let data = try TestImages.data("sdwebimage/TestImage.gif")
            let image = try CacheFixtures.image("sdwebimage/TestImage.gif")
            await cache.store(image, imageData: data, forKey: "gif")
            var context = WebImageContext()
            context.animatedImageClass = OtherAnimatedImage.self
            let other = await cache.queryImage(forKey: "gif", options: .matchAnimatedImageClass, context: context)
            #expect(other.cacheType == .disk)
            let provider = try #require(image.animatedImageProvider)
            context.animatedImageClass = type(of: provider)
            let same = await cache.queryImage(forKey: "gif", options: .matchAnimatedImageClass, context: context)
            #expect(same.cacheType == .memory)
        }
    }

    @Test func aCancelledQueryCallsBackOnceWithNothing() async throws {
        try await withImageCache { cache in
            await cache.store(nil, imageData: try TestImages.data("sdwebimage/TestImage.png"), forKey: "k")
            // Hold the I/O queue so the disk read cannot finish before the cancel.
            let gate = TestGate()
            cache.ioQueue.async { gate.block() }
            let calls = CallCounter()
            let found = CallCounter()
            let operation = try #require(cache.queryCacheOperation(forKey: "k") { image, data, type in
                if image != nil || data != nil || type != .none { found.increment() }
                calls.increment()
            })
            operation.cancel()
            operation.cancel()
            #expect(operation.isCancelled)
            gate.open()
            cache.ioQueue.sync {}
            #expect(calls.value == 1)
            #expect(found.value == 0)
        }
    }

    @Test func aCancelledQueryCallsBackOnceOnTheCallbackQueue() async throws {
        try await withImageCache { cache in
            await cache.store(nil, imageData: try TestImages.data("sdwebimage/TestImage.png"), forKey: "k")
            let callbackQueue = DispatchQueue(label: "test.callback")
            let onCallbackQueue = DispatchSpecificKey<Bool>()
            callbackQueue.setSpecific(key: onCallbackQueue, value: true)
            var context = WebImageContext()
            context.callbackQueue = callbackQueue
            let gate = TestGate()
            cache.ioQueue.async { gate.block() }
            let calls = CallCounter()
            let onQueue = CallCounter()
            let operation = try #require(cache.queryCacheOperation(forKey: "k", context: context) { image, _, type in
                #expect(image == nil && type == .none)
                if DispatchQueue.getSpecific(key: onCallbackQueue) == true { onQueue.increment() }
                calls.increment()
            })
            operation.cancel()
            gate.open()
            cache.ioQueue.sync {}
            callbackQueue.sync {}
            #expect(calls.value == 1)
            #expect(onQueue.value == 1)
        }
    }

    @Test func cancellingAfterTheAnswerCallsNothingMore() async throws {
        try await withImageCache { cache in
            await cache.store(nil, imageData: try TestImages.data("sdwebimage/TestImage.png"), forKey: "k")
            let calls = CallCounter()
            let operation = try #require(cache.queryCacheOperation(forKey: "k", options: .queryDiskDataSync) { image, _, _ in
                #expect(image != nil)
                calls.increment()
            })
            operation.cancel()
            #expect(calls.value == 1)
        }
    }

    @Test func extendedDataGoesWithItsEntryThroughTheImageCache() async throws {
        try await withImageCache { cache in
            let data = try TestImages.data("sdwebimage/TestImage.png")
            let meta = Data("etag: 1".utf8)
            for key in ["removed", "cleared"] {
                await cache.store(nil, imageData: data, forKey: key)
                try cache.diskCache.setExtendedData(meta, forKey: key)
                #expect(cache.diskCache.extendedData(forKey: key) == meta)
            }
            await cache.removeImage(forKey: "removed")
            #expect(cache.diskCache.extendedData(forKey: "removed") == nil)
            #expect(cache.diskCache.extendedData(forKey: "cleared") == meta)
            await cache.clear(with: .disk)
            #expect(cache.diskCache.extendedData(forKey: "cleared") == nil)
            #expect(ScratchFolder.allNames(in: cache.diskCachePath).isEmpty)
        }
    }

    @Test func cancellingTheTaskCancelsTheQuery() async throws {
        try await withImageCache { cache in
            await cache.store(nil, imageData: try TestImages.data("sdwebimage/TestImage.png"), forKey: "k")
            let gate = TestGate()
            cache.ioQueue.async { gate.block() }
            let task = Task { await cache.queryImage(forKey: "k") }
            task.cancel()
            let result = await task.value
            gate.open()
            #expect(result.image == nil && result.cacheType == .none)
        }
    }

    @Test(arguments: ["https://x.test/a/image.png?size=big", "https://x.test/a/image", "image.png", "image", ""])
    func thumbnailAndTransformerKeysNeverOverwriteTheOriginal(key: String) async throws {
        try await withImageCache { cache in
            let original = try TestImages.data("sdwebimage/TestImage.png")
            let originalImage = try CacheFixtures.image("sdwebimage/TestImage.png")
            await cache.store(originalImage, imageData: original, forKey: key)
            let thumbnail = thumbnailedKey(forKey: key, thumbnailPixelSize: CGSize(width: 50, height: 50), preserveAspectRatio: true)
            let transformed = transformedKey(forKey: key, transformerKey: "T")
            #expect(Set([key, thumbnail, transformed]).count == 3)
            #expect(Set([key, thumbnail, transformed].compactMap(cache.cachePath(forKey:))).count == 3)
            let other = try CacheFixtures.image("sdwebimage/TestImage.jpg")
            await cache.store(other, imageData: nil, forKey: thumbnail)
            await cache.store(other, imageData: nil, forKey: transformed)
            // The original is untouched in both tiers.
            #expect(cache.imageFromMemoryCache(forKey: key) === originalImage)
            #expect(cache.diskImageData(forKey: key) == original)
            #expect(cache.totalDiskCount() == 3)
            cache.clearMemory()
            let fromDisk = try #require(await cache.queryImage(forKey: key).image)
            #expect(try CacheFixtures.pixels(of: fromDisk) == CacheFixtures.pixels(of: originalImage))
        }
    }

    @Test func transformedKeysFollowSDWebImagesRules() {
        #expect(transformedKey(forKey: "image.png", transformerKey: "T") == "image-T.png")
        #expect(transformedKey(forKey: "image", transformerKey: "T") == "image-T")
        #expect(transformedKey(forKey: "http://foo/image.png?foo=bar#mark", transformerKey: "T") == "http://foo/image-T.png?foo=bar#mark")
    }

    @Test func additionalFoldersAreSearchedAfterTheMainOne() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let extra = scratch.path + "/extra"
        try FileManager.default.createDirectory(atPath: extra, withIntermediateDirectories: true)
        let jpeg = try TestImages.data("sdwebimage/TestImage.jpg")
        let png = try TestImages.data("sdwebimage/TestImage.png")
        try jpeg.write(to: URL(fileURLWithPath: extra + "/shared.jpg"))
        try jpeg.write(to: URL(fileURLWithPath: extra + "/both.jpg"))
        let cache = scratch.imageCache()
        cache.additionalCachePathBlock = { key in extra + "/" + key + ".jpg" }
        await cache.store(nil, imageData: png, forKey: "both")

        let fromExtra = await cache.queryImage(forKey: "shared")
        #expect(fromExtra.cacheType == .disk && fromExtra.data == jpeg)
        #expect(await cache.queryImage(forKey: "both").data == png)
        #expect(cache.diskImageDataExists(withKey: "shared"))
    }

    @Test func namespacesAreSeparateFoldersUnderTheCacheDirectory() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let first = scratch.imageCache(namespace: "first")
        let second = scratch.imageCache(namespace: "second")
        #expect(first.diskCachePath == scratch.path + "/first")
        #expect(second.diskCachePath == scratch.path + "/second")
        #expect(scratch.imageCache(namespace: "../x").diskCachePath == scratch.path + "/.._x")
        // C calls would cut a path at a NUL.
        #expect(scratch.imageCache(namespace: "a\u{0}b").diskCachePath == scratch.path + "/a_b")
        #expect(ImageCache.defaultDiskCacheDirectory.hasSuffix("/swift-webimage"))
    }

    @Test func theDefaultDirectoryIsUnderXDGCacheHomeElseTheHomeCacheFolder() {
        let home = "/home/someone"
        let directory = { (environment: [String: String]) in
            ImageCache.defaultDiskCacheDirectory(environment: environment, home: home)
        }
        #expect(directory(["XDG_CACHE_HOME": "/var/cache/app"]) == "/var/cache/app/swift-webimage")
        #expect(directory([:]) == "/home/someone/.cache/swift-webimage")
        // Relative or empty: ignored, as the XDG spec says.
        #expect(directory(["XDG_CACHE_HOME": "relative/cache"]) == "/home/someone/.cache/swift-webimage")
        #expect(directory(["XDG_CACHE_HOME": ""]) == "/home/someone/.cache/swift-webimage")
    }
}

/// An animated image provider type no cached image has.
private struct OtherAnimatedImage: AnimatedImageProvider {
    var animatedImageData: Data? { nil }
    var animatedImageFrameCount: Int { 0 }
    var animatedImageLoopCount: Int { 0 }
    func animatedImageFrame(at index: Int) -> Image? { nil }
    func animatedImageDuration(at index: Int) -> TimeInterval { 0 }
}
