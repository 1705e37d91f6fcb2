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

    /// What a loaded machine adds to a wait a test times on the wall clock: the whole suite's
    /// tests share two cores and their cooperative threads, and a resumed test has waited its
    /// turn for 30 s (seen in CI); four times that. Bounds built on it stay under the 10-minute
    /// waits they tell apart (a server's answer, a retry's base delay, a connect timeout), also
    /// stretched for ThreadSanitizer (4x: 484 s for a 1 s wait).
    public static let loadMargin = Duration.seconds(120)

    /// The bound of a wall-clock wait that takes `alone` on a quiet machine: `alone` plus
    /// `loadMargin`, stretched by `timeScale`.
    public static func bound(_ alone: Duration) -> Duration { time(alone + loadMargin) }

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
