import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
import WebImageSupport
import WebImageTestServer
@testable import WebImageServer

/// Issue 35, abusive clients: the server's front door against clients on loopback that trickle
/// their heads, hold connections idle by the thousand, send heads too large, pipeline by the
/// thousand, never read, leave mid-response, or smuggle a body. Each runs against a real server
/// in this process with short limits; meanwhile a well-behaved client asks `/health` and a
/// cached thumbnail on a connection of its own and must have each answer within 100 ms; the
/// abusers are cut off by the limit that names them (the server's log says which), the test
/// process's peak resident memory grows within a stated bound, and the server's sockets (this
/// process's descriptors of the server's port) return to their idle count.
/// Serialized: the memory bound reads the whole process, and the timings want the cores.
@Suite(.serialized, .timeLimit(.minutes(TestAllowance.minutes(4)))) struct AbusiveClientTests {
    static let readRequestTimeout = TestAllowance.seconds(2)
    static let writeResponseTimeout = TestAllowance.seconds(1.5)
    static let keepAliveTimeout = TestAllowance.seconds(3)
    /// How late past its limit a connection may be cut on a loaded two-core machine.
    static let slack = Duration.seconds(TestAllowance.seconds(1.5))
    /// The slowest answer the well-behaved client may get.
    static let answerBound = TestAllowance.time(.milliseconds(100))
    /// A cached thumbnail, the well-behaved client's "normal request".
    static let cachedPath = "/unsafe/rs:fit:64:64/plain/local:///photos/rocket.jpg@jpg"
    /// A result of about 10 MB: the 5250x3450 photo at 4200 pixels wide, as PNG.
    static let largePath = "/unsafe/rs:fit:4200:4200/plain/local:///sdwebimage/TestImageLarge.jpg@png"

    // MARK: Slow heads

    @Test func headsSentAByteASecondAndConnectionsThatSayNothingAreCutAtTheReadTimeout() async throws {
        let front = try await FrontDoor.start()
        let slowCount = 200, silentCount = 50
        let started = ContinuousClock.now
        let cuts = try await withThrowingTaskGroup(of: Duration.self) { group in
            for index in 0..<(slowCount + silentCount) {
                group.addTask {
                    let connection = try await RawConnection.open(port: front.port, group: front.clients)
                    var reader = connection.reader()
                    if index < slowCount {
                        // A byte a second, for ever: the deadline is the request's, not the gap's.
                        let head = Array("GET \(Self.cachedPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
                        let trickle = Task {
                            for byte in head + [UInt8](repeating: UInt8(ascii: "a"), count: 10_000) where !Task.isCancelled {
                                guard (try? await connection.send([byte])) != nil else { return }
                                try? await Task.sleep(for: .seconds(1))
                            }
                        }
                        #expect(await reader.drain() == 0, "a slow head was answered")
                        trickle.cancel()
                    } else {
                        #expect(await reader.drain() == 0)
                    }
                    return try #require(connection.times.life)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        front.expectCut(cuts, at: Self.readRequestTimeout, what: "slow and silent heads")
        #expect(front.log.count(.readRequestTimeout) == slowCount + silentCount)
        #expect(front.log.count(.keepAliveTimeout) == 0 && front.log.count(.writeResponseTimeout) == 0)
        let elapsed = ContinuousClock.now - started
        try await front.finish(memoryBound: 32 << 20, case: "slowloris \(slowCount) + silent \(silentCount)", elapsed: elapsed)
    }

    @Test func aSecondHeadTrickledAfterAnAnsweredRequestIsCutAtTheReadTimeoutFromItsFirstByte() async throws {
        let front = try await FrontDoor.start()
        let connection = try await RawConnection.open(port: front.port, group: front.clients)
        var reader = connection.reader()
        try await connection.send(Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(await reader.response()?.status == 200)
        // Idle for a while (under the keep-alive timeout), then a head a byte every 200 ms.
        try await Task.sleep(for: .seconds(Self.keepAliveTimeout / 2))
        let firstByte = ContinuousClock.now
        let trickle = Task {
            for byte in Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8) + [UInt8](repeating: 97, count: 1000) where !Task.isCancelled {
                guard (try? await connection.send([byte])) != nil else { return }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(await reader.drain() == 0)
        trickle.cancel()
        front.expectCut([(connection.times.ended ?? .now) - firstByte], at: Self.readRequestTimeout, what: "a second head")
        #expect(front.log.count(.readRequestTimeout) == 1 && front.log.count(.keepAliveTimeout) == 0)
        try await front.finish(memoryBound: 16 << 20, case: "second head trickled", elapsed: nil)
    }

    // MARK: Idle connections

    @Test func thousandsOfIdleConnectionsAreCutAtTheKeepAliveTimeoutAndNoMoreThanMaxClientsAreServed() async throws {
        let count = FileDescriptors.connectionsAffordable(wanted: 5_000)
        // The listen backlog (256, or the kernel's somaxconn if lower) holds the ones over the limit.
        let extra = min(100, count / 10)
        let maxClients = count - extra
        let front = try await FrontDoor.start { $0.maxClients = maxClients }
        let started = ContinuousClock.now
        // Each asks once, is answered, then holds its connection idle until the server cuts it.
        let times = try await withThrowingTaskGroup(of: RawConnection.Times.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let connection = try await RawConnection.open(port: front.port, group: front.clients, connectTimeout: .seconds(60))
                    var reader = connection.reader()
                    try await connection.send(Array("GET \(Self.cachedPath) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                    #expect(await reader.response()?.status == 200)
                    #expect(await reader.drain() == 0)
                    return connection.times
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started
        front.expectCut(times.compactMap(\.idle), at: Self.keepAliveTimeout, what: "idle connections")
        #expect(front.log.count(.keepAliveTimeout) == count && front.log.count(.readRequestTimeout) == 0)
        // No place frees before the first cut, a keep-alive timeout after the first answer: the
        // ones answered before it are the ones MAX_CLIENTS let in (less the probe's place; NIO
        // accepts up to 4 connections a read, so up to 3 more before the listener stops).
        let keepAlive = Duration.seconds(Self.keepAliveTimeout)
        let early = times.compactMap(\.lastRead).filter { $0 - started < keepAlive }.count
        #expect(early <= maxClients - 1 + 3, "\(early) answered before the first could be cut, MAX_CLIENTS \(maxClients)")
        #expect(early >= maxClients - 1 - extra, "only \(early) answered before the first cut")
        try await front.finish(
            memoryBound: 400 << 20, case: "\(count) idle connections, MAX_CLIENTS \(maxClients), \(early) served at once", elapsed: elapsed
        )
    }

    @Test func withKeepAliveOffEachResponseSaysConnectionCloseAndEndsItsConnection() async throws {
        let front = try await FrontDoor.start { $0.keepAliveTimeout = 0 }
        let connection = try await RawConnection.open(port: front.port, group: front.clients)
        var reader = connection.reader()
        try await connection.send(Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let response = await reader.response()
        #expect(response?.status == 200 && response?.headers["connection"] == "close")
        #expect(await reader.drain() == 0, "a second response on a connection that closes")
        try await front.finish(memoryBound: 16 << 20, case: "keep-alive off", elapsed: nil)
    }

    // MARK: Heads too large

    @Test func aMegabyteRequestLineAndAHundredThousandHeadersAreRefusedAndTheConnectionClosed() async throws {
        let front = try await FrontDoor.start()
        let started = ContinuousClock.now
        let longLine = Array("GET /health?".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var manyFields = Array("GET /health HTTP/1.1\r\nHost: x\r\n".utf8)
        for index in 0..<100_000 { manyFields += Array("X-\(index): a\r\n".utf8) }
        manyFields += Array("\r\n".utf8)
        let bigField = Array("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ".utf8) + [UInt8](repeating: 97, count: 1 << 20) + Array("\r\n\r\n".utf8)
        for (name, head) in [("1 MB request line", longLine), ("100,000 header fields", manyFields), ("a 1 MB header field", bigField)] {
            let connection = try await RawConnection.open(port: front.port, group: front.clients)
            let sent = ContinuousClock.now
            // The server stops reading at its limit and closes: the rest may not be taken.
            try? await connection.send(head)
            var reader = connection.reader()
            let answer = await reader.remainingBytes()
            let took = ContinuousClock.now - sent
            // 400 (or nothing, when the close's reset overtakes it), then the end.
            #expect(answer.isEmpty || answer.starts(with: Array("HTTP/1.1 400".utf8)), "\(name): \(String(decoding: answer.prefix(40), as: UTF8.self))")
            #expect(took < Self.slack, "\(name): \(took) to be refused")
            print("front door: \(name) refused in \(took) (\(answer.isEmpty ? "reset" : "400"))")
        }
        // At the limits: 99 fields besides Host, and a URL just under the field size, are answered.
        let connection = try await RawConnection.open(port: front.port, group: front.clients)
        var reader = connection.reader()
        var atLimit = Array("GET /health?\(String(repeating: "a", count: 16_000)) HTTP/1.1\r\nHost: x\r\n".utf8)
        for index in 0..<99 { atLimit += Array("X-\(index): a\r\n".utf8) }
        try await connection.send(atLimit + Array("\r\n".utf8))
        #expect(await reader.response()?.status == 200)
        await connection.close()
        try await front.finish(memoryBound: 32 << 20, case: "large heads", elapsed: ContinuousClock.now - started)
    }

    @Test func aContentLengthAndAChunkedTransferEncodingOnOneGETAreRefusedAndNothingAfterIsAnswered() async throws {
        let front = try await FrontDoor.start()
        let connection = try await RawConnection.open(port: front.port, group: front.clients)
        var reader = connection.reader()
        // A front proxy reading the length and the server reading the chunks would disagree on
        // where the next request starts: the one smuggled in the body must not be answered.
        let smuggled = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
        try await connection.send(Array((
            "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: \(5 + smuggled.utf8.count)\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled
        ).utf8))
        let answer = await reader.remainingBytes()
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 400"), "\(text.prefix(80))")
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "more than one answer: \(text)")
        try await front.finish(memoryBound: 16 << 20, case: "Content-Length with chunked", elapsed: nil)
    }

    // MARK: Pipelining

    @Test func twoThousandPipelinedRequestsOnOneConnectionAreAnsweredInOrder() async throws {
        let front = try await FrontDoor.start()
        let count = 2_000
        let connection = try await RawConnection.open(port: front.port, group: front.clients)
        var reader = connection.reader()
        var requests: [UInt8] = []
        for index in 0..<count {
            requests += Array("GET \(Self.cachedPath) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-ID: p\(index)\r\n\r\n".utf8)
        }
        let started = ContinuousClock.now
        try await connection.send(requests)
        var inOrder = 0
        for index in 0..<count {
            guard let response = await reader.response() else { break }
            if response.status == 200, response.headers["x-request-id"] == "p\(index)" { inOrder += 1 }
        }
        let elapsed = ContinuousClock.now - started
        #expect(inOrder == count, "\(inOrder) of \(count) answered 200 in order")
        print("front door: \(count) pipelined requests answered in \(elapsed)")
        await connection.close()
        try await front.finish(memoryBound: 64 << 20, case: "\(count) pipelined", elapsed: elapsed)
    }

    // MARK: Clients that do not read

    @Test func clientsThatNeverReadALargeResultAreCutAtTheWriteTimeout() async throws {
        let front = try await FrontDoor.start(warmLarge: true)
        let count = 20
        let started = ContinuousClock.now
        // A small receive buffer (no autotuning) and no reads: the server's writes stop.
        let connections = try await withThrowingTaskGroup(of: RawConnection.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let connection = try await RawConnection.open(
                        port: front.port, group: front.clients, autoRead: false, receiveBufferSize: 8 << 10
                    )
                    try await connection.send(Array("GET \(Self.largePath) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                    return connection
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // The server's log says each was cut (the client, not reading, cannot see it yet).
        let cutAll = await front.log.wait(for: .writeResponseTimeout, count: count, within: .seconds(Self.writeResponseTimeout) + Self.slack * 2)
        let cutAfter = ContinuousClock.now - started
        #expect(cutAll, "\(front.log.count(.writeResponseTimeout)) of \(count) cut by WRITE_RESPONSE_TIMEOUT")
        #expect(cutAfter >= .seconds(Self.writeResponseTimeout) * 0.95 && cutAfter < .seconds(Self.writeResponseTimeout) + Self.slack)
        // Reading now: the head, part of the body, and the end; never the whole result.
        for connection in connections {
            var reader = connection.reader()
            connection.startReading()
            let bytes = await reader.remainingBytes()
            let head = String(decoding: bytes.prefix(400), as: UTF8.self)
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            #expect(head.hasPrefix("HTTP/1.1 200") && length > 8 << 20, "\(head.prefix(60)), \(length) bytes")
            #expect(bytes.count < length, "the whole result was sent: \(bytes.count) bytes")
        }
        try await front.finish(memoryBound: 200 << 20, case: "\(count) never read a 10 MB result, cut after \(cutAfter)", elapsed: cutAfter)
    }

    @Test func hundredsOfClientsThatLeaveMidResponseLeaveNothingHeld() async throws {
        let front = try await FrontDoor.start(warmLarge: true)
        let count = 200
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let connection = try await RawConnection.open(port: front.port, group: front.clients)
                    var reader = connection.reader()
                    try await connection.send(Array("GET \(Self.largePath) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                    // The first bytes of the answer, then gone.
                    #expect(await reader.nextChunk() != nil)
                    await connection.close()
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        // Nothing tells this process when the server has seen each client go (a write that
        // fails): its sockets are counted until they are back, for at most the write timeout.
        #expect(await front.waitForIdleSockets(within: .seconds(Self.writeResponseTimeout) + Self.slack))
        try await front.finish(memoryBound: 200 << 20, case: "\(count) left mid-response", elapsed: elapsed)
    }

    // MARK: Settings

    @Test func theLimitsAreSettingsWithImgproxysNamesAndReadTimeoutIsRead() async throws {
        let defaults = ImageServerConfiguration()
        #expect(defaults.maxClients == 2048 && defaults.readRequestTimeout == 10 && defaults.writeResponseTimeout == 10)
        #expect(defaults.keepAliveTimeout == 10)
        #expect(defaults.maxHeaderFieldSize == 16 << 10 && defaults.maxHeadersSize == 64 << 10 && defaults.maxHeaderCount == 100)
        let configuration = try await ImageServerConfiguration.load(arguments: ["webimage", "--max-header-count", "50"], environment: [
            "WEBIMAGE_MAX_CLIENTS": "0", "WEBIMAGE_READ_REQUEST_TIMEOUT": "3", "WEBIMAGE_WRITE_RESPONSE_TIMEOUT": "4.5",
            "WEBIMAGE_KEEP_ALIVE_TIMEOUT": "0", "WEBIMAGE_MAX_HEADER_FIELD_SIZE": "8192", "WEBIMAGE_MAX_HEADERS_SIZE": "32768",
        ])
        #expect(configuration.maxClients == 0 && configuration.readRequestTimeout == 3 && configuration.writeResponseTimeout == 4.5)
        #expect(configuration.keepAliveTimeout == 0 && configuration.maxHeaderFieldSize == 8192 && configuration.maxHeadersSize == 32768)
        #expect(configuration.maxHeaderCount == 50)
        // imgproxy 3.x's name for the read timeout; the 4.x name wins when both are set.
        let old = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["WEBIMAGE_READ_TIMEOUT": "7"])
        #expect(old.readRequestTimeout == 7)
        let both = try await ImageServerConfiguration.load(
            arguments: ["webimage"], environment: ["WEBIMAGE_READ_TIMEOUT": "7", "WEBIMAGE_READ_REQUEST_TIMEOUT": "5"]
        )
        #expect(both.readRequestTimeout == 5)
        // imgproxy 3.x's WRITE_TIMEOUT was its whole-request timeout (TIMEOUT's alias since 3.25), not the write's.
        let write = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["WEBIMAGE_WRITE_TIMEOUT": "7"])
        #expect(write.timeout == 7 && write.writeResponseTimeout == 10)
        for (name, value) in [("WEBIMAGE_READ_REQUEST_TIMEOUT", "0"), ("WEBIMAGE_KEEP_ALIVE_TIMEOUT", "-1"), ("WEBIMAGE_MAX_CLIENTS", "-5")] {
            await #expect(throws: ImageServerConfigurationError.self, "\(name)=\(value)") {
                try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [name: value])
            }
        }
    }
}

// MARK: - The server and its well-behaved client

/// A server under abuse: its limits short, its log read for the connections its limits close,
/// a well-behaved client asking all along, and what it held before the abuse.
final class FrontDoor: Sendable {
    let server: ServerUnderTest
    let log: LimitLog
    /// The abusers' event loop.
    let clients: MultiThreadedEventLoopGroup
    let probe: Probe
    let idleSockets: Int
    let residentBefore: Int
    var port: Int { server.port }

    private init(server: ServerUnderTest, log: LimitLog, clients: MultiThreadedEventLoopGroup, probe: Probe, idleSockets: Int, residentBefore: Int) {
        self.server = server
        self.log = log
        self.clients = clients
        self.probe = probe
        self.idleSockets = idleSockets
        self.residentBefore = residentBefore
    }

    /// Starts a server with the suite's short limits and `configure` on top; the thumbnail the
    /// probe asks for is cached first, and the large result too with `warmLarge`.
    static func start(warmLarge: Bool = false, configure: (inout ImageServerConfiguration) -> Void = { _ in }) async throws -> FrontDoor {
        var configuration = ImageServerConfiguration()
        configuration.bind = ServerAddress(host: "127.0.0.1", port: 0)
        configuration.cacheDirectory = FileManager.default.temporaryDirectory.path + "/webimage-front-door-" + UUID().uuidString
        configuration.localFilesystemRoot = TestServer.imagesFolder.path
        configuration.timeout = 60
        configuration.readRequestTimeout = AbusiveClientTests.readRequestTimeout
        configuration.writeResponseTimeout = AbusiveClientTests.writeResponseTimeout
        configuration.keepAliveTimeout = AbusiveClientTests.keepAliveTimeout
        configure(&configuration)
        let parser = try configuration.makeParser()
        let log = LimitLog()
        var logger = Logger(label: "front-door") { _ in LimitLogHandler(log: log) }
        logger.logLevel = .debug
        let server = try await ServerUnderTest.serve(cacheFolder: configuration.cacheDirectory) { [configuration] _, onListening in
            try ImageServer.makeApplication(configuration: configuration, parser: parser, logger: logger, onListening: onListening)
        }
        let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        if warmLarge {
            let large = try await ServerUnderTest.get(AbusiveClientTests.largePath, port: server.port)
            #expect(large.status == 200 && large.body.count > 8 << 20, "the large result: \(large.status), \(large.body.count) bytes")
        }
        let probe = try await Probe.start(port: server.port, group: clients)
        let idleSockets = ServerSockets.count(port: server.port)
        ResidentMemory.resetPeak()
        return FrontDoor(
            server: server, log: log, clients: clients, probe: probe, idleSockets: idleSockets, residentBefore: ResidentMemory.current
        )
    }

    /// Each of `cuts` (a connection's time from its start to its end) within the slack after `limit`.
    func expectCut(_ cuts: [Duration], at limit: TimeInterval, what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let limit = Duration.seconds(limit)
        let early = cuts.filter { $0 < limit * 0.95 }.count
        let late = cuts.filter { $0 > limit + AbusiveClientTests.slack }.count
        let sorted = cuts.sorted()
        #expect(early == 0 && late == 0, "\(what): \(early) cut early, \(late) late of \(cuts.count)", sourceLocation: sourceLocation)
        if let first = sorted.first, let last = sorted.last {
            print("front door: \(what): \(cuts.count) cut between \(first) and \(last) (limit \(limit))")
        }
    }

    /// Whether the server's sockets are back to their idle count within `limit` (polled: nothing
    /// in this process sees the server close a connection whose client already went).
    func waitForIdleSockets(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if ServerSockets.count(port: port) == idleSockets { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return ServerSockets.count(port: port) == idleSockets
    }

    /// The checks after an abuse: every probe answered 200 within the bound, the peak resident
    /// memory within `memoryBound` of before, the server's sockets back to idle, a request
    /// answered; then the server stops.
    func finish(memoryBound: Int, case name: String, elapsed: Duration?, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let growth = ResidentMemory.peak - residentBefore
        // Every abuser has seen its end, which the server's close came before; a client that
        // closed itself is seen by the server a moment later.
        let sockets = ServerSockets.count(port: port)
        #expect(
            await waitForIdleSockets(within: .seconds(2)), "\(name): \(sockets) server sockets open, \(idleSockets) idle",
            sourceLocation: sourceLocation
        )
        let probed = try await probe.stop()
        #expect(probed.failures.isEmpty, "\(name): \(probed.failures.prefix(5))", sourceLocation: sourceLocation)
        #expect(
            probed.slowest <= AbusiveClientTests.answerBound,
            "\(name): the slowest of \(probed.answered) answers took \(probed.slowest)", sourceLocation: sourceLocation
        )
        #expect(growth < TestAllowance.bytes(memoryBound), "\(name): peak resident memory grew \(growth >> 20) MB", sourceLocation: sourceLocation)
        let after = try await ServerUnderTest.get("/health", port: port, deadline: .seconds(10))
        #expect(after.status == 200, sourceLocation: sourceLocation)
        print(
            "front door: \(name): \(probed.answered) probe answers meanwhile, slowest \(probed.slowest); peak memory +\(growth >> 20) MB;"
                + " server sockets \(sockets) after, \(idleSockets) idle; \(elapsed.map { "\($0)" } ?? "-")"
        )
        await server.stop()
        try await clients.shutdownGracefully()
    }
}

/// A well-behaved client on a connection of its own: `/health` and the cached thumbnail in
/// turn, one every 20 ms, each timed, until stopped.
final class Probe: Sendable {
    struct Result: Sendable {
        var answered = 0
        var slowest = Duration.zero
        var failures: [String] = []
    }

    /// Set when the probe is to stop.
    final class Flag: Sendable {
        private let state = Locked(false)
        var isSet: Bool { state.withLock { $0 } }
        func set() { state.withLock { $0 = true } }
    }

    private let task: Task<Result, Never>
    private let stopping: Flag

    private init(task: Task<Result, Never>, stopping: Flag) {
        self.task = task
        self.stopping = stopping
    }

    static func start(port: Int, group: any EventLoopGroup) async throws -> Probe {
        let connection = try await RawConnection.open(port: port, group: group)
        // The thumbnail made and cached before the timing starts.
        var reader = connection.reader()
        try await connection.send(Array("GET \(AbusiveClientTests.cachedPath) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        guard await reader.response()?.status == 200 else { throw ProbeError.notAnswered }
        let stopping = Flag()
        let task = Task { [reader] in
            var reader = reader
            var result = Result()
            while !stopping.isSet {
                for path in ["/health", AbusiveClientTests.cachedPath] {
                    let sent = ContinuousClock.now
                    do {
                        try await connection.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                    } catch {
                        result.failures.append("\(path): \(error)")
                        return result
                    }
                    guard let response = await reader.response() else {
                        result.failures.append("\(path): the connection ended")
                        return result
                    }
                    let took = ContinuousClock.now - sent
                    if response.status != 200 { result.failures.append("\(path): \(response.status)") }
                    result.answered += 1
                    result.slowest = max(result.slowest, took)
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
            await connection.close()
            return result
        }
        return Probe(task: task, stopping: stopping)
    }

    func stop() async throws -> Result {
        stopping.set()
        return await task.value
    }

    enum ProbeError: Error { case notAnswered }
}

// MARK: - Raw connections

/// A client connection that sends raw bytes and hands on what it receives, on the abusers'
/// event loop; its reader ends when the connection does (the server's close read as EOF, or a
/// reset). Its times are taken on the event loop, where a busy task pool does not delay them.
final class RawConnection: Sendable {
    /// When the connection opened, last received bytes, and ended.
    struct Times: Sendable {
        var opened: ContinuousClock.Instant?
        var lastRead: ContinuousClock.Instant?
        var ended: ContinuousClock.Instant?
        /// From opening to the end.
        var life: Duration? { opened.flatMap { opened in ended.map { $0 - opened } } }
        /// From the last bytes received to the end.
        var idle: Duration? { lastRead.flatMap { lastRead in ended.map { $0 - lastRead } } }
    }

    /// The times, shared by the connection and its handler.
    final class Recorder: Sendable {
        let times = Locked(Times())
    }

    let channel: any Channel
    private let chunks: AsyncStream<ByteBuffer>
    private let recorded: Recorder

    private init(channel: any Channel, chunks: AsyncStream<ByteBuffer>, recorded: Recorder) {
        self.channel = channel
        self.chunks = chunks
        self.recorded = recorded
    }

    var times: Times { recorded.times.withLock { $0 } }

    /// Connects to 127.0.0.1:`port`. Without `autoRead`, nothing is read until `startReading`;
    /// `receiveBufferSize` fixes the socket's receive buffer (no autotuning).
    static func open(
        port: Int, group: any EventLoopGroup, autoRead: Bool = true, receiveBufferSize: Int? = nil, connectTimeout: TimeAmount = .seconds(10)
    ) async throws -> RawConnection {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        let recorded = Recorder()
        var bootstrap = ClientBootstrap(group: group)
            .connectTimeout(connectTimeout)
            .channelOption(.autoRead, value: autoRead)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ChunkHandler(continuation: continuation, recorded: recorded))
                }
            }
        if let receiveBufferSize {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferSize))
        }
        let channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, chunks: stream, recorded: recorded)
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    func startReading() {
        channel.setOption(.autoRead, value: true).whenSuccess { [channel] in channel.read() }
    }

    func close() async {
        try? await channel.close()
    }

    /// The reader of what arrives; one per connection.
    func reader() -> ResponseReader {
        ResponseReader(iterator: chunks.makeAsyncIterator())
    }

    /// Hands each read on and times it; ends the stream when the channel goes (a reset closes it first).
    private final class ChunkHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let continuation: AsyncStream<ByteBuffer>.Continuation
        let recorded: Recorder

        init(continuation: AsyncStream<ByteBuffer>.Continuation, recorded: Recorder) {
            self.continuation = continuation
            self.recorded = recorded
        }

        func channelActive(context: ChannelHandlerContext) {
            recorded.times.withLock { $0.opened = .now }
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            recorded.times.withLock { $0.lastRead = .now }
            continuation.yield(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            recorded.times.withLock { $0.ended = .now }
            continuation.finish()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

/// HTTP/1.1 responses read off a raw connection (`Content-Length` bodies: what the server sends).
struct ResponseReader: @unchecked Sendable {
    // @unchecked: the iterator of an AsyncStream is not Sendable; a reader is used by one task at
    // a time (moved into the probe's task, never shared).
    struct Response {
        let status: Int
        let headers: [String: String]
        let body: [UInt8]
    }

    private var iterator: AsyncStream<ByteBuffer>.AsyncIterator
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    init(iterator: AsyncStream<ByteBuffer>.AsyncIterator) {
        self.iterator = iterator
    }

    /// The next chunk as it came; nil at the end.
    mutating func nextChunk() async -> ByteBuffer? {
        guard !ended, let chunk = await iterator.next() else {
            ended = true
            return nil
        }
        return chunk
    }

    private mutating func fill() async -> Bool {
        guard var chunk = await nextChunk() else { return false }
        if start > 1 << 16 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer += chunk.readBytes(length: chunk.readableBytes) ?? []
        return true
    }

    /// The next whole response; nil when the connection ends first.
    mutating func response() async -> Response? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer[start...].firstRange(of: separator)?.upperBound
            if headEnd == nil, !(await fill()) { return nil }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: buffer[start..<headEnd], as: UTF8.self)
        var lines = head.split(separator: "\r\n")
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        while buffer.count - headEnd < length {
            if !(await fill()) { return nil }
        }
        let body = Array(buffer[headEnd..<(headEnd + length)])
        start = headEnd + length
        return Response(status: status, headers: headers, body: body)
    }

    /// Everything until the connection ends (what is buffered included).
    mutating func remainingBytes() async -> [UInt8] {
        while await fill() {}
        defer { start = buffer.count }
        return Array(buffer[start...])
    }

    /// Reads until the connection ends; the bytes that came.
    mutating func drain() async -> Int {
        await remainingBytes().count
    }
}

// MARK: - What the server holds

/// The server's log, read for the connections its limits close.
final class LimitLog: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var changed: [AsyncStream<Void>.Continuation] = []
    }

    private let state = Locked(State())

    func record(_ limit: String) {
        let waiting = state.withLock { state in
            state.counts[limit, default: 0] += 1
            return state.changed
        }
        for continuation in waiting { continuation.yield() }
    }

    func count(_ limit: ConnectionLimitsHandler.Limit) -> Int {
        state.withLock { $0.counts[limit.rawValue] ?? 0 }
    }

    /// Whether `count` connections were closed by `limit` within `duration`: each closing wakes
    /// the wait.
    func wait(for limit: ConnectionLimitsHandler.Limit, count: Int, within duration: Duration) async -> Bool {
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { $0.changed.append(continuation) }
        continuation.yield()
        let reached = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in changes where self.count(limit) >= count { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: duration)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        continuation.finish()
        return reached || self.count(limit) >= count
    }
}

/// Hands the lines that name a limit to a `LimitLog`.
struct LimitLogHandler: LogHandler {
    let log: LimitLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if case .string(let limit) = event.metadata?["limit"] { log.record(limit) }
    }
}

/// The sockets of the server's port that this process holds: its listener and the connections
/// it accepted (from /proc/net/tcp, matched with /proc/self/fd).
enum ServerSockets {
    static func count(port: Int) -> Int {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return -1 }
        let portText = String(format: "%04X", port)
        var inodes = Set<String>()
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1].hasSuffix(":" + portText), fields[9] != "0" else { continue }
            inodes.insert(String(fields[9]))
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.count { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor),
                  target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(String(target.dropFirst(8).dropLast()))
        }
    }
}

/// This process's file descriptor limit, for the tests that open thousands.
enum FileDescriptors {
    /// How many loopback connections (two descriptors each, both ends in this process) fit
    /// under the limit, raised to the hard limit when needed, with 1,000 descriptors to spare;
    /// at most `wanted`.
    static func connectionsAffordable(wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return min(wanted, 200) }
        let needed = rlim_t(2 * wanted + 1_000 + open)
        if limit.rlim_cur < needed, limit.rlim_max > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, needed)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let affordable = (Int(clamping: limit.rlim_cur) - open - 1_000) / 2
        let count = max(100, min(wanted, affordable))
        print("front door: descriptor limit \(limit.rlim_cur), \(open) open: \(count) connections")
        return count
    }

    static var open: Int { ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count }
}
