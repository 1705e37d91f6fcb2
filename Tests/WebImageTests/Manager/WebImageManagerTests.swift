import Foundation
import ImageEngine
import Synchronization
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

/// A manager over a fresh cache folder and a downloader of its own, for one test.
private struct ManagerFixture {
    let scratch: ScratchFolder
    let cache: ImageCache
    let downloader: ImageDownloader
    let manager: WebImageManager

    init(configure: (inout ImageDownloaderConfig) -> Void = { _ in }) throws {
        scratch = try ScratchFolder()
        cache = scratch.imageCache()
        downloader = makeDownloader(configure)
        manager = WebImageManager(cache: cache, loader: ImageLoadersManager(loaders: [downloader, FileImageLoader(), DataURLImageLoader()]))
    }

    func remove() { scratch.remove() }
}

/// Every completion of one manager load.
private final class LoadRecorder: Sendable {
    struct Call: @unchecked Sendable {
        // Read on the test's task after the load: the values are immutable once recorded.
        let image: WebImage.Image?
        let error: (any Error)?
        let cacheType: ImageCacheType
        let finished: Bool
    }

    private let calls = Locked<[Call]>([])
    private let waiters = Locked<[(Int, CheckedContinuation<Void, Never>)]>([])

    var completion: WebImageCompletion {
        { [self] image, _, error, cacheType, finished, _ in
            let count = calls.withLock { calls in
                calls.append(Call(image: image, error: error, cacheType: cacheType, finished: finished))
                return calls.count
            }
            let ready = waiters.withLock { waiters in
                let ready = waiters.filter { $0.0 <= count }
                waiters.removeAll { $0.0 <= count }
                return ready
            }
            for (_, continuation) in ready { continuation.resume() }
        }
    }

    var recorded: [Call] { calls.withLock { $0 } }

    /// Waits until `count` completions arrived.
    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            let now = calls.withLock { $0.count }
            if now >= count {
                continuation.resume()
            } else {
                waiters.withLock { $0.append((count, continuation)) }
            }
        }
    }
}

@Suite("Manager: load flow", .offThePool) struct WebImageManagerTests {
    @Test func firstLoadDownloadsThenMemoryThenDisk() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/photos/rocket.jpg")
            let first = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
            #expect(first.cacheType == .none && first.image.pixelWidth == 640 && first.url == url)
            let second = try await fixture.manager.loadImage(with: url)
            #expect(second.cacheType == .memory)
            fixture.cache.clearMemory()
            let third = try await fixture.manager.loadImage(with: url)
            #expect(third.cacheType == .disk && third.image.pixelWidth == 640)
            #expect(server.requestCount("/images/photos/rocket.jpg") == 1)

            let again = try await fixture.manager.loadImage(with: url, options: .fromLoaderOnly)
            #expect(again.cacheType == .none)
            #expect(server.requestCount("/images/photos/rocket.jpg") == 2)
        }
    }

    @Test func fromCacheOnlyOnAnEmptyCacheGivesNoImageAndNoRequest() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/photos/rocket.jpg")
            await #expect(throws: WebImageError.notInCache) { try await fixture.manager.loadImage(with: url, options: .fromCacheOnly) }
            let recorder = LoadRecorder()
            fixture.manager.loadImage(with: url, options: .fromCacheOnly, completed: recorder.completion)
            await recorder.wait(for: 1)
            let call = try #require(recorder.recorded.first)
            #expect(call.image == nil && call.error == nil && call.cacheType == .none && call.finished)
            #expect(server.requestCount("/images/photos/rocket.jpg") == 0)
        }
    }

    @Test func anInvalidURLFailsAtOnce() async {
        let manager = WebImageManager(cache: ImageCache.shared, loader: ImageLoadersManager.shared)
        await #expect(throws: WebImageError.invalidURL) { try await manager.loadImage(with: nil) }
        await #expect(throws: WebImageError.invalidURL) { try await manager.loadImage(with: URL(string: "")) }
        #expect(!manager.isRunning)
    }

    @Test func aPermanentFailureIsBlackListedUntilRetried() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/status/404")
            await #expect(throws: WebImageError.invalidDownloadStatusCode(statusCode: 404, response: nil)) {
                try await fixture.manager.loadImage(with: url)
            }
            #expect(fixture.manager.isFailedURL(url))
            await #expect(throws: WebImageError.blackListed) { try await fixture.manager.loadImage(with: url) }
            #expect(server.requestCount("/status/404") == 1)
            await #expect(throws: WebImageError.invalidDownloadStatusCode(statusCode: 404, response: nil)) {
                try await fixture.manager.loadImage(with: url, options: .retryFailed)
            }
            #expect(server.requestCount("/status/404") == 2)
            fixture.manager.removeAllFailedURLs()
            #expect(!fixture.manager.isFailedURL(url))
        }
    }

    @Test func transientFailuresAreNotBlackListed() async throws {
        let fixture = try ManagerFixture { $0.retryPolicy = .none; $0.downloadTimeout = 0.3 }
        defer { fixture.remove() }
        try await withOrigin { server in
            for path in ["/status/503", "/images/photos/rocket.jpg?delay=3000"] {
                _ = try? await fixture.manager.loadImage(with: server.url(path))
                #expect(!fixture.manager.isFailedURL(server.url(path)), "\(path)")
            }
            fixture.manager.shouldBlockFailedURL = { _, _ in true }
            _ = try? await fixture.manager.loadImage(with: server.url("/status/503"))
            #expect(fixture.manager.isFailedURL(server.url("/status/503")), "the hook decides over the loader")
        }
    }

    @Test func transformedResultsAndOriginalsAreCachedUnderTheirOwnKeys() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/sdwebimage/TestImage.png")
            var flip = WebImageContext()
            flip.imageTransformer = FlippingTransformer(horizontal: true, vertical: false)
            let flipped = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: flip)
            #expect(flipped.cacheType == .none && flipped.data == nil)
            let original = try TestImages.decoded(try TestImages.data("sdwebimage/TestImage.png"))
            #expect(flipped.image.pixel(x: 0, y: 10) == original.pixel(x: 299, y: 10))

            let transformedKey = fixture.manager.cacheKey(for: url, context: flip)
            #expect(transformedKey.contains("-") && transformedKey != url.absoluteString)
            #expect(fixture.cache.imageFromMemoryCache(forKey: transformedKey) != nil)
            #expect(fixture.cache.diskImageDataExists(withKey: url.absoluteString), "the original's bytes, on disk")
            #expect(fixture.cache.imageFromMemoryCache(forKey: url.absoluteString) == nil, "original stored to disk only")

            #expect(try await fixture.manager.loadImage(with: url, context: flip).cacheType == .memory)

            var blur = WebImageContext()
            blur.imageTransformer = BlurTransformer(radius: 2)
            let blurred = try await fixture.manager.loadImage(with: url, context: blur)
            #expect(blurred.cacheType == .disk && blurred.image.pixelWidth == 300)
            #expect(server.requestCount("/images/sdwebimage/TestImage.png") == 1, "the second transformer used the original from disk")
        }
    }

    @Test func threeThumbnailSizesAtOnceShareOneRequest() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/photos/rocket.jpg?parts=3&chunkDelay=50")
            let widths = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for size in [50, 100, 200] {
                    group.addTask {
                        var context = WebImageContext()
                        context.imageThumbnailPixelSize = CGSize(width: size, height: size)
                        return (size, try await fixture.manager.loadImage(with: url, context: context).image.pixelWidth)
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
            }
            #expect(widths == [50: 50, 100: 100, 200: 200])
            #expect(server.requestCount("/images/photos/rocket.jpg") == 1)
        }
    }

    @Test func anAt2xURLHasScale2DownloadedAndReadBackFromDisk() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let path = "/scaled/TestImage@2x.png"
            let png = try TestImages.data("sdwebimage/TestImage.png")
            server.route(path) { _ in .content(Array(png), type: "image/png") }
            let url = server.url(path)
            let downloaded = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
            #expect(downloaded.cacheType == .none)
            #expect(downloaded.image.scale == 2 && downloaded.image.size == CGSize(width: 150, height: 150))
            fixture.cache.clearMemory()
            let fromDisk = try await fixture.manager.loadImage(with: url)
            #expect(fromDisk.cacheType == .disk && fromDisk.image.pixelWidth == 300)
            #expect(fromDisk.image.scale == 2 && fromDisk.image.size == CGSize(width: 150, height: 150))
        }
    }

    @Test func refreshCachedCompletesOnceOn304AndTwiceWithANewImage() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let path = "/images/sdwebimage/TestImage.jpg"
            let url = server.url(path)
            _ = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
            // The validators are kept beside the disk entry.
            let kept = fixture.cache.diskCache.extendedData(forKey: url.absoluteString).flatMap(HTTPValidators.init(extendedData:))
            #expect(kept?.entityTag != nil)

            let unchanged = LoadRecorder()
            fixture.manager.loadImage(with: url, options: .refreshCached, completed: unchanged.completion)
            #expect(await server.wait { ($0.requests[path] ?? 0) == 2 })
            #expect(server.statistics.requestLog[path]?.last?.header("If-None-Match") == kept?.entityTag)
            await unchanged.wait(for: 1)
            // The 304 ends the load without a second completion.
            #expect(await eventually(within: TestAllowance.eventWait) { !fixture.manager.isRunning })
            #expect(unchanged.recorded.count == 1 && unchanged.recorded.first?.cacheType == .memory)

            // The server now has another image under that URL.
            let png = try TestImages.data("sdwebimage/TestImage.png")
            server.route(path) { _ in .content(Array(png), type: "image/png") }
            let changed = LoadRecorder()
            fixture.manager.loadImage(with: url, options: .refreshCached, completed: changed.completion)
            await changed.wait(for: 2)
            #expect(changed.recorded.map(\.image?.pixelWidth) == [80, 300])
            #expect(changed.recorded.map(\.cacheType) == [.memory, .none])
        }
    }

    @Test func preloadAllFramesDecodesEveryFrameBeforeCompleting() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/sdwebimage/TestImage.gif")
            let preloaded = try await fixture.manager.loadImage(with: url, options: [.preloadAllFrames, .waitStoreCache])
            let onDemand = try await fixture.manager.loadImage(with: url, options: .fromLoaderOnly)
            #expect(preloaded.image.frameCount > 2 && preloaded.image.frameCount == onDemand.image.frameCount)
            // Preloaded frames are kept: the same decoded image each time; on demand, a new decode.
            let frame = try #require(preloaded.image.frame(at: 2))
            #expect(frame.isDecoded && preloaded.image.frame(at: 2) === frame)
            #expect(onDemand.image.frame(at: 2) !== onDemand.image.frame(at: 2))
            // The kept frames count in the cost the memory cache records: each frame's bitmap.
            let bitmap = preloaded.image.pixelWidth * preloaded.image.pixelHeight * 4
            #expect((1..<preloaded.image.frameCount).allSatisfy { preloaded.image.frame(at: $0)?.memoryCost == bitmap })
            #expect(preloaded.image.memoryCost == onDemand.image.memoryCost + preloaded.image.frameCount * bitmap)
            // A disk hit preloads too.
            fixture.cache.clearMemory()
            let fromDisk = try await fixture.manager.loadImage(with: url, options: .preloadAllFrames)
            #expect(fromDisk.cacheType == .disk && fromDisk.image.frame(at: 2) === fromDisk.image.frame(at: 2))
        }
    }

    @Test func refreshCachedRevalidatesThroughACachesManager() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        try await expectRevalidation(through: ImageCachesManager(caches: [scratch.imageCache()]))
    }

    @Test func refreshCachedRevalidatesThroughACustomCache() async throws {
        try await expectRevalidation(through: ValidatorKeepingCache())
    }

    /// A load through `cache` keeps the response's validators there; a `.refreshCached` load
    /// sends them, gets a 304 and completes once, with the cached image.
    private func expectRevalidation(through cache: any ImageCacheProtocol) async throws {
        let manager = WebImageManager(cache: cache, loader: ImageLoadersManager(loaders: [makeDownloader { _ in }]))
        try await withOrigin { server in
            let path = "/images/sdwebimage/TestImage.jpg"
            let url = server.url(path)
            _ = try await manager.loadImage(with: url, options: .waitStoreCache)
            let kept = await cache.queryValidators(forKey: url.absoluteString)
            #expect(kept?.entityTag != nil)

            let refresh = LoadRecorder()
            manager.loadImage(with: url, options: .refreshCached, completed: refresh.completion)
            #expect(await server.wait { $0.notModifiedResponses[path] == 1 })
            #expect(server.statistics.requestLog[path]?.last?.header("If-None-Match") == kept?.entityTag)
            #expect(await eventually(within: TestAllowance.eventWait) { !manager.isRunning })
            #expect(refresh.recorded.count == 1)
            #expect(refresh.recorded.first?.image?.pixelWidth == 80 && refresh.recorded.first?.cacheType != ImageCacheType.none)
        }
    }

    @Test func aCancelledTaskNeverGetsAnImageAndTheConnectionCloses() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let path = "/images/photos/rocket.jpg"
            let task = Task { try await fixture.manager.loadImage(with: server.url(path + "?chunk=1000&hold=1")) }
            #expect(await server.wait { ($0.requests[path] ?? 0) == 1 })
            task.cancel()
            await #expect(throws: WebImageError.cancelled) { try await task.value }
            #expect(await server.wait { $0.abortedResponses[path] == 1 })
            #expect(!fixture.manager.isFailedURL(server.url(path + "?chunk=1000&hold=1")))
        }
    }

    @Test func cancellingTheOperationDeliversCancelledOnce() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let recorder = LoadRecorder()
            let operation = fixture.manager.loadImage(with: server.url("/images/photos/rocket.jpg?delay=300"), completed: recorder.completion)
            #expect(fixture.manager.isRunning)
            operation.cancel()
            operation.cancel()
            await recorder.wait(for: 1)
            #expect(!fixture.manager.isRunning)
            // Give a late image every chance to arrive: a whole other load of the same file.
            _ = try await fixture.manager.loadImage(with: server.url("/images/photos/rocket.jpg?other=1"))
            #expect(recorder.recorded.count == 1 && (recorder.recorded.first?.error as? WebImageError) == .cancelled)
        }
    }

    @Test func theCacheKeyFilterDropsSignedQueryParameters() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        fixture.manager.cacheKeyFilter = CacheKeyFilter(removingQueryItems: ["X-Amz-Signature", "Expires"])
        try await withOrigin { server in
            let first = server.url("/images/photos/rocket.jpg?id=7&X-Amz-Signature=aaa&Expires=1")
            let second = server.url("/images/photos/rocket.jpg?id=7&X-Amz-Signature=bbb&Expires=2")
            #expect(fixture.manager.cacheKey(for: first) == server.url("/images/photos/rocket.jpg?id=7").absoluteString)
            _ = try await fixture.manager.loadImage(with: first)
            #expect(try await fixture.manager.loadImage(with: second).cacheType == .memory)
            #expect(server.requestCount("/images/photos/rocket.jpg") == 1)
        }
    }

    @Test func shouldDownloadImageCanRefuseTheNetwork() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        fixture.manager.shouldDownloadImage = { _ in false }
        try await withOrigin { server in
            await #expect(throws: WebImageError.notInCache) { try await fixture.manager.loadImage(with: server.url("/images/photos/rocket.jpg")) }
            #expect(server.statistics.totalRequests == 0)
        }
    }

    @Test func cacheKeysFollowSDWebImagesRules() throws {
        let manager = WebImageManager(cache: ImageCache.shared, loader: ImageLoadersManager.shared)
        let url = try #require(URL(string: "http://foo/image.png?foo=bar#mark"))
        var context = WebImageContext()
        context.imageTransformer = FlippingTransformer(horizontal: true, vertical: false)
        let key = manager.cacheKey(for: url, context: context)
        #expect(key.hasPrefix("http://foo/image-") && key.hasSuffix(".png?foo=bar#mark"))
        context.imageTransformer = nil
        context.imageThumbnailPixelSize = CGSize(width: 100, height: 100)
        #expect(manager.cacheKey(for: url, context: context).contains("Thumbnail"))
        #expect(manager.cacheKey(for: url) == url.absoluteString)
        context.imageThumbnailPixelSize = nil
        context.imageDecodeOptions = ImageCoderOptions()
        context.imageDecodeOptions?.decodeThumbnailPixelSize = CGSize(width: 50, height: 50)
        #expect(manager.cacheKey(for: url, context: context).contains("Thumbnail"), "the decode options' thumbnail too")
        context.imageDecodeOptions?.decodeThumbnailPixelSize = .zero
        context.imageDecodeOptions?.decodeToHDR = true
        #expect(manager.cacheKey(for: url, context: context) == "http://foo/image-DecodeToHDR.png?foo=bar#mark")
        context.imageDecodeOptions = nil
        context.imageDecodeToHDR = true
        #expect(manager.cacheKey(for: url, context: context) == "http://foo/image-DecodeToHDR.png?foo=bar#mark")
    }

    private static var hdr: WebImageContext {
        var context = WebImageContext()
        context.imageDecodeToHDR = true
        return context
    }

    @Test func anSDRThenAnHDRLoadOfOneURLKeepTwoEntries() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/sdwebimage/TestHDR.avif")
            let sdr = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
            #expect(sdr.cacheType == .none && sdr.image.bitsPerComponent == 8 && !sdr.image.isHighDynamicRange)
            let hdr = try await fixture.manager.loadImage(with: url, context: Self.hdr)
            #expect(hdr.cacheType == .disk, "the original's bytes on disk, decoded to HDR")
            #expect(hdr.image.bitsPerComponent == 16 && hdr.image.isHighDynamicRange && hdr.image.colorInfo.transfer == .pq)
            #expect(server.requestCount("/images/sdwebimage/TestHDR.avif") == 1)

            let sdrAgain = try await fixture.manager.loadImage(with: url)
            #expect(sdrAgain.cacheType == .memory && sdrAgain.image.bitsPerComponent == 8, "the HDR decode did not replace the SDR entry")
            let hdrAgain = try await fixture.manager.loadImage(with: url, context: Self.hdr)
            #expect(hdrAgain.cacheType == .memory && hdrAgain.image.bitsPerComponent == 16)
        }
    }

    @Test func anHDRThenAnSDRLoadOfOneURLKeepTwoEntries() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/sdwebimage/TestHDR.avif")
            let hdr = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: Self.hdr)
            #expect(hdr.cacheType == .none && hdr.image.bitsPerComponent == 16 && hdr.image.isHighDynamicRange)
            let sdr = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
            #expect(sdr.cacheType == .none && sdr.image.bitsPerComponent == 8, "not the HDR entry")

            let hdrAgain = try await fixture.manager.loadImage(with: url, context: Self.hdr)
            #expect(hdrAgain.cacheType == .memory && hdrAgain.image.bitsPerComponent == 16)
            let sdrAgain = try await fixture.manager.loadImage(with: url)
            #expect(sdrAgain.cacheType == .memory && sdrAgain.image.bitsPerComponent == 8)

            fixture.cache.clearMemory()
            let hdrFromDisk = try await fixture.manager.loadImage(with: url, context: Self.hdr)
            #expect(hdrFromDisk.cacheType == .disk && hdrFromDisk.image.bitsPerComponent == 16 && hdrFromDisk.image.isHighDynamicRange)
            let sdrFromDisk = try await fixture.manager.loadImage(with: url)
            #expect(sdrFromDisk.cacheType == .disk && sdrFromDisk.image.bitsPerComponent == 8)
            #expect(server.requestCount("/images/sdwebimage/TestHDR.avif") == 2)
        }
    }

    @Test func anHDRThumbnailStaysHDROnDisk() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/sdwebimage/TestHDR.avif")
            var context = Self.hdr
            context.imageThumbnailPixelSize = CGSize(width: 300, height: 300)
            let thumbnail = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: context)
            #expect(thumbnail.cacheType == .none && thumbnail.image.pixelWidth == 300 && thumbnail.image.bitsPerComponent == 16)
            fixture.cache.clearMemory()
            let fromDisk = try await fixture.manager.loadImage(with: url, context: context)
            #expect(fromDisk.cacheType == .disk && fromDisk.image.pixelWidth == 300)
            #expect(fromDisk.image.bitsPerComponent == 16 && fromDisk.image.colorInfo.transfer == .pq)
            let sdr = try await fixture.manager.loadImage(with: url)
            #expect(sdr.cacheType == .disk && sdr.image.bitsPerComponent == 8 && sdr.image.pixelWidth == 2048, "the original, from disk")
        }
    }
}

/// Counts its calls: shows whether identical loads share one transform.
private final class CountingTransformer: ImageTransformer {
    let calls = Locked(0)
    var transformerKey: String { "Counting" }

    func transformedImage(with image: WebImage.Image, forKey key: String) -> WebImage.Image? {
        calls.withLock { $0 += 1 }
        return FlippingTransformer(horizontal: true, vertical: false).transformedImage(with: image, forKey: key)
    }
}

@Suite("Manager: work shared between loads", .offThePool) struct ManagerSharingTests {
    @Test func identicalLoadsAtOnceShareTheRequestAndTheTransform() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let manager = WebImageManager(cache: scratch.imageCache(), loader: ImageLoadersManager(loaders: [makeDownloader()]))
        let counter = CountingTransformer()
        let context = { var context = WebImageContext(); context.imageTransformer = counter; return context }()
        try await withOrigin { server async throws in
            let url = server.url("/images/sdwebimage/TestImage.png?delay=100")
            let results = try await withThrowingTaskGroup(of: ImageCacheType.self) { group in
                for _ in 0..<10 { group.addTask { try await manager.loadImage(with: url, context: context).cacheType } }
                return try await group.reduce(into: [ImageCacheType]()) { $0.append($1) }
            }
            #expect(results.count == 10)
            #expect(results.filter { $0 == .none }.count == 1 && results.filter { $0 == .memory }.count == 9, "\(results)")
            #expect(counter.calls.withLock { $0 } == 1)
            #expect(server.requestCount("/images/sdwebimage/TestImage.png") == 1)
        }
    }

    /// Prefetching cycles through 100 URLs while the last ones still load: a repeat that missed
    /// the cache between its download and its store downloaded again (found by the benchmark).
    @Test func aLoadArrivingWhileAnIdenticalOneDecodesWaitsForIt() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let manager = WebImageManager(cache: scratch.imageCache(), loader: ImageLoadersManager(loaders: [makeDownloader()]))
        try await withOrigin { server async throws in
            let distinct = (0..<100).map { server.url("/images/sdwebimage/TestImage.png?n=\($0)") }
            let (finished, _) = await ImagePrefetcher(imageManager: manager).prefetchURLs((0..<1000).map { distinct[$0 % 100] })
            #expect(finished == 1000)
            #expect(server.requestCount("/images/sdwebimage/TestImage.png") == 100)
        }
    }

    @Test func aFailedLeaderLeavesItsFollowersBlackListedWithoutAnotherRequest() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let manager = WebImageManager(cache: scratch.imageCache(), loader: ImageLoadersManager(loaders: [makeDownloader()]))
        try await withOrigin { server async throws in
            let url = server.url("/status/404?delay=100")
            let errors = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        do {
                            _ = try await manager.loadImage(with: url)
                            return 0
                        } catch {
                            return (error as? WebImageError)?.code ?? -1
                        }
                    }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }.sorted()
            }
            #expect(errors == [1003, 1003, 1003, 1003, 2001])
            #expect(server.requestCount("/status/404") == 1)
        }
    }
}

/// The custom cache article's `EncodedImageCache`, keeping HTTP validators in a dictionary too.
private final class ValidatorKeepingCache: ImageCacheProtocol {
    private let entries = EncodedImageCache()
    private let validators = Locked<[String: HTTPValidators]>([:])

    @discardableResult
    func queryImage(
        forKey key: String?, options: WebImageOptions, context: WebImageContext?, cacheType: ImageCacheType,
        completion: ImageCacheQueryCompletion?
    ) -> (any WebImageOperation)? {
        entries.queryImage(forKey: key, options: options, context: context, cacheType: cacheType, completion: completion)
    }

    func store(_ image: WebImage.Image?, imageData: Data?, forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        entries.store(image, imageData: imageData, forKey: key, cacheType: cacheType, completion: completion)
    }

    func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        entries.removeImage(forKey: key, cacheType: cacheType, completion: completion)
    }

    func containsImage(forKey key: String?, cacheType: ImageCacheType, completion: ImageCacheContainsCompletion?) {
        entries.containsImage(forKey: key, cacheType: cacheType, completion: completion)
    }

    func clear(with cacheType: ImageCacheType, completion: ImageCacheCompletion?) {
        entries.clear(with: cacheType, completion: completion)
    }

    func storeValidators(_ validators: HTTPValidators, forKey key: String, completion: ImageCacheCompletion?) {
        self.validators.withLock { $0[key] = validators }
        completion?()
    }

    func queryValidators(forKey key: String, completion: @escaping ImageCacheValidatorsCompletion) {
        completion(validators.withLock { $0[key] })
    }
}

/// The options that ask for the disk on the calling thread (`.queryDiskDataSync`,
/// `.queryMemoryDataSync`) never take a cooperative-pool thread: not in the async load, not in a
/// load woken by its leader's end, not in a prefetch; nor does a cache serializer. Seen by the
/// blocking check, whose reports name the cache's files (this test's folder alone).
@Suite("Manager: off the cooperative pool", .offThePool) struct ManagerBlockingTests {
    /// Runs `body` observing the blocking check; returns the reports about files under `folder`.
    private static func reports(under folder: String, _ body: () async throws -> Void) async rethrows -> [BlockingCheck.Report] {
        let reports = Locked<[BlockingCheck.Report]>([])
        try await BlockingCheck.observing({ report in reports.withLock { $0.append(report) } }, body)
        return reports.withLock { $0 }.filter { $0.detail.hasPrefix(folder) }
    }

    @Test func anAsyncLoadAskingForSynchronousQueriesReadsTheDiskOffThePool() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/photos/rocket.jpg")
            _ = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
            fixture.cache.clearMemory()
            let found = try await Self.reports(under: fixture.scratch.path) {
                let fromDisk = try await fixture.manager.loadImage(with: url, options: .queryDiskDataSync)
                #expect(fromDisk.cacheType == .disk && fromDisk.image.pixelWidth == 640)
                let withData = try await fixture.manager.loadImage(with: url, options: [.queryMemoryData, .queryMemoryDataSync])
                #expect(withData.cacheType == .memory && withData.data != nil)
            }
            #expect(found.isEmpty, "\(found)")
            #expect(server.requestCount("/images/photos/rocket.jpg") == 1)
        }
    }

    /// A load that waited for an identical one asks the cache again on the thread where the
    /// leader ended, a task's: its synchronous query goes asynchronous there.
    @Test func aWokenFollowerQueriesTheDiskOffTheLeadersThread() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let gate = server.routeHeld("/held.jpg", body: Array(try TestImages.data("photos/rocket.jpg")), type: "image/jpeg")
            let url = server.url("/held.jpg")
            let (leader, follower) = (LoadRecorder(), LoadRecorder())
            let found = try await Self.reports(under: fixture.scratch.path) {
                fixture.manager.loadImage(with: url, completed: leader.completion)
                #expect(await server.wait { $0.requests["/held.jpg"] == 1 })
                // Started off the pool, where its first query is synchronous: it misses and waits
                // for the leader before this returns.
                let manager = fixture.manager
                _ = try await BlockingPool.run {
                    manager.loadImage(with: url, options: [.queryMemoryData, .queryMemoryDataSync, .queryDiskDataSync], completed: follower.completion)
                }
                gate.open()
                await leader.wait(for: 1)
                await follower.wait(for: 1)
            }
            #expect(leader.recorded.first?.image?.pixelWidth == 640 && follower.recorded.first?.image?.pixelWidth == 640)
            #expect(follower.recorded.first?.cacheType == .memory)
            #expect(server.requestCount("/held.jpg") == 1)
            #expect(found.isEmpty, "\(found)")
        }
    }

    @Test func aPrefetchAskingForSynchronousQueriesReadsTheDiskOffThePool() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        try await withOrigin { server in
            let url = server.url("/images/photos/rocket.jpg")
            _ = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
            let prefetcher = ImagePrefetcher(imageManager: fixture.manager)
            prefetcher.options = [.queryMemoryData, .queryMemoryDataSync, .queryDiskDataSync]
            let found = await Self.reports(under: fixture.scratch.path) {
                let (finished, skipped) = await prefetcher.prefetchURLs([url, url])
                #expect(finished == 2 && skipped == 0)
            }
            #expect(found.isEmpty, "\(found)")
        }
    }

    @Test func aCacheSerializerRunsOffThePool() async throws {
        let fixture = try ManagerFixture()
        defer { fixture.remove() }
        let onTask = Locked<[Bool]>([])
        var context = WebImageContext()
        context.cacheSerializer = CacheSerializer { _, data, _ in
            onTask.withLock { $0.append(withUnsafeCurrentTask { $0 != nil }) }
            return data
        }
        try await withOrigin { server in
            let url = server.url("/images/photos/rocket.jpg")
            let result = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: context)
            #expect(result.image.pixelWidth == 640)
            #expect(fixture.cache.diskImageDataExists(withKey: url.absoluteString))
        }
        #expect(onTask.withLock { $0 } == [false])
    }
}
