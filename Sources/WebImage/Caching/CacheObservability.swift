import Logging
import Metrics

/// The cache's logger.
enum CacheObservability {
    static let logger = Logger(label: "swift-webimage.cache")
}

/// The lookup counters of a cache: `webimage_cache_lookups_total{tier="memory"|"disk",
/// result="hit"|"miss"}`, from the config's `metricsFactory` or the global backend.
struct CacheLookupCounters: Sendable {
    private let memoryHits: Counter
    private let memoryMisses: Counter
    private let diskHits: Counter
    private let diskMisses: Counter

    static let label = "webimage_cache_lookups_total"

    /// The counters of the global `MetricsSystem.factory`, made on first use, so they report to
    /// the backend bootstrapped before the first cache lookup.
    static let global = CacheLookupCounters(factory: MetricsSystem.factory)

    init(factory: any MetricsFactory) {
        func counter(tier: String, result: String) -> Counter {
            Counter(label: Self.label, dimensions: [("tier", tier), ("result", result)], factory: factory)
        }
        memoryHits = counter(tier: "memory", result: "hit")
        memoryMisses = counter(tier: "memory", result: "miss")
        diskHits = counter(tier: "disk", result: "hit")
        diskMisses = counter(tier: "disk", result: "miss")
    }

    /// Counts one memory tier lookup.
    func countMemoryLookup(hit: Bool) {
        (hit ? memoryHits : memoryMisses).increment()
    }

    /// Counts one disk tier lookup.
    func countDiskLookup(hit: Bool) {
        (hit ? diskHits : diskMisses).increment()
    }
}
