import Foundation
import Testing
import WebImageTestServer
@testable import WebImage
import WebImageTestSupport

/// A manager and what it holds go once its user lets go: no load keeps them alive after it ends.
@Suite("Manager: lifetime", .offThePool) struct ManagerLifetimeTests {
    // Released objects are awaited for up to 60 s (polled: nothing announces a release); the
    // wait ends as soon as they go, and 10 s was cut under the whole suite's load.
    @Test func aManagerIsReleasedAfterCompletedAndCancelledLoads() async throws {
        let folder = FileManager.default.temporaryDirectory.path + "/webimage-lifetime-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        weak var weakManager: WebImageManager?
        weak var weakCache: ImageCache?
        do {
            let cache = ImageCache(namespace: "lifetime", diskCacheDirectory: folder)
            let manager = WebImageManager(cache: cache, loader: ImageLoadersManager(loaders: [FileImageLoader()]))
            weakManager = manager
            weakCache = cache
            let url = TestImages.url("photos/rocket.jpg")
            // From the file, then from memory, then a load cancelled as it starts.
            #expect(try await manager.loadImage(with: url, options: [.waitStoreCache]).cacheType == .none)
            #expect(try await manager.loadImage(with: url).cacheType == .memory)
            cache.clearMemory()
            let cancelled = manager.loadImage(with: url, options: [], context: nil, progress: nil) { _, _, _, _, _, _ in }
            cancelled.cancel()
        }
        // The cancel handler held the load, which held its operation and the manager: a cycle
        // that kept every manager (and its cache and loaders) alive once it had loaded anything.
        #expect(await eventually(within: TestAllowance.eventWait) { weakManager == nil && weakCache == nil })
    }

    /// A cache whose query operation keeps its completion after calling it (the DocC example's
    /// `EncodedImageQuery` does) held the load through the manager's operation, in a cycle
    /// that the AddressSanitizer run found: the parts now go when the load ends.
    @Test func aQueryOperationThatKeepsItsCompletionDoesNotKeepTheManager() async throws {
        weak var weakManager: WebImageManager?
        weak var weakCache: EncodedImageCache?
        do {
            let cache = EncodedImageCache()
            let manager = WebImageManager(cache: cache, loader: ImageLoadersManager(loaders: [FileImageLoader()]))
            weakManager = manager
            weakCache = cache
            let url = TestImages.url("photos/rocket.jpg")
            #expect(try await manager.loadImage(with: url, options: [.waitStoreCache]).cacheType == .none)
            #expect(try await manager.loadImage(with: url).cacheType == .disk)
        }
        #expect(await eventually(within: TestAllowance.eventWait) { weakManager == nil && weakCache == nil })
    }

    /// The same through a caches manager: its composite query kept the children it had started
    /// after completing, and the custom cache's child kept the completion that holds the
    /// composite (and the caches still to ask).
    @Test func aCachesManagerQueryLeavesNothingAliveOnceAnswered() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        weak var weakEncoded: EncodedImageCache?
        weak var weakLocal: ImageCache?
        do {
            let encoded = EncodedImageCache()
            let local = scratch.imageCache()
            weakEncoded = encoded
            weakLocal = local
            let caches = ImageCachesManager(caches: [encoded, local])   // `local` is asked first
            await encoded.store(nil, imageData: try TestImages.data("photos/rocket.jpg"), forKey: "rocket")
            #expect(await caches.queryImage(forKey: "rocket").cacheType == .disk)
        }
        #expect(await eventually(within: TestAllowance.eventWait) { weakEncoded == nil && weakLocal == nil })
    }
}
