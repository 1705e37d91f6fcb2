import Dispatch
import Foundation

extension ImageCache {
    /// Seconds between two reads of the cgroup memory files.
    static let memoryWatchInterval: TimeInterval = 5

    /// Frees memory: halves the memory tier's cost (least recently used first), or empties it
    /// when it is not a `MemoryCache`. Called when the cgroup nears its limit; callers with their
    /// own pressure signal may call it too.
    public func trimMemoryForPressure() {
        if let cache = memoryCache as? MemoryCache {
            cache.trim(toCost: cache.totalCost / 2)
        } else {
            memoryCache.removeAllObjects()
        }
        CacheObservability.logger.debug("memory pressure: memory cache trimmed to \(memoryCache.totalCost) bytes")
    }

    /// Polls the cgroup memory files in `folder` every `interval` seconds while `cache` lives,
    /// when the process runs under a cgroup v2 memory limit; does nothing elsewhere.
    /// `afterCheck` runs after each poll (tests await it).
    static func watchMemoryPressure(
        of cache: ImageCache, folder: String = CgroupMemoryStatus.defaultFolder,
        interval: TimeInterval = memoryWatchInterval, afterCheck: (@Sendable () -> Void)? = nil
    ) {
        guard CgroupMemoryStatus.read(folder: folder) != nil else { return }
        scheduleMemoryCheck(of: cache, folder: folder, interval: interval, afterCheck: afterCheck)
    }

    private static func scheduleMemoryCheck(
        of cache: ImageCache, folder: String, interval: TimeInterval, afterCheck: (@Sendable () -> Void)?
    ) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + interval) { [weak cache] in
            guard let cache else { return }
            if CgroupMemoryStatus.read(folder: folder)?.isUnderPressure == true { cache.trimMemoryForPressure() }
            afterCheck?()
            scheduleMemoryCheck(of: cache, folder: folder, interval: interval, afterCheck: afterCheck)
        }
    }
}
