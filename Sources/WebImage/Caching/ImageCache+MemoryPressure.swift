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

    /// Polls the cgroup memory files while `cache` lives, when the process runs under a cgroup
    /// v2 memory limit; does nothing elsewhere.
    static func watchMemoryPressure(of cache: ImageCache, folder: String = CgroupMemoryStatus.defaultFolder) {
        guard CgroupMemoryStatus.read(folder: folder) != nil else { return }
        scheduleMemoryCheck(of: cache, folder: folder)
    }

    private static func scheduleMemoryCheck(of cache: ImageCache, folder: String) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + memoryWatchInterval) { [weak cache] in
            guard let cache else { return }
            if CgroupMemoryStatus.read(folder: folder)?.isUnderPressure == true { cache.trimMemoryForPressure() }
            scheduleMemoryCheck(of: cache, folder: folder)
        }
    }
}
