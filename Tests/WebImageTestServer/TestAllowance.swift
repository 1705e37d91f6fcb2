import Foundation

/// How much more time and memory a test may take when the suite runs under a sanitizer. The
/// sanitizer scripts set `WEBIMAGE_TEST_TIME_SCALE` and `WEBIMAGE_TEST_MEMORY_SCALE`
/// (ThreadSanitizer runs code several times slower and keeps shadow memory; the whole suite
/// shares two cores); a plain run reads neither, so its bounds are the ones the tests state.
/// The sanitizer runs look for races and memory errors, not for the speed and size bounds.
public enum TestAllowance {
    /// 1 in a plain run.
    public static let timeScale = scale("WEBIMAGE_TEST_TIME_SCALE")
    /// 1 in a plain run.
    public static let memoryScale = scale("WEBIMAGE_TEST_MEMORY_SCALE")

    /// `duration`, stretched by `timeScale`.
    public static func time(_ duration: Duration) -> Duration { duration * timeScale }

    /// `seconds`, stretched by `timeScale`.
    public static func seconds(_ seconds: TimeInterval) -> TimeInterval { seconds * timeScale }

    /// `minutes` stretched by `timeScale`, whole: for `.timeLimit(.minutes(…))`.
    public static func minutes(_ minutes: Int) -> Int { Int((Double(minutes) * timeScale).rounded(.up)) }

    /// How long a test waits for an event that comes in milliseconds (a request the server
    /// sees, a condition a callback sets, a port that answers) before it calls the event lost:
    /// a hang guard, not a bound on speed, for the waits that stretch it by `timeScale`
    /// (`eventually`, `TestServer.wait`). The alternatives a test tells apart with it (a
    /// server's 10-minute answer, a retry's 10-minute base delay, a connect timeout of 10
    /// minutes) are twenty times longer. The suite's tests wait behind no more than a few others
    /// (scripts/test.sh), so a wait that needs more than this is waiting behind something: a
    /// bug to find, not a margin to widen.
    public static let eventWait = Duration.seconds(30)

    /// The upper bound of a wall-clock wait that takes `alone` when nothing goes wrong, where
    /// what the test tells it from (a timeout that did not fire, a 10-minute delay taken) takes
    /// minutes: `alone` plus `eventWait`, stretched by `timeScale`. Only a hang passes it; what
    /// the work took is bounded by counts (requests, retries, bytes) beside it.
    public static func hangBound(_ alone: Duration) -> Duration { time(alone + eventWait) }

    /// The environment of a child process whose peak resident memory a test bounds: under
    /// AddressSanitizer (scripts/leak-check.sh), freed memory waits in a quarantine of up to
    /// 256 MB before it is reused, which the peak would count as kept, so the child has none.
    /// Empty in a plain run.
    public static var peakMeasuringEnvironment: [String: String] {
        ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { ["ASAN_OPTIONS": $0 + ":quarantine_size_mb=0"] } ?? [:]
    }

    /// `bytes`, stretched by `memoryScale`.
    public static func bytes(_ bytes: Int) -> Int { Int(Double(bytes) * memoryScale) }

    private static func scale(_ name: String) -> Double {
        guard let text = ProcessInfo.processInfo.environment[name], let value = Double(text), value >= 1 else { return 1 }
        return value
    }
}


extension TestAllowance {
    /// What `body` returned, the wall time it took, and that time less what the machine's load
    /// took out of it: the time the threads of `processes` (and of their children) waited,
    /// runnable, for a processor meanwhile (`RunQueueWatch`). For bounds of wall time that hold
    /// as they are on an idle machine, where the processes wait for nothing, and stay fair on a
    /// loaded one.
    public static func wallTime<T>(
        watching processes: [Int32], isolation: isolated (any Actor)? = #isolation, of body: () async throws -> T
    ) async rethrows -> (result: T, wall: Duration, unloaded: Duration) {
        let clock = ContinuousClock()
        let watch = RunQueueWatch(processes)
        let start = clock.now
        let result = try await body()
        let wall = clock.now - start
        let waited = await watch.stop()
        return (result, wall, max(.zero, wall - waited))
    }
}
