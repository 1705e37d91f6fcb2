import Foundation
import ImageEngine
import Testing
import WebImageTestSupport
import WebImage

/// `WEBIMAGE_CHECK_BLOCKING`: blocking work on a task's thread is reported, the same work on
/// the blocking pool is not. Reports are told apart by their detail (this test's own folder):
/// other tests run meanwhile in the process.
@Suite("Support: the blocking check", .offThePool) struct BlockingCheckTests {
    @Test func aDiskReadOnATasksThreadIsReportedAndOneOnTheBlockingPoolIsNot() async throws {
        let folder = FileManager.default.temporaryDirectory.path + "/webimage-blocking-check-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
        try await BlockingPool.run { try cache.setData(Data([1, 2, 3]), forKey: "entry") }
        let reports = Locked<[BlockingCheck.Report]>([])
        func mine() -> [BlockingCheck.Report] { reports.withLock { $0 }.filter { $0.detail.hasPrefix(folder) } }

        let offThePool = try await BlockingCheck.observing({ report in reports.withLock { $0.append(report) } }) {
            try await BlockingPool.run { cache.data(forKey: "entry") }
        }
        #expect(offThePool == Data([1, 2, 3]))
        #expect(mine().isEmpty, "\(mine())")

        let onTheTask = await BlockingCheck.observing({ report in reports.withLock { $0.append(report) } }) {
            cache.data(forKey: "entry")
        }
        #expect(onTheTask == Data([1, 2, 3]))
        let report = try #require(mine().first)
        #expect(mine().count == 1)
        #expect(report.site.hasPrefix("read(_:touchAccessDate:) (WebImage/CacheFile.swift:"), "\(report.site)")
        #expect(report.detail == cache.cachePath(forKey: "entry"))

        // Not observed (and without the variable): nothing is reported.
        _ = cache.data(forKey: "entry")
        #expect(mine().count == 1)
    }
}
