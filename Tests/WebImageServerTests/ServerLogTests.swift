import Foundation
import Logging
import SystemPackage
import Testing
import WebImage
import WebImageSupport
import WebImageTestServer
@testable import WebImageServer
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
            #expect(await Self.line(of: server) { $0.contains("\"request_id\":\"\(id)\"") } != nil, "\(id)")
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

    /// Lines below `warning` wait for their batch; a warning is written at once, after them.
    @Test func linesAreWrittenInBatchesAndAWarningAtOnceAfterThem() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        defer {
            try? readEnd.close()
            try? writeEnd.close()
        }
        let batches = LogBatches(descriptor: writeEnd)
        batches.append("a\n", now: false)
        batches.append("b\n", now: false)
        // Nothing written yet: the pipe has no bytes to read.
        var available: Int32 = 0
        #expect(ioctl(ends[0], UInt(FIONREAD), &available) == 0 && available == 0)
        batches.append("warning\n", now: true)
        #expect(try Self.read(readEnd) == "a\nb\nwarning\n")
        // A batch with no warning after it comes on its own, a tenth of a second later.
        batches.append("c\n", now: false)
        let late = try await BlockingPool.run { try Self.read(readEnd) }
        #expect(late == "c\n")
    }

    private static func read(_ descriptor: FileDescriptor) throws -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
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
