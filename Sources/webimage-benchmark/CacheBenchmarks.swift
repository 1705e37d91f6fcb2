import Dispatch
import Foundation
import Synchronization
import WebImage

/// The cache against the simplest code doing the same job, measured side by side (issue 3):
/// memory hits and stores against a `Dictionary` behind a `Mutex`, disk reads against
/// `FileManager`, disk stores against `Data.write(options: .atomic)`, two threads against one.
enum CacheBenchmarks {
    static func run() throws {
        print("cache")
        try memoryCache()
        try memoryCacheContention()
        try diskCache()
    }

    private static let entryCount = 10_000
    /// Operations per timed sample, so clock overhead vanishes from per-operation figures.
    private static let batch = 10_000

    private static func keys() -> [String] {
        (0..<entryCount).map { "https://images.example.com/photos/\($0)/large.jpg" }
    }

    /// Keys in a shuffled but fixed order, so lookups do not walk memory sequentially.
    private static func lookupOrder(_ keys: [String]) -> [String] {
        (0..<batch).map { keys[($0 &* 7_919) % keys.count] }
    }

    private static func memoryCache() throws {
        let keys = keys()
        let order = lookupOrder(keys)
        let image = try pixel()
        let cache = MemoryCache()
        let dictionary = Mutex<[String: Image]>([:])
        for key in keys {
            let image = try pixel()
            cache.setObject(image, forKey: key, cost: 4)
            dictionary.withLock { $0[key] = image }
        }
        let measure = Measure(iterations: 31)
        let hit = measure.median {
            for key in order { blackHole(cache.object(forKey: key)) }
        } / Double(batch)
        let dictionaryHit = measure.median {
            for key in order { blackHole(dictionary.withLock { $0[key] }) }
        } / Double(batch)
        Comparison(name: "MemoryCache hit, 10,000 entries", ours: hit, baselines: [("Mutex<Dictionary>", dictionaryHit)])
            .printed()

        let store = measure.median {
            for key in order { cache.setObject(image, forKey: key, cost: 4) }
        } / Double(batch)
        let dictionaryStore = measure.median {
            for key in order { dictionary.withLock { $0[key] = image } }
        } / Double(batch)
        Comparison(name: "MemoryCache store, 10,000 entries", ours: store, baselines: [("Mutex<Dictionary>", dictionaryStore)])
            .printed()
    }

    /// The same total number of hits from one thread, then split over two (distinct images per
    /// entry, as in real use, so the threads do not share one image's reference count).
    private static func memoryCacheContention() throws {
        let keys = keys()
        let order = lookupOrder(keys)
        let cache = MemoryCache()
        for key in keys { cache.setObject(try pixel(), forKey: key, cost: 4) }
        let measure = Measure(iterations: 11)
        let rounds = 20
        let oneThread = measure.median {
            for _ in 0..<(2 * rounds) {
                for key in order { blackHole(cache.object(forKey: key)) }
            }
        }
        let twoThreads = measure.median {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                for _ in 0..<rounds {
                    for key in order { blackHole(cache.object(forKey: key)) }
                }
            }
        }
        Comparison(name: "MemoryCache 400,000 hits on two threads", ours: twoThreads, baselines: [("one thread", oneThread)])
            .printed()
    }

    private static func diskCache() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/webimage-cache-benchmark-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let key = "https://images.example.com/photos/1/large.jpg"
        try cache.setData(payload, forKey: key)
        guard let path = cache.cachePath(forKey: key) else { return }

        let measure = Measure(iterations: 201)
        let read = measure.median { blackHole(cache.data(forKey: key)) }
        let fileManagerRead = measure.median { blackHole(FileManager.default.contents(atPath: path)) }
        Comparison(name: "DiskCache read, 100 KB", ours: read, baselines: [("FileManager.contents", fileManagerRead)])
            .printed()

        let plainFolder = folder + "/plain"
        try FileManager.default.createDirectory(atPath: plainFolder, withIntermediateDirectories: true)
        let storeMeasure = Measure(iterations: 51)
        var index = 0
        let store = try storeMeasure.median {
            index += 1
            try cache.setData(payload, forKey: "store-\(index % 50)")
        }
        let plainStore = try storeMeasure.median {
            index += 1
            try payload.write(to: URL(fileURLWithPath: plainFolder + "/\(index % 50)"), options: .atomic)
        }
        Comparison(name: "DiskCache store, 100 KB (fsync)", ours: store, baselines: [("Data.write(.atomic)", plainStore)])
            .printed()
    }

    private static func pixel() throws -> Image {
        guard let image = Image(rgba8Pixels: [UInt8](repeating: 255, count: 4), width: 1, height: 1) else {
            throw CocoaError(.coderInvalidValue)
        }
        return image
    }

    /// Keeps the optimizer from dropping a result.
    @inline(never)
    private static func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }
}
