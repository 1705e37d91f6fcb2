import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WebImage

/// `webimage-benchmark job [IMAGE...]`: the whole thumbnail job (bytes in, 300x200 JPEG q80 bytes
/// out, `CoderBenchmarks.oursThumbnailJob`) against Pillow's (`draft` + `thumbnail` + save) in
/// alternating rounds. One Pillow process stays open (`pillow-benchmark.py --serve`); a round
/// has it run its job a sample's worth of times and runs ours as many times in this process,
/// the order alternating from round to round, so that the machine's changing speed falls on both
/// alike. Printed: the median times, and the median and quartiles of the rounds' ratios, in wall
/// time and in CPU time (each process's own).
enum JobBenchmarks {
    static let defaultPaths = ["photos/rocket.jpg", "photos/astronaut.png"]
    /// The target of issue 34 on these images: ours at most this share of Pillow's time.
    static let target = 0.6

    static func run(paths: [String], rounds: Int = 21) throws {
        let testdata = try CoderBenchmarks.testdataDirectory()
        let pillow = try PillowServer()
        defer { pillow.close() }
        print("\n== Thumbnail job (\(CoderBenchmarks.boxWidth)x\(CoderBenchmarks.boxHeight) JPEG q\(CoderBenchmarks.quality)) against Pillow \(pillow.version), \(rounds) alternating rounds ==")
        print("load average at start: \(CoderBenchmarks.loadAverage())")
        for path in paths {
            let url = testdata.appendingPathComponent(path)
            let data = try Data(contentsOf: url)
            let ours = { _ = try CoderBenchmarks.oursThumbnailJob(data) }
            // Warm-up of both, and a sample of about 50 ms of ours.
            for _ in 0..<3 { try ours() }
            _ = try pillow.time(url.path, count: 3)
            let once = try sample(ours, count: 5).wall
            let count = max(5, min(500, Int((0.05 / max(once, 1e-6)).rounded(.up))))
            var oursTimes: [Double] = [], pillowTimes: [Double] = [], wallRatios: [Double] = [], cpuRatios: [Double] = []
            for round in 0..<rounds {
                let mine: (wall: Double, cpu: Double)
                let theirs: (wall: Double, cpu: Double)
                if round.isMultiple(of: 2) {
                    mine = try sample(ours, count: count)
                    theirs = try pillow.time(url.path, count: count)
                } else {
                    theirs = try pillow.time(url.path, count: count)
                    mine = try sample(ours, count: count)
                }
                oursTimes.append(mine.wall)
                pillowTimes.append(theirs.wall)
                wallRatios.append(mine.wall / theirs.wall)
                cpuRatios.append(mine.cpu / max(theirs.cpu, 1e-9))
            }
            let wall = Quartiles(wallRatios), cpu = Quartiles(cpuRatios)
            print(
                "\(path.padding(toLength: 22, withPad: " ", startingAt: 0)) ours \(Comparison.format(Quartiles(oursTimes).median))"
                    + " | Pillow \(Comparison.format(Quartiles(pillowTimes).median))"
                    + String(format: " ratio %.2fx (%.2f – %.2f), CPU %.2fx (%.2f – %.2f) %@ (target <= %.1fx; %d jobs a sample)",
                             wall.median, wall.lower, wall.upper, cpu.median, cpu.lower, cpu.upper,
                             wall.median <= target ? "MET" : "NOT MET", target, count)
            )
        }
        print("load average at end: \(CoderBenchmarks.loadAverage())")
    }

    /// Seconds one run of `body` took, wall and process CPU time, over `count` runs.
    static func sample(_ body: () throws -> Void, count: Int) throws -> (wall: Double, cpu: Double) {
        let clock = ContinuousClock()
        let cpu = CoderBenchmarks.processCPUTime()
        let start = clock.now
        for _ in 0..<count { try body() }
        let wall = (clock.now - start).seconds
        return (wall / Double(count), (CoderBenchmarks.processCPUTime() - cpu) / Double(count))
    }

    /// The median and quartiles of some values.
    struct Quartiles {
        let lower: Double, median: Double, upper: Double

        init(_ values: [Double]) {
            let sorted = values.sorted()
            func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q + 0.5))] }
            (lower, median, upper) = (at(0.25), at(0.5), at(0.75))
        }
    }

    /// `scripts/pillow-benchmark.py --serve`, kept running: asked for a sample, it answers with
    /// its time.
    final class PillowServer {
        private(set) var version = "?"
        private let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private var buffered = Data()

        init() throws {
            guard let script = CoderBenchmarks.repositoryRoots().map({ $0.appendingPathComponent("scripts/pillow-benchmark.py") })
                .first(where: { FileManager.default.fileExists(atPath: $0.path) })
            else { throw CoderBenchmarks.Failure(description: "scripts/pillow-benchmark.py not found") }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [CoderBenchmarks.pillowPython(), script.path, "--serve", "--width", "\(CoderBenchmarks.boxWidth)",
                                 "--height", "\(CoderBenchmarks.boxHeight)", "--quality", "\(CoderBenchmarks.quality)"]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            version = try readLine()
        }

        /// Seconds one of Pillow's thumbnail jobs on `path` took, wall and CPU, over `count` jobs.
        func time(_ path: String, count: Int) throws -> (wall: Double, cpu: Double) {
            input.fileHandleForWriting.write(Data("\(path) \(count)\n".utf8))
            let fields = try readLine().split(separator: " ").compactMap { Double($0) }
            guard fields.count == 2 else { throw CoderBenchmarks.Failure(description: "pillow-benchmark.py --serve answered oddly") }
            return (fields[0], fields[1])
        }

        func close() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        private func readLine() throws -> String {
            while true {
                if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffered[buffered.startIndex..<end], as: UTF8.self)
                    buffered = Data(buffered[(end + 1)...])
                    return line
                }
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { throw CoderBenchmarks.Failure(description: "pillow-benchmark.py --serve stopped (is Pillow installed? scripts/pillow-venv.sh)") }
                buffered += more
            }
        }
    }
}
