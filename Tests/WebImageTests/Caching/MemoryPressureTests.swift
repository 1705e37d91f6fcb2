import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

@Suite("Caching: cgroup memory pressure", .offThePool)
struct MemoryPressureTests {
    private func cgroupFolder(max: String, current: String?, in scratch: ScratchFolder) throws -> String {
        try Data(max.utf8).write(to: URL(fileURLWithPath: scratch.path + "/memory.max"))
        if let current { try Data(current.utf8).write(to: URL(fileURLWithPath: scratch.path + "/memory.current")) }
        return scratch.path
    }

    @Test func readsTheLimitAndUsageAndSpotsPressure() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let folder = try cgroupFolder(max: "1000000\n", current: "950000\n", in: scratch)
        let status = try #require(CgroupMemoryStatus.read(folder: folder))
        #expect(status == CgroupMemoryStatus(limit: 1_000_000, usage: 950_000))
        #expect(status.isUnderPressure)
        #expect(!CgroupMemoryStatus(limit: 1_000_000, usage: 500_000).isUnderPressure)
    }

    @Test func noLimitMeansNoStatus() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        #expect(CgroupMemoryStatus.read(folder: try cgroupFolder(max: "max\n", current: "1", in: scratch)) == nil)
        #expect(CgroupMemoryStatus.read(folder: scratch.path + "/missing") == nil)
    }

    @Test func specialFilesThatReportSizeZeroAreRead() throws {
        // /proc files report st_size 0, as cgroup files do.
        let text = try #require(CacheFile.readToEnd("/proc/self/cgroup").flatMap { String(data: $0, encoding: .utf8) })
        #expect(text.contains("::"))
        #expect(CgroupMemoryStatus.defaultFolder.hasPrefix("/sys/fs/cgroup"))
    }

    @Test(.timeLimit(.minutes(TestAllowance.minutes(1))))
    func theWatcherTrimsTheMemoryTierWhenTheCgroupNearsItsLimit() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let cgroup = scratch.path + "/cgroup"
        try FileManager.default.createDirectory(atPath: cgroup, withIntermediateDirectories: true)
        try Data("1000000\n".utf8).write(to: URL(fileURLWithPath: cgroup + "/memory.max"))
        try Data("500000\n".utf8).write(to: URL(fileURLWithPath: cgroup + "/memory.current"))
        let cache = scratch.imageCache()
        let image = try CacheFixtures.solidImage(width: 10, height: 10)
        for index in 0..<4 { cache.storeImageToMemory(image, forKey: "k\(index)") }
        let (checks, checked) = AsyncStream.makeStream(of: Void.self)
        ImageCache.watchMemoryPressure(of: cache, folder: cgroup, interval: 0.01) { checked.yield() }
        var nextCheck = checks.makeAsyncIterator()
        await nextCheck.next()
        #expect(cache.memoryCache.totalCost == 4 * image.memoryCost)
        // At 95 % of the limit, a poll halves the tier (polls already queued may have read the
        // old usage; the time limit ends the wait should none ever trim).
        try Data("950000\n".utf8).write(to: URL(fileURLWithPath: cgroup + "/memory.current"))
        while cache.memoryCache.totalCost > 2 * image.memoryCost { await nextCheck.next() }
        // The least recently used went first.
        #expect(cache.imageFromMemoryCache(forKey: "k0") == nil)
    }

    @Test func pressureHalvesTheMemoryTierOldestFirst() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let cache = scratch.imageCache()
        let image = try CacheFixtures.solidImage(width: 10, height: 10)
        for index in 0..<4 { cache.storeImageToMemory(image, forKey: "k\(index)") }
        _ = cache.imageFromMemoryCache(forKey: "k0")
        cache.trimMemoryForPressure()
        #expect(cache.memoryCache.totalCost == 2 * image.memoryCost)
        #expect(cache.imageFromMemoryCache(forKey: "k0") != nil)
        #expect(cache.imageFromMemoryCache(forKey: "k1") == nil)
    }
}
