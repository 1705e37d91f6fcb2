import Dispatch
import Foundation
import ImageEngine
import Synchronization
import WebImage

/// The cache against the simplest code doing the same job, measured side by side (issue 3):
/// memory hits and stores against a `Dictionary` behind a `Mutex` (and our `Locked` lock against
/// `Mutex`), disk reads against
/// `FileManager`, disk stores against `Data.write(options: .atomic)`, two threads against one.
enum CacheBenchmarks {
    static func run() throws {
        print("cache")
        try memoryCache()
        try memoryCacheContention()
        try diskCache()
    }

    /// The memory-tier part of `run()` alone.
    static func runMemory() throws {
        print("cache (memory tier)")
        try memoryCache()
        try memoryCacheContention()
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
        // The same dictionary behind our lock (a pthread mutex, which ThreadSanitizer sees).
        let lockedDictionary = Locked<[String: Image]>([:])
        for key in keys {
            let image = try pixel()
            cache.setObject(image, forKey: key, cost: 4)
            dictionary.withLock { $0[key] = image }
            lockedDictionary.withLock { $0[key] = image }
        }
        let (lockedHit, mutexHit) = interleavedMedians(samples: 41) {
            for key in order { blackHole(lockedDictionary.withLock { $0[key] }) }
        } baseline: {
            for key in order { blackHole(dictionary.withLock { $0[key] }) }
        }
        Comparison(
            name: "Locked<Dictionary> hit, 10,000 entries", ours: lockedHit / Double(batch),
            baselines: [("Mutex<Dictionary>", mutexHit / Double(batch))]
        ).printed()
        let (hit, dictionaryHit) = interleavedMedians(samples: 41) {
            for key in order { blackHole(cache.object(forKey: key)) }
        } baseline: {
            for key in order { blackHole(dictionary.withLock { $0[key] }) }
        }
        Comparison(
            name: "MemoryCache hit, 10,000 entries", ours: hit / Double(batch),
            baselines: [("Mutex<Dictionary>", dictionaryHit / Double(batch))]
        ).printed()

        let (store, dictionaryStore) = interleavedMedians(samples: 41) {
            for key in order { cache.setObject(image, forKey: key, cost: 4) }
        } baseline: {
            for key in order { dictionary.withLock { $0[key] = image } }
        }
        Comparison(
            name: "MemoryCache store, 10,000 entries", ours: store / Double(batch),
            baselines: [("Mutex<Dictionary>", dictionaryStore / Double(batch))]
        ).printed()

        // At its count limit, every store of a new key evicts the least recently used one.
        let full = MemoryCache(countLimit: entryCount / 2)
        var round = 0
        let (evictingStore, plainStore) = interleavedMedians(samples: 41) {
            round += 1
            for key in order { full.setObject(image, forKey: key + "#\(round)", cost: 4) }
        } baseline: {
            for key in order { dictionary.withLock { $0[key] = image } }
        }
        Comparison(
            name: "MemoryCache store evicting, 5,000 limit", ours: evictingStore / Double(batch),
            baselines: [("Mutex<Dictionary>", plainStore / Double(batch))]
        ).printed()
    }

    /// The same total number of hits from one thread, then split over two (distinct images per
    /// entry, as in real use, so the threads do not share one image's reference count). First the
    /// same split of work that shares nothing (a dictionary per thread): what two threads can gain
    /// on this machine at its current load, the ceiling for the cache's figure.
    private static func memoryCacheContention() throws {
        let keys = keys()
        let order = lookupOrder(keys)
        let cache = MemoryCache()
        let unshared = (0..<2).map { _ in UnsharedDictionary() }
        for key in keys {
            cache.setObject(try pixel(), forKey: key, cost: 4)
            for dictionary in unshared {
                let image = try pixel()
                dictionary.state.withLock { $0[key] = image }
            }
        }
        let rounds = 20
        let (unsharedTwo, unsharedOne) = interleavedMedians(samples: 11) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for _ in 0..<rounds {
                    for key in order { blackHole(unshared[thread].state.withLock { $0[key] }) }
                }
            }
        } baseline: {
            for _ in 0..<(2 * rounds) {
                for key in order { blackHole(unshared[0].state.withLock { $0[key] }) }
            }
        }
        Comparison(
            name: "unshared work, 400,000 hits on two threads", ours: unsharedTwo, baselines: [("one thread", unsharedOne)]
        ).printed()
        // Each thread walks the keys from its own starting point, as two request handlers ask for
        // different images; both in step on the same keys is the worst case, measured after.
        let halves = [order, Array(order[(order.count / 2)...] + order[..<(order.count / 2)])]
        let (twoThreads, oneThread) = interleavedMedians(samples: 11) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for _ in 0..<rounds {
                    for key in halves[thread] { blackHole(cache.object(forKey: key)) }
                }
            }
        } baseline: {
            for _ in 0..<(2 * rounds) {
                for key in order { blackHole(cache.object(forKey: key)) }
            }
        }
        Comparison(name: "MemoryCache 400,000 hits on two threads", ours: twoThreads, baselines: [("one thread", oneThread)])
            .printed()
        let (inStep, alone) = interleavedMedians(samples: 11) {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                for _ in 0..<rounds {
                    for key in order { blackHole(cache.object(forKey: key)) }
                }
            }
        } baseline: {
            for _ in 0..<(2 * rounds) {
                for key in order { blackHole(cache.object(forKey: key)) }
            }
        }
        Comparison(
            name: "MemoryCache 400,000 hits on two threads in step (same keys at once)", ours: inStep, baselines: [("one thread", alone)]
        ).printed()
    }

    /// One thread's dictionary in the unshared-work control (`Locked` is not copyable, so boxed).
    private final class UnsharedDictionary: Sendable {
        let state = Locked<[String: Image]>([:])
    }

    private static func diskCache() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/webimage-cache-benchmark-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let key = "https://images.example.com/photos/1/large.jpg"
        try cache.setData(payload, forKey: key)
        guard let path = cache.cachePath(forKey: key) else { return }

        let (read, fileManagerRead) = interleavedMedians(samples: 201) {
            blackHole(cache.data(forKey: key))
        } baseline: {
            blackHole(FileManager.default.contents(atPath: path))
        }
        Comparison(name: "DiskCache read, 100 KB", ours: read, baselines: [("FileManager.contents", fileManagerRead)])
            .printed()

        let plainFolder = folder + "/plain"
        try FileManager.default.createDirectory(atPath: plainFolder, withIntermediateDirectories: true)
        var index = 0
        var failure: (any Error)?
        let (store, plainStore) = interleavedMedians(samples: 51) {
            index += 1
            do { try cache.setData(payload, forKey: "store-\(index % 50)") } catch { failure = error }
        } baseline: {
            index += 1
            do {
                try payload.write(to: URL(fileURLWithPath: plainFolder + "/\(index % 50)"), options: .atomic)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        Comparison(name: "DiskCache store, 100 KB (fsync)", ours: store, baselines: [("Data.write(.atomic)", plainStore)])
            .printed()

        // An image server's results can be made again: its result cache skips the flush
        // (ImageCacheConfig.diskCacheSyncsWrites). The same store, 20 KB (a thumbnail), both ways.
        var unsynced = ImageCacheConfig()
        unsynced.diskCacheSyncsWrites = false
        let withoutFlush = DiskCache(cachePath: folder + "/unsynced", config: unsynced)
        let thumbnail = payload.prefix(20_000)
        let (noFsync, fsync) = interleavedMedians(samples: 51) {
            index += 1
            do { try withoutFlush.setData(thumbnail, forKey: "store-\(index % 50)") } catch { failure = error }
        } baseline: {
            index += 1
            do { try cache.setData(thumbnail, forKey: "store-\(index % 50)") } catch { failure = error }
        }
        if let failure { throw failure }
        Comparison(name: "DiskCache store, 20 KB, no fsync", ours: noFsync, baselines: [("with fsync", fsync)]).printed()
    }

    /// Medians of `ours` and `baseline`, timed in alternation (one sample of each per round), so
    /// that load from other processes on the machine falls on both alike.
    private static func interleavedMedians(
        samples: Int, _ ours: () -> Void, baseline: () -> Void
    ) -> (ours: Double, baseline: Double) {
        let single = Measure(iterations: 1, warmup: 0)
        for _ in 0..<2 {
            ours()
            baseline()
        }
        var oursSamples: [Double] = []
        var baselineSamples: [Double] = []
        for _ in 0..<samples {
            oursSamples.append(single.median(ours))
            baselineSamples.append(single.median(baseline))
        }
        return (oursSamples.sorted()[samples / 2], baselineSamples.sorted()[samples / 2])
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
