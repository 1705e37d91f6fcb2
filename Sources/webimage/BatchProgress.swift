import Foundation

/// What a `convert` run shows as it goes: on a terminal a progress bar redrawn in place (done/total,
/// images a second, time left), otherwise one `done/total` line per image; each failure one line
/// on stderr naming the input; at the end the summary line.
struct BatchProgress {
    private let total: Int
    private let terminal: Bool
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var converted = 0, failed = 0, skipped = 0
    private var bytesIn = 0, bytesOut = 0

    init(total: Int, terminal: Bool) {
        self.total = total
        self.terminal = terminal
    }

    private var done: Int { converted + failed + skipped }
    var hasFailures: Bool { failed > 0 }

    mutating func record(_ outcome: BatchOutcome) {
        switch outcome {
        case .converted(let written):
            converted += 1
            bytesIn += written.bytesIn
            bytesOut += written.bytesOut
        case .skipped:
            skipped += 1
        case .failed(let argument, let reason):
            failed += 1
            // The bar's line is cleared first, so that the failure does not end up after it.
            if terminal, lastDrawn != nil { write("\r\u{1B}[K", to: .standardOutput) }
            write("\(argument): \(reason)\n", to: .standardError)
            lastDrawn = nil
        }
        guard terminal else { return write("\(done)/\(total)\n", to: .standardOutput) }
        // Redrawn at most ten times a second (and always at the end): a terminal is slow to
        // scroll thousands of lines.
        let now = ContinuousClock.now
        if done == total || lastDrawn.map({ now - $0 >= .milliseconds(100) }) ?? true {
            lastDrawn = now
            write("\r" + Self.bar(done: done, total: total, elapsed: now - started) + "\u{1B}[K" + (done == total ? "\n" : ""), to: .standardOutput)
        }
    }

    /// `[#########           ] 120/200  85.3 images/s  0:01 left`
    static func bar(done: Int, total: Int, elapsed: Duration) -> String {
        let width = 30
        let filled = total > 0 ? done * width / total : width
        let seconds = Self.seconds(elapsed)
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let left = rate > 0 ? Int((Double(total - done) / rate).rounded(.up)) : nil
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + "\(done)/\(total)  " + String(format: "%.1f images/s", rate)
            + (left.map { String(format: "  %d:%02d left", $0 / 60, $0 % 60) } ?? "")
    }

    /// `converted 198, failed 1, skipped 1, 25.1 MB in, 2.0 MB out, 2.41 s`
    func summary() -> String {
        let seconds = Self.seconds(ContinuousClock.now - started)
        return "converted \(converted), failed \(failed), skipped \(skipped), "
            + "\(Self.size(bytesIn)) in, \(Self.size(bytesOut)) out, " + String(format: "%.2f s", seconds)
    }

    /// `812 bytes`, `45.2 kB`, `25.1 MB` (decimal units).
    private static func size(_ bytes: Int) -> String {
        switch bytes {
        case ..<1000: "\(bytes) bytes"
        case ..<1_000_000: String(format: "%.1f kB", Double(bytes) / 1000)
        default: String(format: "%.1f MB", Double(bytes) / 1_000_000)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private enum Stream { case standardOutput, standardError }

    private func write(_ text: String, to stream: Stream) {
        (stream == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError).write(Data(text.utf8))
    }
}
