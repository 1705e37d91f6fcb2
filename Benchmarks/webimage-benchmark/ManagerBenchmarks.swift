import Foundation
import WebImage
import WebImageTestServer

/// The manager's costs against the parts it stands on, measured in this process: a memory hit
/// through `loadImage` (async form) against the bare `MemoryCache` lookup, and a prefetch storm
/// (10,000 prefetches of 100 distinct images from the loopback test server) with the requests
/// it caused and the peak memory.
enum ManagerBenchmarks {
    static func run() async throws {
        print("manager")
        try await memoryHit()
        try await prefetchStorm()
    }

    private static func memoryHit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = ImageCache(namespace: "bench", diskCacheDirectory: folder)
        let manager = WebImageManager(cache: cache, loader: ImageLoadersManager.shared)
        guard let image = Image(rgba8Pixels: [UInt8](repeating: 255, count: 4), width: 1, height: 1),
              let url = URL(string: "https://images.example.com/photos/1/large.jpg")
        else { throw CoderBenchmarks.Failure(description: "no test image") }
        cache.storeImageToMemory(image, forKey: url.absoluteString)
        let batch = 2_000
        var ours: [Double] = []
        var bare: [Double] = []
        for _ in 0..<21 {
            let started = ContinuousClock.now
            for _ in 0..<batch {
                let result = try await manager.loadImage(with: url)
                guard result.cacheType == .memory else { throw CoderBenchmarks.Failure(description: "not a memory hit") }
            }
            ours.append((ContinuousClock.now - started).seconds / Double(batch))
            let bareStarted = ContinuousClock.now
            for _ in 0..<batch {
                guard cache.memoryCache.object(forKey: url.absoluteString) != nil else { throw CoderBenchmarks.Failure(description: "miss") }
            }
            bare.append((ContinuousClock.now - bareStarted).seconds / Double(batch))
        }
        let oursMedian = ours.sorted()[ours.count / 2]
        let bareMedian = bare.sorted()[bare.count / 2]
        print(String(format: "memory hit through loadImage (async): %.2f us; bare MemoryCache lookup %.2f us: %.1fx (target <= 10x: %@)",
                     oursMedian * 1e6, bareMedian * 1e6, oursMedian / bareMedian, oursMedian / bareMedian <= 10 ? "met" : "NOT met"))
    }

    private static func prefetchStorm() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.shutdown() } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manager = WebImageManager(cache: ImageCache(namespace: "bench", diskCacheDirectory: folder), loader: ImageLoadersManager.shared)
        let prefetcher = ImagePrefetcher(imageManager: manager)
        let distinct = (0..<100).map { server.url("/images/sdwebimage/TestImage.png?n=\($0)") }
        let urls = (0..<10_000).map { distinct[$0 % distinct.count] }
        let started = ContinuousClock.now
        let (finished, skipped) = await prefetcher.prefetchURLs(urls)
        let seconds = (ContinuousClock.now - started).seconds
        let requests = server.statistics.requests["/images/sdwebimage/TestImage.png"] ?? 0
        print(String(format: "10,000 prefetches of 100 distinct images: %d loaded, %d failed, %d requests (one per distinct URL: %@), %.2f s, peak resident memory %.0f MB",
                     finished, skipped, requests, requests == distinct.count ? "yes" : "NO", seconds, Double(peakResidentBytes()) / 1_048_576))
    }

    private static func peakResidentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
}
