import Foundation

/// How much memory an animation player may use for frames decoded ahead.
enum AvailableMemory {
    /// The lesser of 20 % of the total memory and 60 % of the free memory (SDWebImage's
    /// factors), where total and free are the cgroup's limit and headroom when it has one.
    static var frameBufferBytes: Int {
        if let cgroup = CgroupMemoryStatus.read() {
            return min(cgroup.limit / 5, max(0, cgroup.limit - cgroup.usage) / 10 * 6)
        }
        let total = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        return min(total / 5, (availableBytes() ?? total) / 10 * 6)
    }

    /// MemAvailable from /proc/meminfo.
    private static func availableBytes() -> Int? {
        guard let data = CacheFile.readToEnd("/proc/meminfo"), let text = String(data: data, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }
}
