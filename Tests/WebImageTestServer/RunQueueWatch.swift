import Foundation

/// The time the threads of some processes, and of their children, spend runnable but waiting
/// for a processor (Linux's `/proc/PID/task/TID/schedstat`, its second field), sampled every
/// 5 ms from the watch's start to its stop: what a loaded machine adds to their wall time. A
/// thread that ends between two samples loses at most its last 5 ms; the waits of threads that
/// wait at the same time add up, so on a loaded machine the sum can pass what they cost the
/// wall time (a bound built on it is then looser, never tighter). Zero where the kernel keeps
/// no scheduler statistics.
public final class RunQueueWatch: Sendable {
    /// The waits sampled (each thread's at the start, 0 for threads born later; the latest),
    /// and whether to stop. A thread of its own samples them: on the cooperative pool, the
    /// sampling waited behind the tests' own work and missed processes that ended meanwhile.
    private let state = RunQueueSamples()
    private let done = DispatchSemaphore(value: 0)

    /// Starts watching `processes` (and their children, those started later included), from
    /// now, or from their start when they were `justStarted`.
    public init(_ processes: [Int32], justStarted: Bool = false) {
        var latest: [String: Int] = [:]
        for process in processes { Self.sample(process, into: &latest) }
        state.set(first: justStarted ? [:] : latest, latest: latest)
        let thread = Thread { [state, done] in
            while !state.isStopping {
                usleep(5_000)
                var latest = state.latest
                for process in processes { Self.sample(process, into: &latest) }
                state.set(latest: latest)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops the watch; the time the watched threads waited for a processor since it started.
    public func stop() async -> Duration {
        state.stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [done] in
                done.wait()
                continuation.resume()
            }
        }
        return .nanoseconds(state.waited)
    }

    /// Reads the runqueue wait of every thread of `process` and of its children into `waits`.
    private static func sample(_ process: Int32, into waits: inout [String: Int]) {
        let tasks = "/proc/\(process)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return }
        for thread in threads {
            let folder = "\(tasks)/\(thread)"
            let fields = text(of: folder + "/schedstat").split(separator: " ")
            if fields.count >= 2, let waited = Int(fields[1]) {
                waits["\(process)/\(thread)"] = waited
            }
            for child in text(of: folder + "/children").split(separator: " ").compactMap({ Int32($0) }) { sample(child, into: &waits) }
        }
    }

    /// A small /proc file's text ("" when it cannot be read), read with one `read`: Foundation's
    /// whole-file reads keep a 4 KB buffer for each file that states no size, as /proc's do
    /// (200,000 samples leaked 870 MB in an AddressSanitizer run).
    private static func text(of path: String) -> String {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return "" }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: bytes.prefix(count), as: UTF8.self) : ""
    }
}

/// `RunQueueWatch`'s samples, shared by its thread and its caller.
///
/// `@unchecked Sendable`: every field is read and written under `lock`.
private final class RunQueueSamples: @unchecked Sendable {
    private let lock = NSLock()
    private var first: [String: Int] = [:]
    private var latestWaits: [String: Int] = [:]
    private var stopping = false

    var isStopping: Bool { lock.withLock { stopping } }
    var latest: [String: Int] { lock.withLock { latestWaits } }
    /// Nanoseconds waited since the start, over every thread seen.
    var waited: Int { lock.withLock { latestWaits.reduce(0) { $0 + $1.value - (first[$1.key] ?? 0) } } }

    func set(first: [String: Int]? = nil, latest: [String: Int]) {
        lock.withLock {
            if let first { self.first = first }
            latestWaits = latest
        }
    }

    func stop() { lock.withLock { stopping = true } }
}
