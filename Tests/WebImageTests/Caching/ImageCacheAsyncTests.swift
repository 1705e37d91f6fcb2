import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// An `await` on a store, removal or cleanup returns when the disk holds the result: the `async`
/// forms cannot be mistaken for the callback forms (issue 11, item 9). Each test first writes
/// entries (waiting through the callback form), then queues more writes without waiting, so that
/// a call returning before its own disk work (the callback form picked by mistake) would find
/// the disk not yet changed.
@Suite("Caching: ImageCache async forms", .offThePool)
struct ImageCacheAsyncTests {
    private func withBusyDisk(
        config: ImageCacheConfig = ImageCacheConfig(), _ body: (ImageCache, Data) async throws -> Void
    ) async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let cache = scratch.imageCache(config: config)
        let data = try TestImages.data("sdwebimage/TestImage.jpg")
        for index in 0..<3 {
            await withCheckedContinuation { continuation in
                cache.store(nil, imageData: data, forKey: "written-\(index)") { continuation.resume() }
            }
        }
        for index in 0..<3 { cache.store(nil, imageData: data, forKey: "queued-\(index)", completion: nil) }
        try await body(cache, data)
    }

    @Test func anAwaitedStoreToDiskReturnsAfterTheWrite() async throws {
        try await withBusyDisk { cache, data in
            let image = try CacheFixtures.image("sdwebimage/TestImage.jpg")
            await cache.store(image, imageData: data, forKey: "k", toDisk: true)
            let path = try #require(cache.cachePath(forKey: "k"))
            #expect(FileManager.default.contents(atPath: path) == data)
            #expect(cache.imageFromMemoryCache(forKey: "k") === image)
        }
    }

    @Test func anAwaitedRemovalReturnsAfterTheFileIsGone() async throws {
        try await withBusyDisk { cache, _ in
            let path = try #require(cache.cachePath(forKey: "written-0"))
            #expect(FileManager.default.fileExists(atPath: path))
            await cache.removeImage(forKey: "written-0", fromMemory: true, fromDisk: true)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func anAwaitedClearDiskReturnsWithTheFolderEmpty() async throws {
        try await withBusyDisk { cache, _ in
            #expect(!ScratchFolder.entryNames(in: cache.diskCachePath).isEmpty)
            await cache.clearDisk()
            #expect(ScratchFolder.entryNames(in: cache.diskCachePath).isEmpty)
        }
    }

    @Test func anAwaitedDeleteOldFilesReturnsAfterTheCleanup() async throws {
        var config = ImageCacheConfig()
        config.maxDiskAge = 0
        config.diskCacheExpireType = .modificationDate
        config.expiredDataRemovalInterval = 0
        try await withBusyDisk(config: config) { cache, _ in
            #expect(!ScratchFolder.entryNames(in: cache.diskCachePath).isEmpty)
            await cache.deleteOldFiles()
            #expect(ScratchFolder.entryNames(in: cache.diskCachePath).isEmpty)
        }
    }
}
