import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// Bad cache files and unusable cache folders. The tests run as root in CI, where a chmod'ed
/// read-only folder is still writable, so an unwritable folder is simulated by a path whose
/// parent is a regular file, and by a path under /proc (`DiskCacheTests` has a chmod'ed one,
/// run when not root).
@Suite("Caching: ImageCache faults", .offThePool)
struct ImageCacheFaultTests {
    private static func badFiles() throws -> [String: Data] {
        let png = try TestImages.data("sdwebimage/TestImage.png")
        let jpeg = try TestImages.data("sdwebimage/TestImage.jpg")
        return [
            "empty": Data(),
            "truncated-png": png.prefix(png.count / 2),
            "truncated-jpeg": jpeg.prefix(jpeg.count / 2),
            "not-an-image": Data("<html>not found</html>".utf8),
            "header-only": png.prefix(40),
        ]
    }

    @Test func aBadCacheFileIsAMissAndIsRemoved() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let cache = scratch.imageCache()
        for (key, data) in try Self.badFiles() {
            try cache.storeImageDataToDisk(data, forKey: key)
            #expect(cache.diskImageDataExists(withKey: key))
            let result = await cache.queryImage(forKey: key)
            #expect(result.image == nil, "\(key)")
            #expect(result.cacheType == .none, "\(key)")
            #expect(!cache.diskImageDataExists(withKey: key), "\(key)")
        }
        // The synchronous paths too.
        try cache.storeImageDataToDisk(Data("junk".utf8), forKey: "sync")
        #expect(cache.imageFromDiskCache(forKey: "sync") == nil)
        #expect(!cache.diskImageDataExists(withKey: "sync"))
        #expect(cache.totalDiskCount() == 0)
    }

    @Test func aFolderRemovedWhileRunningMissesAndTheMemoryTierKeepsWorking() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let cache = scratch.imageCache()
        let image = try CacheFixtures.image("sdwebimage/TestImage.png")
        let data = try TestImages.data("sdwebimage/TestImage.png")
        await cache.store(image, imageData: data, forKey: "k")
        try FileManager.default.removeItem(atPath: cache.diskCachePath)
        cache.clearMemory()
        #expect(await cache.queryImage(forKey: "k").cacheType == .none)
        #expect(cache.totalDiskCount() == 0)
        await cache.store(image, imageData: data, forKey: "k2")
        #expect(await cache.queryImage(forKey: "k2").cacheType == .memory)
    }

    @Test(arguments: ["file", "proc"])
    func anUnwritableFolderFailsStoresAndMissesWithoutCrashing(kind: String) async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let directory: String
        if kind == "file" {
            // The cache directory is a regular file: its namespace folder can never be made.
            directory = scratch.path + "/not-a-folder"
            try Data("x".utf8).write(to: URL(fileURLWithPath: directory))
        } else {
            directory = "/proc/swift-webimage-cache-test"
        }
        let cache = ImageCache(namespace: "ns", diskCacheDirectory: directory)
        let image = try CacheFixtures.image("sdwebimage/TestImage.png")
        let data = try TestImages.data("sdwebimage/TestImage.png")

        #expect(throws: DiskCacheError.self) { try cache.storeImageDataToDisk(data, forKey: "k") }
        await cache.store(image, imageData: data, forKey: "k")
        #expect(await cache.queryImage(forKey: "k").cacheType == .memory)
        cache.clearMemory()
        #expect(await cache.queryImage(forKey: "k").cacheType == .none)
        #expect(await cache.containsImage(forKey: "k") == .none)
        #expect(cache.totalDiskCount() == 0)
        #expect(cache.totalDiskSize() == 0)
        await withCheckedContinuation { continuation in cache.deleteOldFiles { continuation.resume() } }
        await cache.clear()
    }

    @Test func hostileKeysNeverWriteOutsideTheCacheFolder() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let cache = scratch.imageCache()
        let data = try TestImages.data("sdwebimage/TestImage.jpg")
        let keys = [
            String(repeating: "a", count: 10_000), "", "/", "..", "../../escape.jpg", "a/../../b.jpg",
            "/etc/passwd", "https://x.test/../../../x.jpg", "nul\u{0}key.jpg",
        ]
        for key in keys { await cache.store(nil, imageData: data, forKey: key) }
        #expect(ScratchFolder.allNames(in: scratch.path) == ["test"])
        #expect(ScratchFolder.allNames(in: cache.diskCachePath).count == keys.count)
        for key in keys {
            #expect(cache.diskImageData(forKey: key) == data)
        }
    }
}
