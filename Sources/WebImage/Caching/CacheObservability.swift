import Logging
import Metrics

/// The cache's logger and counters. The counters are made on first use, so they report to the
/// metrics backend bootstrapped before the first cache lookup.
enum CacheObservability {
    static let logger = Logger(label: "swift-webimage.cache")

    private static let memoryHits = lookupCounter(tier: "memory", result: "hit")
    private static let memoryMisses = lookupCounter(tier: "memory", result: "miss")
    private static let diskHits = lookupCounter(tier: "disk", result: "hit")
    private static let diskMisses = lookupCounter(tier: "disk", result: "miss")

    private static func lookupCounter(tier: String, result: String) -> Counter {
        Counter(label: "webimage_cache_lookups_total", dimensions: [("tier", tier), ("result", result)])
    }

    /// Counts one memory tier lookup (`webimage_cache_lookups_total{tier="memory", result}`).
    static func countMemoryLookup(hit: Bool) {
        (hit ? memoryHits : memoryMisses).increment()
    }

    /// Counts one disk tier lookup (`webimage_cache_lookups_total{tier="disk", result}`).
    static func countDiskLookup(hit: Bool) {
        (hit ? diskHits : diskMisses).increment()
    }
}
