import Logging
import Metrics

/// The cache's logger and counters. Counters are made per event so they report to whatever
/// metrics backend is bootstrapped by then, even when the cache was created before.
enum CacheObservability {
    static let logger = Logger(label: "swift-webimage.cache")

    /// Counts one lookup in `tier` ("memory" or "disk") as a hit or a miss
    /// (`webimage_cache_lookups_total{tier, result}`).
    static func countLookup(tier: String, hit: Bool) {
        Counter(label: "webimage_cache_lookups_total", dimensions: [("tier", tier), ("result", hit ? "hit" : "miss")])
            .increment()
    }
}
