import Foundation
import Logging
import SystemPackage
import Testing
import WebImage
import WebImageSupport
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The server's log lines (`LOG_FORMAT`, `LOG_LEVEL`): what `webimage serve` writes for a
/// request, as a log shipper reads it, and each form's quoting of what a client sent.
@Suite(.offThePool, .timeLimit(.minutes(TestAllowance.minutes(3)))) struct ServerLogTests {
    @Test func aRequestsLineInJSONNamesItsIDStatusPathAndCache() async throws {
        try await withLogServer(["--log-format", "json"]) { server in
            let path = "/unsafe/rs:fit:120:80/plain/local:///photos/rocket.jpg@png"
            let reply = try await ServerUnderTest.get(path, port: server.port, headers: ["X-Request-ID": "log-test-1"])
            #expect(reply.status == 200)
            let line = try #require(await Self.line(of: server) { $0.contains("log-test-1") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
            #expect(object["level"] as? String == "INFO" && object["request_id"] as? String == "log-test-1")
            // The path without its signature (`unsafe` here).
            let logged = String(path.dropFirst("/unsafe".count))
            #expect(object["status"] as? Int == 200 && object["cache"] as? String == "miss" && object["path"] as? String == logged)
            #expect(object["msg"] as? String == "GET \(logged) 200")
            #expect((object["bytes"] as? Int).map { $0 == reply.body.count } == true)
            let time = try #require(object["time"] as? String)
            #expect(time.count == 20 && time.hasSuffix("Z") && time.dropFirst(10).hasPrefix("T"), "RFC 3339 in UTC: \(time)")
            // Without the client's ID, the line's is the one the response carries.
            let unnamed = try await ServerUnderTest.get(path + "?unnamed", port: server.port)
            let id = try #require(unnamed.header("x-request-id"))
            let unnamedLine = try #require(await Self.line(of: server) { $0.contains("\"request_id\":\"\(id)\"") }, "\(id)")
            // The ID once, under imgproxy's name (not Hummingbird's beside it).
            #expect(unnamedLine.components(separatedBy: id).count == 2, "\(unnamedLine)")
        }
    }

    @Test func theDefaultFormIsImgproxysStructuredLineWithAFailuresReason() async throws {
        try await withLogServer([]) { server in
            let path = "/unsafe/rs:fit:120:80/plain/local:///no-such-image.jpg"
            let reply = try await ServerUnderTest.get(path, port: server.port, headers: ["X-Request-ID": "log-test-2"])
            #expect(reply.status == 404)
            let line = try #require(await Self.line(of: server) { $0.contains("log-test-2") })
            #expect(line.hasPrefix("time=\""), "\(line)")
            #expect(line.contains(" level=\"INFO\" msg=\"GET \(path.dropFirst("/unsafe".count)) 404\""), "\(line)")
            #expect(line.contains(" status=404") && line.contains(" request_id=\"log-test-2\"") && line.contains(" reason=\""), "\(line)")
        }
    }

    @Test func aLevelAboveInfoKeepsTheAccessLineOut() async throws {
        // Access lines are info; where the server listens is a notice, still written.
        try await withLogServer(["--log-level", "notice"]) { server in
            let reply = try await ServerUnderTest.get("/unsafe/rs:fit:120:80/plain/local:///photos/rocket.jpg", port: server.port)
            #expect(reply.status == 200)
            server.signal(SIGTERM)
            #expect(await server.exitStatus() == 0)
            var lines: [String] = []
            for await line in server.logLines { lines.append(line) }
            #expect(!lines.contains { $0.contains("msg=\"GET ") }, "\(lines)")
        }
    }

    @Test func eachFormQuotesWhatAClientSent() throws {
        let clock = LogClock()
        let at = Date(timeIntervalSince1970: 1_795_824_000)  // 2026-11-28 00:00:00 UTC
        let metadata: Logger.Metadata = ["path": "/a \"b\"\n", "status": "404", "ratio": "0.5", "id": "-"]
        func line(_ format: LogFormat) -> String {
            ImageServerLogHandler(format: format, clock: clock) { _ in }.line(level: .warning, message: "x\t\"y\"", metadata: metadata, at: at)
        }
        #expect(line(.structured) == #"time="2026-11-28 00:00:00" level="WARNING" msg="x\t\"y\"" id="-" path="/a \"b\"\n" ratio=0.5 status=404"# + "\n")
        #expect(line(.pretty) == #"2026-11-28 00:00:00 WARNING "x\t\"y\"" id=- path="/a \"b\"\n" ratio=0.5 status=404"# + "\n")
        let json = line(.json)
        #expect(json == #"{"time":"2026-11-28T00:00:00Z","level":"WARNING","msg":"x\t\"y\"","id":"-","path":"/a \"b\"\n","ratio":0.5,"status":404}"# + "\n")
        let gcp = try #require(try JSONSerialization.jsonObject(with: Data(line(.gcp).utf8)) as? [String: Any])
        #expect(gcp["severity"] as? String == "WARNING" && gcp["message"] as? String == "x\t\"y\"" && gcp["path"] as? String == "/a \"b\"\n")
        #expect(gcp["level"] == nil && gcp["msg"] == nil)
        // A control character a client sent reaches no line raw.
        let control = ImageServerLogHandler(format: .json, clock: clock) { _ in }.line(level: .info, message: "\u{1B}[31m", metadata: [:], at: at)
        #expect(control.contains(#""msg":"\u001b[31m""#) && control.utf8.filter { $0 < 0x20 }.count == 1, "only the newline: \(control)")
    }

    @Test func aLinesOwnMetadataWinsOverTheLoggersOfTheSameKey() {
        let lines = Locked<[String]>([])
        var logger = Logger(label: "test") { _ in
            ImageServerLogHandler(format: .structured, clock: LogClock()) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "request_id"] = "from-the-logger"
        logger[metadataKey: "a"] = "1"
        logger.info("hello", metadata: ["request_id": "from-the-line", "z": "2"])
        let line = lines.withLock { $0 }.first ?? ""
        #expect(line.hasSuffix(#" msg="hello" a=1 request_id="from-the-line" z=2"# + "\n"), "\(line)")
    }

    /// The access line reaches the server's handler as fields, without a metadata dictionary: the
    /// same line as the metadata would give; any other handler gets the fields as metadata.
    @Test(arguments: LogFormat.allCases)
    func anAccessLineIsTheSameLineAsItsMetadataWouldGive(format: LogFormat) throws {
        let lines = Locked<[String]>([])
        var logger = Logger(label: "test") { _ in
            ImageServerLogHandler(format: format, clock: LogClock()) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "request_id"] = "r-1"
        logger[metadataKey: "path"] = "the line's own wins"
        let access = AccessLine(
            method: .get, status: 404, path: "/rs:fit:10:10/plain/a \"b\".jpg", bytes: 12, cache: "none", duration: .microseconds(1_250),
            reason: "not found: a.jpg"
        )
        access.write(to: logger)
        logger.info("\(access.message)", metadata: Logger.Metadata(uniqueKeysWithValues: access.fields.map { ($0.key, .string($0.text)) }))
        let written = lines.withLock { $0 }
        #expect(written.count == 2)
        // The same line but for its time (the two may fall in different seconds).
        func untimed(_ line: String) -> String { line.replacing(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\dZ?/, with: "T") }
        #expect(written.count == 2 && untimed(written[0]) == untimed(written[1]), "\(written)")
        #expect(written.first?.contains("1.3") == true && written.first?.contains("r-1") == true, "\(written)")
        #expect(written.first.map { !$0.contains("the line's own wins") } == true, "\(written)")

        // Another handler: the fields as metadata, the message as it is.
        let events = Locked<[(String, Logger.Metadata?)]>([])
        AccessLine(method: .head, status: 200, path: "/x", bytes: 0, cache: "memory", duration: .zero)
            .write(to: Logger(label: "other") { _ in RecordingLogHandler { message, metadata in events.withLock { $0.append((message, metadata)) } } })
        let event = try #require(events.withLock { $0 }.first)
        #expect(event.0 == "HEAD /x 200")
        #expect(event.1 == ["bytes": "0", "cache": "memory", "duration_ms": "0.0", "path": "/x", "status": "200"])
    }

    /// Lines below `warning` wait for their batch; a warning is written as soon as the writer
    /// can, after them.
    @Test func linesAreWrittenInBatchesAndAWarningAtOnceAfterThem() async throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer {
            try? readEnd.close()
            try? writeEnd.close()
        }
        let batches = LogBatches(descriptor: writeEnd)
        batches.append("a\n", now: false)
        batches.append("b\n", now: false)
        // Nothing written yet: the pipe has no bytes to read.
        var available: Int32 = 0
        #expect(ioctl(readEnd.rawValue, UInt(FIONREAD), &available) == 0 && available == 0)
        batches.append("warning\n", now: true)
        var reader = PipeReader(readEnd)
        #expect(try reader.read(through: "warning\n") == "a\nb\nwarning\n")
        // A batch with no warning after it comes on its own, a tenth of a second later.
        batches.append("c\n", now: false)
        #expect(try reader.read(through: "c\n") == "c\n")
        await batches.shutdown()
        // After the shutdown a line is written by its logger.
        batches.append("d\n", now: false)
        #expect(try reader.read(through: "d\n") == "d\n")
    }

    /// A reader that stops reading stops the writer alone: appending never waits, the lines past
    /// the limit are dropped, and a line where each gap is says how many, once writing resumes.
    @Test func aStalledReaderCostsDroppedLinesEachGapSaidWhereItIs() async throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer {
            try? readEnd.close()
            try? writeEnd.close()
        }
        let batches = LogBatches(descriptor: writeEnd, limit: 8 << 10)
        batches.setDropNotice { "dropped \($0)\n" }
        // 400 KB of lines into a pipe of 64 KiB nobody reads: this loop ends (nothing waits).
        let total = 4000
        let padding = String(repeating: ".", count: 90)
        for index in 0..<total { batches.append("line \(index) \(padding)\n", now: index % 500 == 0) }
        var reader = PipeReader(readEnd)
        var text = try reader.read(through: "dropped ", then: "\n")
        // Once the last gap was said, lines are taken again. The notice read may be an earlier
        // gap's while the writer still holds the last one's lines: a line appended then is
        // dropped too, and counted in the notice that comes with them. So a last line is
        // appended, numbered on, after each notice read, until one comes through.
        var next = total
        var through = false
        while !through {
            batches.append("line \(next) end\n", now: true)
            next += 1
            while true {
                let line = try reader.read(through: "\n")
                text += line
                if line.hasSuffix(" end\n") {
                    through = true
                    break
                }
                if line.hasPrefix("dropped ") { break }
            }
        }
        await batches.shutdown()
        var last = -1
        var dropped = 0
        var pendingGap: Int?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("dropped ") {
                pendingGap = Int(line.dropFirst("dropped ".count))
                dropped += pendingGap ?? 0
                continue
            }
            let index = Int(line.split(separator: " ")[1]) ?? -2
            // In order, and each gap exactly the count its notice gave.
            #expect(index - last - 1 == (pendingGap ?? 0), "after \(last): \(index), notice \(String(describing: pendingGap))")
            (last, pendingGap) = (index, nil)
        }
        #expect(last >= total && last < next && dropped > 0, "last line \(last), \(dropped) dropped")
    }

    /// `webimage serve` whose standard error is a pipe nobody reads (a log shipper that stalled):
    /// requests are still answered, the process holds a bounded backlog, and once the pipe is read
    /// again the lines come in order, with a line saying how many were dropped.
    @Test func aServerWhoseLogNobodyReadsKeepsAnsweringAndSaysWhatItDropped() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-log-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: cache) }
        let process = Process()
        let program: URL = try #require(TestExecutable.url("webimage"))
        process.executableURL = program
        process.arguments = ["serve", "--bind", "127.0.0.1:0", "--local-filesystem-root", TestServer.imagesFolder.path, "--cache-dir", cache.path]
        let readEnd = try ChildLaunch.serialized { () throws -> FileDescriptor in
            let (readEnd, writeEnd) = try Self.pipe()
            let log = FileHandle(fileDescriptor: writeEnd.rawValue, closeOnDealloc: false)
            (process.standardError, process.standardOutput) = (log, log)
            try process.run()
            try writeEnd.close()   // the child's copy stays: the pipe ends when the server does
            return readEnd
        }
        defer { try? readEnd.close() }
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var reader = PipeReader(readEnd)
        let start = try reader.read(through: "listening on http://127.0.0.1:", then: "\n")
        let listening = try #require(start.range(of: "listening on http://127.0.0.1:"))
        let port = try #require(Int(start[listening.upperBound...].prefix { $0.isNumber }))

        // Each request's access line holds its ~3 KB path twice: ~7 KB a line, 64 KiB of pipe and
        // 1 MiB of backlog full after ~160 requests. Not found, but answered: each within the
        // hang guard, while nothing reads the log.
        let folders = String(repeating: "d/", count: 1400)
        func request(_ index: Int) async throws -> Int {
            // One path (what the server keeps of a path does not grow), a request ID each.
            let path = "/unsafe/rs:fit:10:10/plain/local:///\(folders)missing.jpg"
            return try await ServerUnderTest.get(path, port: port, headers: ["X-Request-ID": "stall-\(index)"], deadline: .seconds(30)).status
        }
        for index in 0..<200 { #expect(try await request(index) == 404) }
        let held = Self.residentBytes(of: process.processIdentifier)
        for index in 200..<800 { #expect(try await request(index) == 404) }
        // 600 more lines (~4 MB) logged into a stalled pipe: the backlog stays at its bound.
        let grown = Self.residentBytes(of: process.processIdentifier) - held
        print("resident memory after 200 requests: \(held) bytes; 600 requests later: \(grown) bytes more")
        #expect(grown < 2 << 20, "\(grown) bytes more")

        // The pipe read again: the lines come, in order, a gap said where it is.
        var text = try reader.read(through: "log lines dropped", then: "\n")
        #expect(try await request(800) == 404)
        text += try reader.read(through: "stall-800", then: "\n")
        let lines = text.split(separator: "\n")
        let indices = lines.compactMap { line in line.firstMatch(of: /request_id="stall-(\d+)"/).flatMap { Int($0.1) } }
        #expect(indices == indices.sorted() && indices.last == 800 && indices.count < 801, "\(indices.count) lines")
        let notice = try #require(lines.first { $0.contains("log lines dropped") })
        let count = try #require(notice.firstMatch(of: #/ dropped=(\d+)/#).flatMap { Int($0.1) })
        #expect(notice.contains("level=\"WARNING\""), "\(notice)")
        #expect(count > 0 && indices.count + count >= 801, "\(indices.count) lines and \(count) dropped")
        kill(process.processIdentifier, SIGTERM)
        // The rest of the log to its end (the server's last lines), so that it exits.
        _ = try reader.readToEnd()
        #expect(try await BlockingPool.run { process.waitUntilExit(); return process.terminationStatus } == 0)
    }

    /// A pipe's two ends.
    private static func pipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw Errno(rawValue: errno) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Resident bytes of process `id` (`VmRSS` in /proc).
    private static func residentBytes(of id: Int32) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(id)/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }

    @Test func timesAreUTCCalendarDatesAcrossLeapDaysAndCenturies() {
        // Each against `date -u -d @SECONDS '+%F %T'`.
        let cases: [(Int, String)] = [
            (0, "1970-01-01 00:00:00"), (951_782_399, "2000-02-28 23:59:59"), (951_782_400, "2000-02-29 00:00:00"),
            (4_107_542_400, "2100-03-01 00:00:00"), (1_795_910_399, "2026-11-28 23:59:59"), (-1, "1969-12-31 23:59:59"),
        ]
        for (second, expected) in cases {
            let (date, time) = LogClock.civil(second)
            #expect(date + " " + time == expected, "\(second)")
        }
    }

    @Test func aLogFormatNotImgproxysStopsTheStartNamingIt() async throws {
        let error = await #expect(throws: ImageServerConfigurationError.self) {
            try await ImageServerConfiguration.load(arguments: ["webimage", "--log-format", "xml"], environment: [:])
        }
        #expect(error.map { "\($0)".contains("LOG_FORMAT") && "\($0)".contains("xml") } == true, "\(String(describing: error))")
    }

    /// `webimage serve` on Tests/Images with a fresh cache folder and `settings`.
    private func withLogServer(_ settings: [String], _ body: (ServeProcess) async throws -> Void) async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-log-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: cache) }
        try await withServeProcess(["--local-filesystem-root", TestServer.imagesFolder.path, "--cache-dir", cache.path] + settings, body)
    }

    /// The first log line `matching` that the server writes (nil if it exits first).
    private static func line(of server: ServeProcess, matching: (String) -> Bool) async -> String? {
        for await line in server.logLines where matching(line) { return line }
        return nil
    }
}

/// A handler keeping each event's message and metadata.
private struct RecordingLogHandler: LogHandler {
    let record: @Sendable (String, Logger.Metadata?) -> Void
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        record(event.message.description, event.metadata)
    }
}

/// Reads a pipe, up to a marker: what came before it stays for the next read. The reads block
/// the test body's own thread (`.offThePool`), never the blocking pool: a read waits for as long
/// as the writer takes, and a pool thread held so (two here) once stopped every test that decodes,
/// and a test that needed both pool threads, for good.
private struct PipeReader {
    let descriptor: FileDescriptor
    private var pending: [UInt8] = []

    init(_ descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// The text up to and with `marker` (and then up to and with `then`, when given).
    mutating func read(through marker: String, then next: String? = nil) throws -> String {
        var taken = try take(through: Array(marker.utf8))
        if let next { taken += try take(through: Array(next.utf8)) }
        return String(decoding: taken, as: UTF8.self)
    }

    /// Everything until the writers closed the pipe.
    mutating func readToEnd() throws -> String {
        var rest: [UInt8] = []
        while case let chunk = try Self.chunk(descriptor), !chunk.isEmpty { rest += chunk }
        defer { pending = [] }
        return String(decoding: pending + rest, as: UTF8.self)
    }

    private mutating func take(through marker: [UInt8]) throws -> [UInt8] {
        var searched = 0
        while true {
            if let end = Self.end(of: marker, in: pending, from: searched) {
                defer { pending.removeFirst(end) }
                return Array(pending[..<end])
            }
            searched = max(0, pending.count - marker.count + 1)
            let chunk = try Self.chunk(descriptor)
            guard !chunk.isEmpty else { throw Errno.brokenPipe }
            pending += chunk
        }
    }

    private static func chunk(_ descriptor: FileDescriptor) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let count = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
        return Array(buffer.prefix(count))
    }

    /// Where the first `marker` at or after `start` ends in `bytes`.
    private static func end(of marker: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes[start...].firstRange(of: marker)?.upperBound
    }
}
