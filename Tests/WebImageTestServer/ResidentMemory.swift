import Foundation

/// This process's resident memory, from `/proc/self/status` (Linux), for tests that bound what
/// a piece of work may cost.
public enum ResidentMemory {
    /// Bytes resident now (`VmRSS`).
    public static var current: Int { statusField("VmRSS:") }

    /// The most bytes resident since the process started or `resetPeak()` (`VmHWM`).
    public static var peak: Int { statusField("VmHWM:") }

    /// Starts the peak again from what is resident now (writing 5 to `/proc/self/clear_refs`).
    public static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// A field of /proc/self/status, in bytes (0 when it cannot be read).
    private static func statusField(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return 0 }
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
}
