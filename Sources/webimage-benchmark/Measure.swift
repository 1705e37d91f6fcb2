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
