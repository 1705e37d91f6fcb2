import Foundation

/// Times closures and prints each against a baseline measured in the same process, since on
/// shared machines absolute times mean little and ratios measured side by side do.
struct Measure {
    /// Runs of each closure; the median is reported.
    var iterations: Int
    /// Untimed runs first (caches, lazy set-up).
    var warmup: Int = 2

    /// Median wall time of `body` in seconds.
    func median(_ body: () throws -> Void) rethrows -> Double {
        for _ in 0..<warmup { try body() }
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let elapsed = try clock.measure(body)
            samples.append(elapsed.seconds)
        }
        samples.sort()
        return samples[samples.count / 2]
    }
}

/// One printed comparison: our time, and each baseline's time with our time divided by it.
struct Comparison {
    let name: String
    let ours: Double
    let baselines: [(String, Double)]

    func printed() {
        var line = "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) ours \(Self.format(ours))"
        for (label, time) in baselines {
            line += " | \(label) \(Self.format(time)) ratio \(String(format: "%.2f", ours / time))x"
        }
        print(line)
    }

    static func format(_ seconds: Double) -> String {
        if seconds < 1e-6 { return String(format: "%.0f ns", seconds * 1e9) }
        if seconds < 1e-3 { return String(format: "%.1f us", seconds * 1e6) }
        return String(format: "%.2f ms", seconds * 1e3)
    }
}

extension Duration {
    /// This duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Ours against one baseline as the median of per-round ratios: each round times the two back
/// to back (the order alternating), so that load which changes between rounds moves both sides
/// of a ratio alike; an operation under a few milliseconds is repeated within a sample, so that
/// a sample is not a timer tick or one scheduling delay. The quartiles show the spread. Wall
/// time, and the process's CPU time (every thread's, libvips' workers included: the work done,
/// which other processes' load changes less than it changes wall time).
struct PairedRatio {
    /// Median seconds of one run of ours, and of the baseline (wall time).
    let ours: Double
    let baseline: Double
    /// Median, lower and upper quartile of ours over the baseline, round by round: wall time,
    /// then CPU time.
    let ratio: Double
    let lowerQuartile: Double
    let upperQuartile: Double
    let cpuRatio: Double
    let cpuLowerQuartile: Double
    let cpuUpperQuartile: Double

    static let shortestSample = 0.004

    init(rounds: Int, ours: () throws -> Void, baseline: () throws -> Void) throws {
        // Warm-up, and how many runs make a sample.
        func repeats(_ body: () throws -> Void) throws -> Int {
            try body()
            let start = Self.now()
            try body()
            let once = Self.now().wall - start.wall
            return max(1, min(1000, Int((Self.shortestSample / max(once, 1e-7)).rounded(.up))))
        }
        let oursRepeats = try repeats(ours)
        let baselineRepeats = try repeats(baseline)
        func sample(_ body: () throws -> Void, _ count: Int) throws -> (wall: Double, cpu: Double) {
            let start = Self.now()
            for _ in 0..<count { try body() }
            let end = Self.now()
            return ((end.wall - start.wall) / Double(count), (end.cpu - start.cpu) / Double(count))
        }
        var oursTimes: [Double] = []
        var baselineTimes: [Double] = []
        var ratios: [Double] = []
        var cpuRatios: [Double] = []
        for round in 0..<rounds {
            let (a, b): ((wall: Double, cpu: Double), (wall: Double, cpu: Double))
            if round.isMultiple(of: 2) {
                a = try sample(ours, oursRepeats)
                b = try sample(baseline, baselineRepeats)
            } else {
                b = try sample(baseline, baselineRepeats)
                a = try sample(ours, oursRepeats)
            }
            oursTimes.append(a.wall)
            baselineTimes.append(b.wall)
            ratios.append(a.wall / b.wall)
            cpuRatios.append(a.cpu / max(b.cpu, 1e-9))
        }
        func quantile(_ values: [Double], _ q: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q + 0.5))]
        }
        self.ours = quantile(oursTimes, 0.5)
        self.baseline = quantile(baselineTimes, 0.5)
        (ratio, lowerQuartile, upperQuartile) = (quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75))
        (cpuRatio, cpuLowerQuartile, cpuUpperQuartile) = (quantile(cpuRatios, 0.5), quantile(cpuRatios, 0.25), quantile(cpuRatios, 0.75))
    }

    /// Wall and process CPU time now, in seconds.
    private static func now() -> (wall: Double, cpu: Double) {
        var wall = timespec()
        var cpu = timespec()
        clock_gettime(CLOCK_MONOTONIC, &wall)
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
        return (Double(wall.tv_sec) + Double(wall.tv_nsec) * 1e-9, Double(cpu.tv_sec) + Double(cpu.tv_nsec) * 1e-9)
    }

    /// One line: the name, both wall times, and both ratios with their quartiles.
    func printed(_ name: String, baselineLabel: String) {
        print("\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) ours \(Comparison.format(ours))"
              + " | \(baselineLabel) \(Comparison.format(baseline))"
              + String(format: " ratio %.2fx (%.2f – %.2f), CPU %.2fx (%.2f – %.2f)",
                       ratio, lowerQuartile, upperQuartile, cpuRatio, cpuLowerQuartile, cpuUpperQuartile))
    }
}
