import Foundation

/// The CPU time a running process has taken, its threads' and its reaped children's, user and
/// system (Linux's `/proc/PID/stat`, in clock ticks: 10 ms): what the process did, whatever else
/// the machine ran meanwhile. Nil when the process is gone.
public func processCPUTime(of process: Int32) -> Duration? {
    guard let text = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
          let end = text.lastIndex(of: ")")
    else { return nil }
    // After the command's name: state, ppid, ... utime (14th field), stime, cutime, cstime.
    let fields = text[text.index(after: end)...].split(separator: " ")
    guard fields.count > 14 else { return nil }
    let ticks = fields[11...14].compactMap { Int($0) }.reduce(0, +)
    return .milliseconds(ticks * 1000 / sysconf(Int32(_SC_CLK_TCK)))
}
