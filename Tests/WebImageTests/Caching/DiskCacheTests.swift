import Foundation
import Glibc
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite("Caching: DiskCache", .offThePool)
struct DiskCacheTests {
    private func withDiskCache(
        config: ImageCacheConfig = ImageCacheConfig(), usesExtendedAttributes: Bool = true,
        _ body: (DiskCache, String) throws -> Void
    ) throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let folder = scratch.path + "/disk"
        let cache = DiskCache(cachePath: folder, config: config, usesExtendedAttributes: usesExtendedAttributes)
        // The expiry run a new cache starts must not race with the entries a test ages.
        cache.waitForMaintenance()
        try body(cache, folder)
    }

    @Test func storesReadsAndRemovesData() throws {
        try withDiskCache { cache, _ in
            let data = Data("hello".utf8)
            try cache.setData(data, forKey: "k")
            #expect(cache.containsData(forKey: "k"))
            #expect(cache.data(forKey: "k") == data)
            cache.removeData(forKey: "k")
            #expect(!cache.containsData(forKey: "k"))
            #expect(cache.data(forKey: "k") == nil)
        }
    }

    @Test func fileNameIsMD5PlusTheURLPathExtensionWithoutQuery() throws {
        try withDiskCache { cache, folder in
            let path = try #require(cache.cachePath(forKey: "https://x.test/a/b.png?x=1"))
            #expect(path.hasSuffix(".png"))
            #expect(path.hasPrefix(folder + "/"))
            // MD5("https://x.test/a/b.png?x=1"), as `md5sum` prints it.
            let name = (path as NSString).lastPathComponent
            #expect(name == DiskCacheFileName.forKey("https://x.test/a/b.png?x=1"))
            #expect(name.count == 32 + 4)
            #expect(DiskCacheFileName.forKey("abc") == "900150983cd24fb0d6963f7d28e17f72")
        }
    }

    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func fileNamesAreTheRFC1321Digests(key: String, digest: String) {
        #expect(DiskCacheFileName.forKey(key) == digest)
    }

    @Test func extensionsOver222CharactersAreDropped() {
        let kept = "https://x.test/a." + String(repeating: "e", count: 222)
        let dropped = "https://x.test/a." + String(repeating: "e", count: 223)
        #expect(DiskCacheFileName.forKey(kept).hasSuffix("." + String(repeating: "e", count: 222)))
        #expect(!DiskCacheFileName.forKey(dropped).contains("."))
    }

    @Test(arguments: [
        "https://x.test/a:b.png", "key\u{0}with\u{0}nul.png", "a:b:c", "", "/", "..", "../../etc/passwd",
        "../x/../../y.jpg", String(repeating: "k", count: 10_000), String(repeating: "/..", count: 3_000) + ".png",
        "https://x.test/a.p/ng", "https://x.test/a.p ng", "x.\u{0}",
    ])
    func everyKeyMapsToAFileInsideTheFolder(key: String) throws {
        try withDiskCache { cache, folder in
            let path = try #require(cache.cachePath(forKey: key))
            let name = (path as NSString).lastPathComponent
            #expect((path as NSString).deletingLastPathComponent == folder)
            #expect(!name.contains("/") && !name.contains("\u{0}") && !name.hasPrefix(".") && name.utf8.count <= 255)
            try cache.setData(Data(key.utf8), forKey: key)
            #expect(cache.data(forKey: key) == Data(key.utf8))
            #expect(ScratchFolder.entryNames(in: folder) == [name])
        }
    }

    @Test func countsAndSizesAgreeWithTheFilesOnDisk() throws {
        try withDiskCache { cache, folder in
            for index in 0..<5 { try cache.setData(Data(repeating: 7, count: 100 * (index + 1)), forKey: "k\(index)") }
            try cache.setExtendedData(Data("meta".utf8), forKey: "k0")
            let names = ScratchFolder.entryNames(in: folder)
            let sizes = try names.map { try #require(FileManager.default.attributesOfItem(atPath: folder + "/" + $0)[.size] as? Int) }
            #expect(cache.totalCount == names.count)
            #expect(cache.totalCount == 5)
            #expect(cache.totalSize == sizes.reduce(0, +))
            #expect(cache.totalSize == 1_500)
        }
    }

    @Test(arguments: [true, false])
    func extendedDataRoundTripsAndGoesWithItsEntry(usesExtendedAttributes: Bool) throws {
        try withDiskCache(usesExtendedAttributes: usesExtendedAttributes) { cache, folder in
            let meta = Data("etag: \"abc\"".utf8)
            #expect(throws: DiskCacheError.self) { try cache.setExtendedData(meta, forKey: "missing") }
            try cache.setData(Data("image".utf8), forKey: "k")
            try cache.setExtendedData(meta, forKey: "k")
            #expect(cache.extendedData(forKey: "k") == meta)
            cache.removeData(forKey: "k")
            #expect(cache.extendedData(forKey: "k") == nil)
            #expect(ScratchFolder.allNames(in: folder).isEmpty)
            try cache.setData(Data("image".utf8), forKey: "k")
            #expect(cache.extendedData(forKey: "k") == nil)
        }
    }

    @Test func extendedDataTooLargeForAnAttributeGoesToASidecarAndShadowsNoOlderValue() throws {
        try withDiskCache { cache, folder in
            try cache.setData(Data("image".utf8), forKey: "k")
            try cache.setExtendedData(Data("small".utf8), forKey: "k")
            // Over the 64 KiB any attribute may hold: the sidecar takes it, the old attribute goes.
            let large = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
            try cache.setExtendedData(large, forKey: "k")
            #expect(cache.extendedData(forKey: "k") == large)
            try cache.setExtendedData(Data("small again".utf8), forKey: "k")
            #expect(cache.extendedData(forKey: "k") == Data("small again".utf8))
            cache.removeData(forKey: "k")
            #expect(cache.extendedData(forKey: "k") == nil)
            #expect(ScratchFolder.allNames(in: folder).isEmpty)
        }
    }

    @Test(arguments: [true, false])
    func extendedDataGoesWithEntriesRemovedByExpiryTrimsAndRemoveAll(usesExtendedAttributes: Bool) throws {
        try withDiskCache(usesExtendedAttributes: usesExtendedAttributes) { writer, folder in
            let meta = Data("meta".utf8)
            for (key, size) in [("expired", 1_500), ("oldest", 1_500), ("newest", 1_000)] {
                try writer.setData(Data(repeating: 1, count: size), forKey: key)
                try writer.setExtendedData(meta, forKey: key)
            }
            CacheFixtures.age(try #require(writer.cachePath(forKey: "expired")), by: 60)
            CacheFixtures.age(try #require(writer.cachePath(forKey: "oldest")), by: 20)
            // Expiry takes "expired"; the 2,500 bytes left are over the limit, so the trim takes
            // "oldest", which brings the total under half of it.
            var config = ImageCacheConfig()
            config.maxDiskAge = 30
            config.maxDiskSize = 2_400
            config.expiredDataRemovalInterval = 0
            let cache = DiskCache(cachePath: folder, config: config, usesExtendedAttributes: usesExtendedAttributes)
            cache.removeExpiredData()
            #expect(cache.containsData(forKey: "newest"))
            #expect(cache.extendedData(forKey: "expired") == nil)
            #expect(cache.extendedData(forKey: "oldest") == nil)
            #expect(cache.extendedData(forKey: "newest") == meta)
            #expect(ScratchFolder.allNames(in: folder).count == (usesExtendedAttributes ? 1 : 2))
            cache.removeAllData()
            #expect(cache.extendedData(forKey: "newest") == nil)
            #expect(ScratchFolder.allNames(in: folder).isEmpty)
        }
    }

    @Test func removeAllDataEmptiesTheFolderAndKeepsIt() throws {
        try withDiskCache { cache, folder in
            for index in 0..<3 { try cache.setData(Data([1, 2, 3]), forKey: "k\(index)") }
            cache.removeAllData()
            #expect(cache.totalCount == 0)
            #expect(ScratchFolder.allNames(in: folder).isEmpty)
            var isFolder: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue)
        }
    }

    @Test(arguments: [DiskCacheExpireType.accessDate, .modificationDate])
    func expiredEntriesAreRemovedAndFreshOnesKept(expireType: DiskCacheExpireType) throws {
        // The 1 s / 2 s, scaled by 30 so that a loaded machine cannot age the fresh entry.
        var config = ImageCacheConfig()
        config.maxDiskAge = 30
        config.diskCacheExpireType = expireType
        try withDiskCache(config: config) { cache, _ in
            try cache.setData(Data("old".utf8), forKey: "old")
            try cache.setData(Data("fresh".utf8), forKey: "fresh")
            CacheFixtures.age(try #require(cache.cachePath(forKey: "old")), by: 60)
            cache.removeExpiredData()
            #expect(!cache.containsData(forKey: "old"))
            #expect(cache.containsData(forKey: "fresh"))
        }
    }

    @Test(arguments: [DiskCacheExpireType.accessDate, .modificationDate, .creationDate, .changeDate])
    func everyExpireTypeKeepsFreshEntriesAndExpiresAtAgeZero(expireType: DiskCacheExpireType) throws {
        for (age, kept) in [(3_600.0, true), (0.0, false)] {
            var config = ImageCacheConfig()
            config.maxDiskAge = age
            config.diskCacheExpireType = expireType
            try withDiskCache(config: config) { cache, _ in
                try cache.setData(Data("entry".utf8), forKey: "k")
                cache.removeExpiredData()
                #expect(cache.containsData(forKey: "k") == kept)
            }
        }
    }

    @Test func aReadKeepsAnEntryAliveByAccessDate() throws {
        var config = ImageCacheConfig()
        config.maxDiskAge = 60
        try withDiskCache(config: config) { cache, _ in
            try cache.setData(Data("read".utf8), forKey: "read")
            try cache.setData(Data("unread".utf8), forKey: "unread")
            for key in ["read", "unread"] { CacheFixtures.age(try #require(cache.cachePath(forKey: key)), by: 120) }
            #expect(cache.data(forKey: "read") != nil)
            cache.removeExpiredData()
            #expect(cache.containsData(forKey: "read"))
            #expect(!cache.containsData(forKey: "unread"))
        }
    }

    @Test func negativeMaxDiskAgeKeepsEverything() throws {
        var config = ImageCacheConfig()
        config.maxDiskAge = -1
        try withDiskCache(config: config) { cache, _ in
            try cache.setData(Data("old".utf8), forKey: "old")
            CacheFixtures.age(try #require(cache.cachePath(forKey: "old")), by: 10 * 365 * 86_400)
            cache.removeExpiredData()
            #expect(cache.containsData(forKey: "old"))
        }
    }

    @Test func cleanupOverTheSizeLimitRemovesOldestFirstToUnderHalf() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let folder = scratch.path + "/disk"
        // Filled without a limit, then cleaned by a cache with one (as another process would).
        let writer = DiskCache(cachePath: folder, config: ImageCacheConfig())
        for index in 0..<10 {
            try writer.setData(Data(repeating: UInt8(index), count: 1_000), forKey: "k\(index)")
            // k0 is the oldest, k9 the newest.
            CacheFixtures.age(try #require(writer.cachePath(forKey: "k\(index)")), by: Double(100 - index))
        }
        var config = ImageCacheConfig()
        config.maxDiskSize = 8_000
        let cleaner = DiskCache(cachePath: folder, config: config)
        cleaner.removeExpiredData()
        #expect(cleaner.totalSize < 4_000)
        #expect(cleaner.totalCount == 3)
        for index in 0..<7 { #expect(!cleaner.containsData(forKey: "k\(index)")) }
        for index in 7..<10 { #expect(cleaner.containsData(forKey: "k\(index)")) }
    }

    @Test func sizeLimitIsEnforcedInTheBackgroundAfterWrites() throws {
        var config = ImageCacheConfig()
        config.maxDiskSize = 10_000
        try withDiskCache(config: config) { cache, _ in
            for index in 0..<40 { try cache.setData(Data(repeating: 1, count: 1_000), forKey: "k\(index)") }
            cache.waitForMaintenance()
            #expect(cache.totalSize <= 10_000)
            #expect(cache.containsData(forKey: "k39"))
        }
    }

    @Test(.timeLimit(.minutes(TestAllowance.minutes(1))))
    func expiredEntriesAreRemovedInTheBackgroundWhenTheCacheIsMadeAndAfterWrites() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let folder = scratch.path + "/disk"
        var noExpiry = ImageCacheConfig()
        noExpiry.expiredDataRemovalInterval = 0
        let writer = DiskCache(cachePath: folder, config: noExpiry)
        for key in ["old", "fresh"] { try writer.setData(Data(key.utf8), forKey: key) }
        CacheFixtures.age(try #require(writer.cachePath(forKey: "old")), by: 60)

        var config = ImageCacheConfig()
        config.maxDiskAge = 30
        config.expiredDataRemovalInterval = 0.05
        let (runs, finished) = AsyncStream.makeStream(of: Void.self)
        let cache = DiskCache(
            cachePath: folder, config: config, usesExtendedAttributes: true,
            afterBackgroundExpiry: { finished.yield() }
        )
        var nextRun = runs.makeAsyncIterator()
        await nextRun.next()
        #expect(!cache.containsData(forKey: "old"))
        #expect(cache.containsData(forKey: "fresh"))

        // Nothing runs again until a write, which is followed by a run within the interval.
        CacheFixtures.age(try #require(cache.cachePath(forKey: "fresh")), by: 60)
        try cache.setData(Data("new".utf8), forKey: "new")
        await nextRun.next()
        #expect(!cache.containsData(forKey: "fresh"))
        #expect(cache.containsData(forKey: "new"))
    }

    @Test(arguments: [3_600.0, 0])
    func backgroundExpiryRunsAtMostOncePerIntervalAndNeverWhenOff(interval: TimeInterval) throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        var config = ImageCacheConfig()
        config.expiredDataRemovalInterval = interval
        let runs = CallCounter()
        let cache = DiskCache(
            cachePath: scratch.path + "/disk", config: config, usesExtendedAttributes: true,
            afterBackgroundExpiry: { runs.increment() }
        )
        for index in 0..<20 { try cache.setData(Data([1]), forKey: "k\(index)") }
        cache.waitForMaintenance()
        // With an interval, the run at creation; the next is an hour away.
        #expect(runs.value == (interval > 0 ? 1 : 0))
    }

    @Test func aFolderRemovedWhileRunningIsMadeAgainOnTheNextStore() throws {
        try withDiskCache { cache, folder in
            try cache.setData(Data("a".utf8), forKey: "a")
            try FileManager.default.removeItem(atPath: folder)
            #expect(cache.data(forKey: "a") == nil)
            #expect(cache.totalCount == 0)
            try cache.setData(Data("b".utf8), forKey: "b")
            #expect(cache.data(forKey: "b") == Data("b".utf8))
        }
    }

    @Test func abandonedTemporaryFilesAreCleanedButOnesBeingWrittenKept() throws {
        try withDiskCache { cache, folder in
            let abandoned = folder + "/" + CacheFile.temporaryPrefix + "abandoned"
            let beingWritten = folder + "/" + CacheFile.temporaryPrefix + "being-written"
            for path in [abandoned, beingWritten] { _ = FileManager.default.createFile(atPath: path, contents: Data([1])) }
            // A writer holds its temporary file locked until it is renamed.
            let writer = open(beingWritten, O_WRONLY)
            defer { close(writer) }
            #expect(flock(writer, LOCK_EX) == 0)
            cache.removeExpiredData()
            #expect(!FileManager.default.fileExists(atPath: abandoned))
            #expect(FileManager.default.fileExists(atPath: beingWritten))
            cache.removeAllData()
            #expect(FileManager.default.fileExists(atPath: beingWritten))
            #expect(cache.totalCount == 0)
        }
    }

    @Test func aCacheStartRemovesTemporaryFilesNobodyWrites() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let folder = scratch.path + "/start"
        try DiskCache(cachePath: folder, config: ImageCacheConfig()).setData(Data("kept".utf8), forKey: "kept")
        let abandoned = folder + "/" + CacheFile.temporaryPrefix + "abandoned"
        _ = FileManager.default.createFile(atPath: abandoned, contents: Data([1]))
        var config = ImageCacheConfig()
        config.expiredDataRemovalInterval = 0
        let cache = DiskCache(cachePath: folder, config: config)
        cache.waitForMaintenance()
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(cache.data(forKey: "kept") == Data("kept".utf8))
    }
}
