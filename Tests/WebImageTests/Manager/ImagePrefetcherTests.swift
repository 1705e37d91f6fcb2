import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite("Manager: prefetcher", .offThePool) struct ImagePrefetcherTests {
    private func makeManager(_ scratch: ScratchFolder) -> (ImageCache, WebImageManager) {
        let cache = scratch.imageCache()
        return (cache, WebImageManager(cache: cache, loader: ImageLoadersManager(loaders: [makeDownloader()])))
    }

    @Test func twentyURLsWithTwoMissingFinishEighteenAndSkipTwoThreeAtATime() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let (_, manager) = makeManager(scratch)
        let prefetcher = ImagePrefetcher(imageManager: manager)
        #expect(prefetcher.maxConcurrentPrefetchCount == 3 && prefetcher.options == .lowPriority)
        try await withOrigin { server async throws in
            let urls = (0..<20).map { index in
                index == 5 || index == 12 ? server.url("/status/404?n=\(index)") : server.url("/images/sdwebimage/TestImage.png?n=\(index)&delay=30")
            }
            let reports = Locked<[(Int, Int)]>([])
            let (finished, skipped) = await prefetcher.prefetchURLs(urls) { done, total in reports.withLock { $0.append((done, total)) } }
            #expect(finished == 18 && skipped == 2)
            let progress = reports.withLock { $0 }
            #expect(progress.count == 20 && progress.last.map { $0 == (20, 20) } == true)
            #expect(server.statistics.maxRequestsInFlight <= 3 && server.statistics.totalRequests == 20)
            #expect(try await manager.loadImage(with: urls[0]).cacheType == .memory)
        }
    }

    @Test func independentTokensAndCancelling() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let (_, manager) = makeManager(scratch)
        let prefetcher = ImagePrefetcher(imageManager: manager)
        prefetcher.maxConcurrentPrefetchCount = 1
        try await withOrigin { server async throws in
            let slow = (0..<5).map { server.url("/images/photos/rocket.jpg?slow=\($0)&delay=200") }
            let counts = Locked<(Int, Int)?>(nil)
            let cancelled: PrefetchToken = prefetcher.prefetchURLs(slow, completed: { finished, skipped in
                counts.withLock { $0 = (finished, skipped) }
            })
            let quick = [server.url("/images/sdwebimage/TestImage.jpg")]
            async let other = prefetcher.prefetchURLs(quick)
            #expect(await server.wait { ($0.requests["/images/photos/rocket.jpg"] ?? 0) >= 1 })
            cancelled.cancel()
            #expect(cancelled.isCancelled)
            let (finished, skipped) = await other
            #expect(finished == 1 && skipped == 0)
            let final = try #require(counts.withLock { $0 })
            #expect(final.0 < 5, "cancelled before all five loaded")
            #expect(server.requestCount("/images/photos/rocket.jpg") < 5)
        }
    }

    @Test func prefetchingToDiskOnlyKeepsMemoryEmpty() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let (cache, manager) = makeManager(scratch)
        let prefetcher = ImagePrefetcher(imageManager: manager)
        prefetcher.prefetchesToDiskOnly = true
        prefetcher.options = [.lowPriority, .waitStoreCache]
        try await withOrigin { server async throws in
            let url = server.url("/images/photos/rocket.jpg")
            let (finished, _) = await prefetcher.prefetchURLs([url])
            #expect(finished == 1)
            #expect(cache.imageFromMemoryCache(forKey: url.absoluteString) == nil)
            #expect(cache.diskImageData(forKey: url.absoluteString) == (try TestImages.data("photos/rocket.jpg")))
            #expect(try await manager.loadImage(with: url).cacheType == .disk)
        }
    }

    @Test func anEmptyListCompletesAtOnce() async {
        let (finished, skipped) = await ImagePrefetcher.shared.prefetchURLs([])
        #expect(finished == 0 && skipped == 0)
    }
}

@Suite("Manager: prefetcher on memory hits", .offThePool) struct ImagePrefetcherMemoryHitTests {
    /// Memory hits complete at once; a prefetcher that started the next load from inside each
    /// completion recursed once per URL and overflowed the stack (found by the benchmark).
    @Test func tenThousandMemoryHitsDoNotRecurse() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let cache = scratch.imageCache()
        let manager = WebImageManager(cache: cache, loader: ImageLoadersManager(loaders: [FileImageLoader()]))
        let url = TestImages.url("sdwebimage/TestImage.png")
        _ = try await manager.loadImage(with: url)
        let (finished, skipped) = await ImagePrefetcher(imageManager: manager).prefetchURLs(Array(repeating: url, count: 10_000))
        #expect(finished == 10_000 && skipped == 0)
    }
}
