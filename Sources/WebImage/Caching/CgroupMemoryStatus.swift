import Foundation

/// The memory limit and usage of this process's cgroup (v2). Linux has no memory-pressure
/// event for user space and `ProcessInfo.physicalMemory` reports the host, so in a container the
/// cgroup files are what tell how close the process is to being killed.
struct CgroupMemoryStatus: Equatable {
    /// `memory.max`, in bytes.
    let limit: Int
    /// `memory.current`, in bytes.
    let usage: Int

    /// The cgroup v2 folder of this process: `/sys/fs/cgroup` plus the path in `/proc/self/cgroup`
    /// (`0::/path`), or `/sys/fs/cgroup` itself when that cannot be read.
    static let defaultFolder: String = {
        let root = "/sys/fs/cgroup"
        guard let data = CacheFile.readToEnd("/proc/self/cgroup"), let text = String(data: data, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
        else { return root }
        let path = line.dropFirst(3)
        return path == "/" ? root : root + path
    }()

    /// The status from `folder`, or nil when it has no memory limit ("max", or no such files).
    static func read(folder: String = defaultFolder) -> CgroupMemoryStatus? {
        guard let limit = number(in: folder + "/memory.max"), limit > 0,
              let usage = number(in: folder + "/memory.current")
        else { return nil }
        return CgroupMemoryStatus(limit: limit, usage: usage)
    }

    /// True at 90 % of the limit or more.
    var isUnderPressure: Bool { usage >= limit / 10 * 9 }

    private static func number(in path: String) -> Int? {
        guard let data = CacheFile.readToEnd(path), let text = String(data: data, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
