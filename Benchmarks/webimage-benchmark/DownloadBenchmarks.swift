import AsyncHTTPClient
import Foundation
import NIOCore
import WebImage
import WebImageTestServer

/// The downloader against a bare AsyncHTTPClient loop doing the same transfers from the same
/// loopback test server, in this process: throughput at concurrency 6, CPU time per MB, and the
/// peak memory of 100 concurrent 2 MB downloads against the bytes in flight. Then the cost of
/// the source guard: the same downloads of `localhost` (resolved with getaddrinfo and pinned on
/// every download) through a guarded downloader, against unguarded ones of 127.0.0.1.
enum DownloadBenchmarks {
    static let imageCount = 500
    static let concurrency = 6
    static let rounds = 5

    static func run() async throws {
        print("download")
        let server = try await TestServer.start(addresses: ["127.0.0.1", "::1"], threads: System.coreCount)
        defer { Task { await server.shutdown() } }
        let bytes = try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("photos/rocket.jpg")).count
        print("\(imageCount) distinct URLs of photos/rocket.jpg (\(bytes) bytes), concurrency \(concurrency), decode off, \(rounds) rounds each, alternated")
        var ourTimes: [Double] = []
        var bareTimes: [Double] = []
        var ourCPU: [Double] = []
        var bareCPU: [Double] = []
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        for round in 0..<rounds {
            // A new downloader per round, so every round opens its connections afresh, as the bare loop's first does.
            let downloader = ImageDownloader(config: { var config = ImageDownloaderConfig(); config.maxConcurrentDownloads = concurrency; return config }())
            let urls = (0..<imageCount).map { server.url("/images/photos/rocket.jpg?round=\(round)&n=\($0)") }
            let (ourTime, ourSeconds) = try await timed {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for url in urls { group.addTask { try await downloader.downloadData(with: url).data.count } }
                    var total = 0
                    for try await count in group { total += count }
                    guard total == bytes * imageCount else { throw CoderBenchmarks.Failure(description: "ours: \(total) bytes") }
                }
            }
            let bareURLs = (0..<imageCount).map { server.url("/images/photos/rocket.jpg?bare=\(round)&n=\($0)").absoluteString }
            let (bareTime, bareSeconds) = try await timed {
                try await bareLoop(client: client, urls: bareURLs, expected: bytes)
            }
            ourTimes.append(ourTime)
            bareTimes.append(bareTime)
            ourCPU.append(ourSeconds)
            bareCPU.append(bareSeconds)
        }
        try await client.shutdown()
        try await guardCost(server: server, bytes: bytes)
        let ours = median(ourTimes)
        let bare = median(bareTimes)
        let megabytes = Double(bytes * imageCount) / 1_048_576
        print(String(format: "throughput: ours %.0f images/s, bare AsyncHTTPClient loop %.0f images/s: ours/bare %.2f (target >= 0.8: %@)",
                     Double(imageCount) / ours, Double(imageCount) / bare, bare / ours, bare / ours >= 0.8 ? "met" : "NOT met"))
        print(String(format: "CPU time per MB (user+system, server included): ours %.1f ms, bare %.1f ms: ratio %.2fx",
                     median(ourCPU) / megabytes * 1000, median(bareCPU) / megabytes * 1000, median(ourCPU) / median(bareCPU)))
        try await peakMemory(server: server)
    }

    /// Guarded downloads of `localhost` against unguarded ones of 127.0.0.1, alternated.
    private static func guardCost(server: TestServer, bytes: Int) async throws {
        var unguardedTimes: [Double] = []
        var guardedTimes: [Double] = []
        for round in 0..<rounds {
            for guarded in [false, true] {
                var config = ImageDownloaderConfig()
                config.maxConcurrentDownloads = concurrency
                if guarded { config.sourceGuard = SourceGuard(allowsLoopback: true) }
                let downloader = ImageDownloader(config: config)
                let urls = (0..<imageCount).map {
                    server.url("/images/photos/rocket.jpg?guard=\(guarded)&round=\(round)&n=\($0)", host: guarded ? "localhost" : "127.0.0.1")
                }
                let (time, _) = try await timed {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for url in urls { group.addTask { try await downloader.downloadData(with: url).data.count } }
                        var total = 0
                        for try await count in group { total += count }
                        guard total == bytes * imageCount else { throw CoderBenchmarks.Failure(description: "guard \(guarded): \(total) bytes") }
                    }
                }
                if guarded { guardedTimes.append(time) } else { unguardedTimes.append(time) }
            }
        }
        let unguarded = median(unguardedTimes)
        let guarded = median(guardedTimes)
        print(String(format: "source guard: unguarded %.0f images/s, guarded (localhost resolved and pinned per download) %.0f images/s: guarded/unguarded %.2f",
                     Double(imageCount) / unguarded, Double(imageCount) / guarded, unguarded / guarded))
    }

    /// 100 concurrent downloads of a 2 MB body: the growth of the peak resident memory against
    /// the 200 MB in flight.
    private static func peakMemory(server: TestServer) async throws {
        let size = 2 * 1_048_576
        let body = [UInt8](repeating: 0x5A, count: size)
        server.route("/large") { _ in .content(body, type: "application/octet-stream") }
        var config = ImageDownloaderConfig()
        config.maxConcurrentDownloads = 100
        let downloader = ImageDownloader(config: config)
        resetPeakResidentMemory()
        let before = residentMemory()
        let received = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                group.addTask { try await downloader.downloadData(with: server.url("/large?n=\(index)&chunk=65536")).data.count }
            }
            var total = 0
            for try await count in group { total += count }
            return total
        }
        let peak = peakResidentMemory()
        let inFlight = 100 * size
        print(String(format: "100 concurrent 2 MB downloads (%d MB received): peak resident memory grew %.0f MB over %.0f MB before; %.2fx the %d MB in flight (target <= 2x: %@)",
                     received / 1_048_576, Double(peak - before) / 1_048_576, Double(before) / 1_048_576,
                     Double(peak - before) / Double(inFlight), inFlight / 1_048_576, peak - before <= 2 * inFlight ? "met" : "NOT met"))
    }

    private static func bareLoop(client: HTTPClient, urls: [String], expected: Int) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0
            var total = 0
            func add() {
                guard next < urls.count else { return }
                let url = urls[next]
                next += 1
                group.addTask {
                    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                    return try await response.body.collect(upTo: 100 << 20).readableBytes
                }
            }
            for _ in 0..<concurrency { add() }
            while let count = try await group.next() {
                total += count
                add()
            }
            guard total == expected * urls.count else { throw CoderBenchmarks.Failure(description: "bare: \(total) bytes") }
        }
    }

    /// Wall seconds and CPU seconds (user + system, the whole process) of `body`.
    private static func timed(_ body: () async throws -> Void) async throws -> (Double, Double) {
        let cpuBefore = cpuSeconds()
        let started = ContinuousClock.now
        try await body()
        return ((ContinuousClock.now - started).seconds, cpuSeconds() - cpuBefore)
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// Linux: writing 5 to clear_refs resets the peak resident size (VmHWM).
    private static func resetPeakResidentMemory() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func residentMemory() -> Int { statusField("VmRSS:") }
    private static func peakResidentMemory() -> Int { statusField("VmHWM:") }

    /// A field of /proc/self/status, in bytes.
    private static func statusField(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return 0 }
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }
}
