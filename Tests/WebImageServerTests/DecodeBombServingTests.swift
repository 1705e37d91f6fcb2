import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

extension Heavy {
    /// Issue 35, part 3: every decode bomb of docs/reliability.md ("The bombs"), made by
    /// scripts/decode-bombs/bombs.py into a local root, asked of `webimage serve` (a process of its
    /// own, its defaults) by its imgproxy URL: each request ends within the server's `TIMEOUT` with
    /// 422 (or 503), or 200 for the cases that decode; the server's peak resident memory across the
    /// request stays within the case's bound over what was resident before it; no worker stays
    /// busy; and the next request is served at once.
    @Suite(.offThePool, .timeLimit(.minutes(TestAllowance.minutes(10)))) struct DecodeBombServingTests {
        /// The server's default `TIMEOUT`, and a second for the exchange itself.
        static let requestBound = Duration.seconds(ImageServerConfiguration().timeout) + .seconds(1)
        /// The bound of a budget-stopped decode's CPU time: the budget and the case's margin
        /// (cases.tsv: what it may take past the budget, docs/reliability.md, "The time
        /// budget": the process's start and end, the child renderer's start before it counts,
        /// the answer, and the encoder's work on the frames of an animation the budget let
        /// through). The budget is checked inside each unit of work (a row of blocks, of
        /// macroblocks, of a kernel; a frame), so that the work past it is that, not the rest of
        /// a unit. CPU time, not the wall less the time spent waiting for a processor: with a
        /// CPU hog pinned to one core, that measure (sampled every 5 ms, and lost for threads
        /// that end between samples) put an APNG canvas stopped at its 5 s at 5.39 s.
        static func budgetBound(_ budget: Duration, margin: Duration) -> Duration {
            TestAllowance.time(budget + margin)
        }

        /// One line of bombs.py's cases.tsv, as served.
        struct Case: CustomStringConvertible {
            let name: String
            let bombClass: String
            let file: String
            /// The `webimage` command, `{in}` and `{out}` for the file and the output's name.
            let arguments: String
            let imgproxy: String
            /// How it ends: `refused`, `budget:B` (stopped by the budget B), `within:B`, ...
            let end: String
            /// For `budget:B` and `within:B`, what it may take past B.
            let margin: Duration
            /// 422 (refused, stopped by the budget or an encode limit), 503 (the request's
            /// timeout), or 200 for what the server decodes.
            let statuses: Set<Int>
            /// The peak resident memory over what was resident before the request.
            let peakBytes: Int

            init?(line: Substring) {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard fields.count == 10, let peak = Int(fields[9]), let seconds = Double(fields[6]) else { return nil }
                margin = .milliseconds(Int((seconds * 1000).rounded()))
                (name, bombClass, file, arguments, imgproxy, end) = (fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
                statuses = Set(fields[8].split(separator: "/").compactMap { Int($0) })
                peakBytes = peak << 20
            }

            var path: String { "/unsafe/" + imgproxy.replacingOccurrences(of: "{url}", with: "local:///" + file) }
            /// The budget that stops it (`budget:B`), with the default `decodeTimeBudget`.
            var stoppingBudget: Duration? {
                guard end.hasPrefix("budget:") else { return nil }
                let budgets = DecodeTimeBudget()
                return switch end.dropFirst(7) {
                case "thumbnail": budgets.thumbnail
                case "full": budgets.fullSize
                default: budgets.animation
                }
            }
            var description: String { "\(name) (\(bombClass))" }
        }

        static let repository = TestServer.imagesFolder.deletingLastPathComponent().deletingLastPathComponent()

        /// Every bomb (or those of `bombs`: names or classes), written into `folder` by the one
        /// generator; their cases.
        static func generate(into folder: URL, only bombs: [String] = []) async throws -> [Case] {
            let script = repository.appendingPathComponent("scripts/decode-bombs/bombs.py")
            _ = try await ServeProcess.output(of: ["python3", script.path, folder.path] + bombs, executable: URL(fileURLWithPath: "/usr/bin/env"))
            let table = try String(contentsOf: folder.appendingPathComponent("cases.tsv"), encoding: .utf8)
            return table.split(separator: "\n").compactMap(Case.init(line:))
        }

        /// A field of /proc/PID/status, in bytes.
        static func statusField(_ name: String, of pid: Int32) throws -> Int {
            let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name) })
            return try #require(line.split(separator: " ").compactMap { Int($0) }.first) * 1024
        }

        /// `webimage_server_workers_busy` now.
        static func busyWorkers(metricsPort: Int) async throws -> Double {
            let metrics = try await ServerUnderTest.get("/metrics", port: metricsPort)
            let line = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("webimage_server_workers_busy ") }
            return try #require(line?.split(separator: " ").last.flatMap { Double($0) })
        }

        /// Issue 35, item 5: each decode its budget stops, run by `webimage convert` as a process,
        /// ends within its budget and its margin of CPU time, the process's start and end
        /// included (and the renderer's, for a PDF or SVG): its work, whatever the machine's load.
        /// Over HTTP, the test below asks the same of each request the budget stops.
        @Test func everyDecodeTheBudgetStopsEndsWithinItsBudgetOfWorkFromTheCommandLine() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-budget-bombs-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let cases = try await Self.generate(into: root, only: ["pdfforms", "svgrects", "svgrects10k", "gifrestore", "apng100mp"])
                .filter { $0.stoppingBudget != nil }
            #expect(cases.count == 6, "\(cases)")
            for bomb in cases {
                let budget = try #require(bomb.stoppingBudget)
                let arguments = bomb.arguments.replacingOccurrences(of: "{in}", with: bomb.file)
                    .replacingOccurrences(of: "{out}", with: "out-" + bomb.name).split(separator: " ").map(String.init)
                let clock = ContinuousClock()
                let start = clock.now
                let run = try await ServeProcess.run(arguments, in: root)
                let elapsed = clock.now - start
                #expect(run.status == 1 && run.standardError.contains("decodeTimeBudget"), "\(bomb): \(run.status) \(run.standardError)")
                #expect(run.cpuTime < Self.budgetBound(budget, margin: bomb.margin), "\(bomb): took \(run.cpuTime) of CPU")
                print("decode bombs: \(bomb) through the command line: \(run.cpuTime) of CPU in \(elapsed)")
            }
        }

        @Test func everyDecodeBombOverHTTPEndsInTimeWithinItsMemoryAndLeavesTheServerServing() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-decode-bombs-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let cases = try await Self.generate(into: root)
            #expect(cases.count >= 30, "\(cases.count) cases")
            try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("photos/rocket.jpg"))
                .write(to: root.appendingPathComponent("rocket.jpg"))

            let metricsPort = try FreePort.next()
            // The defaults, but for `TIMEOUT` under a sanitizer: stretched as the bounds are (the
            // vector a case draws took over 10 s under ThreadSanitizer beside other work).
            let settings = [
                "--local-filesystem-root", root.path, "--cache-dir", root.appendingPathComponent(".cache").path,
                "--prometheus-bind", "127.0.0.1:\(metricsPort)", "--timeout", String(Int(TestAllowance.seconds(ImageServerConfiguration().timeout))),
            ]
            try await withServeProcess(settings, environment: TestAllowance.peakMeasuringEnvironment) { server in
                let pid = server.processIdentifier
                // Warm: the libraries loaded and a thumbnail made, so that the peaks are of a working server.
                #expect(try await ServerUnderTest.get("/unsafe/rs:fit:300:200/plain/local:///rocket.jpg@jpg", port: server.port).status == 200)

                for (index, bomb) in cases.enumerated() {
                    let before = try Self.statusField("VmRSS:", of: pid)
                    try "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
                    // The server's CPU time across the request (its renderer's included): the
                    // work the request cost, whatever the machine's load.
                    let cpuBefore = try #require(processCPUTime(of: pid))
                    let clock = ContinuousClock()
                    let start = clock.now
                    let reply = try await ServerUnderTest.get(bomb.path, port: server.port, deadline: .seconds(60))
                    let elapsed = clock.now - start
                    let cpu = try #require(processCPUTime(of: pid)) - cpuBefore
                    let peak = try Self.statusField("VmHWM:", of: pid)
                    #expect(bomb.statuses.contains(reply.status), "\(bomb): \(reply.status) \(String(decoding: reply.body.prefix(200), as: UTF8.self))")
                    #expect(elapsed < TestAllowance.time(Self.requestBound), "\(bomb): took \(elapsed)")
                    if let budget = bomb.stoppingBudget {
                        #expect(cpu < Self.budgetBound(budget, margin: bomb.margin), "\(bomb): took \(cpu) of CPU in \(elapsed)")
                        print("decode bombs: \(bomb) over HTTP: \(reply.status), \(cpu) of CPU in \(elapsed)")
                    }
                    #expect(peak - before < TestAllowance.bytes(bomb.peakBytes), "\(bomb): peak \(peak >> 20) MB against \(before >> 20) MB before")
                    // The next request (a thumbnail no cache holds) is served at once, by a free
                    // worker: within 2 s of the server's time not spent waiting for a processor.
                    let (next, nextElapsed, nextUnloaded) = try await TestAllowance.wallTime(watching: [pid]) {
                        try await ServerUnderTest.get("/unsafe/rs:fit:\(100 + index):100/plain/local:///rocket.jpg@jpg", port: server.port, deadline: .seconds(30))
                    }
                    #expect(next.status == 200, "after \(bomb)")
                    #expect(nextUnloaded < TestAllowance.time(.seconds(2)), "after \(bomb): the next request took \(nextElapsed), \(nextUnloaded) of it unloaded")
                }
                // No worker left busy: a decode that outlived its request's timeout ends at its
                // budget (at most the animation's 5 s of CPU); past that, a hang guard.
                let idle = await eventually(within: .seconds(5) + TestAllowance.eventWait, every: .milliseconds(100)) {
                    (try? await Self.busyWorkers(metricsPort: metricsPort)) == 0
                }
                #expect(idle)
                server.signal(SIGTERM)
                #expect(await server.exitStatus() == 0)
            }
        }
    }
}
