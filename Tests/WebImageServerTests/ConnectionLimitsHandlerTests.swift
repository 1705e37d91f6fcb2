import HTTPTypes
import Logging
import MetricsTestKit
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The connection limits handler alone, on an embedded channel whose clock the test moves:
/// which connections it closes, when, and under which limit's name. AbusiveClientTests drives
/// the same handler with real clients over loopback.
@Suite(.offThePool) final class ConnectionLimitsHandlerTests {
    /// The channels a test made, finished when it ends: a channel left open keeps its handler's
    /// timer scheduled on its loop, a cycle (loop, task, handler, channel) that LeakSanitizer reports.
    private var channels: [EmbeddedChannel] = []

    deinit {
        for channel in channels { _ = try? channel.finish(acceptAlreadyClosed: true) }
    }

    static let limits = ConnectionLimitsHandler.Limits(
        readRequestTimeout: .seconds(10), writeResponseTimeout: .seconds(10), keepAliveTimeout: .seconds(10)
    )

    /// A channel with the handler in it, active, and the log of the limits it named.
    private func channel(
        limits: ConnectionLimitsHandler.Limits = ConnectionLimitsHandlerTests.limits, metrics: ServerMetrics? = nil
    ) throws -> (EmbeddedChannel, LimitLog) {
        let log = LimitLog()
        var logger = Logger(label: "connection-limits") { _ in LimitLogHandler(log: log) }
        logger.logLevel = .debug
        let channel = EmbeddedChannel(handler: ConnectionLimitsHandler(limits: limits, logger: logger, metrics: metrics))
        channels.append(channel)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, log)
    }

    private static func request(_ channel: EmbeddedChannel, connection: String? = nil) throws {
        var head = HTTPRequest(method: .get, scheme: nil, authority: "127.0.0.1", path: "/health")
        if let connection { head.headerFields[.connection] = connection }
        try channel.writeInbound(HTTPRequestPart.head(head))
        try channel.writeInbound(HTTPRequestPart.end(nil))
    }

    private static func respond(_ channel: EmbeddedChannel, connection: String? = nil) throws {
        var head = HTTPResponse(status: .ok)
        if let connection { head.headerFields[.connection] = connection }
        try channel.writeOutbound(HTTPResponsePart.head(head))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
    }

    private static func isOpen(_ channel: EmbeddedChannel) -> Bool {
        channel.embeddedEventLoop.run()
        return channel.isActive
    }

    /// The status of the response head the handler wrote, if any, with its `Connection` field.
    private static func answer(_ channel: EmbeddedChannel) throws -> (status: Int, connection: String?)? {
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        return (head.status.code, head.headerFields[.connection])
    }

    /// Bytes of a request came, and no part: a head begun (the codec holds its bytes).
    private static func headBytesArrive(_ channel: EmbeddedChannel) {
        channel.pipeline.fireChannelReadComplete()
    }

    @Test func aRequestThatSaysCloseHasItsConnectionClosedOnceAnsweredWithNoLimitNamed() throws {
        let (channel, log) = try channel()
        try Self.request(channel, connection: "keep-alive, Close")
        #expect(Self.isOpen(channel), "closed before its answer")
        try Self.respond(channel)
        #expect(!Self.isOpen(channel), "open after the answer to a request that said close")
        #expect(log.count(.keepAliveTimeout) == 0 && log.count(.readRequestTimeout) == 0)
    }

    @Test func aResponseThatSaysCloseClosesItsConnection() throws {
        let (channel, log) = try channel()
        try Self.request(channel)
        try Self.respond(channel, connection: "close")
        #expect(!Self.isOpen(channel))
        #expect(log.count(.keepAliveTimeout) == 0)
    }

    @Test func aPipelinedRequestThatSaysCloseEndsTheConnectionAfterItsOwnAnswerNotTheOneBefore() throws {
        let (channel, _) = try channel()
        try Self.request(channel)
        try Self.request(channel, connection: "close")
        try Self.respond(channel)
        #expect(Self.isOpen(channel), "closed with the first of two answers")
        try Self.respond(channel)
        #expect(!Self.isOpen(channel))
    }

    @Test func aKeptAliveConnectionStaysOpenUntilTheKeepAliveTimeoutAndIsClosedUnderItsName() throws {
        let (channel, log) = try channel()
        try Self.request(channel, connection: "keep-alive")
        try Self.respond(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(Self.isOpen(channel), "closed before the keep-alive timeout")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!Self.isOpen(channel))
        #expect(log.count(.keepAliveTimeout) == 1 && log.count(.readRequestTimeout) == 0)
    }

    @Test func aConnectionThatSaysNothingIsClosedAtTheReadTimeoutFromItsOpeningUnanswered() throws {
        let (channel, log) = try channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(Self.isOpen(channel))
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!Self.isOpen(channel))
        #expect(try Self.answer(channel) == nil, "a connection that asked nothing was answered")
        #expect(log.count(.readRequestTimeout) == 1 && log.count(.keepAliveTimeout) == 0)
    }

    @Test func aHeadBegunAndNotFinishedAtTheReadTimeoutIsAnswered408AndClosedAndCounted() throws {
        let metrics = TestMetrics()
        let (channel, log) = try channel(metrics: ServerMetrics(factory: metrics))
        channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        Self.headBytesArrive(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(6))
        let answer = try Self.answer(channel)
        #expect(answer?.status == 408 && answer?.connection == "close")
        // The rest of the head, arriving now, is not the server's to answer (400) after the 408.
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidHeaderToken)
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        // Open a moment for the client to read it (its output closed), then closed.
        channel.embeddedEventLoop.advanceTime(by: ConnectionLimitsHandler.lingering)
        #expect(!Self.isOpen(channel))
        #expect(log.count(.readRequestTimeout) == 1)
        let closed = try metrics.expectCounter("webimage_server_connections_closed_total", [("limit", "READ_REQUEST_TIMEOUT")])
        #expect(closed.totalValue == 1)
    }

    @Test func aSecondHeadBegunOnAKeptAliveConnectionIsAnswered408() throws {
        let (channel, _) = try channel()
        try Self.request(channel)
        try Self.respond(channel)
        #expect(try Self.answer(channel)?.status == 200)
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        Self.headBytesArrive(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(try Self.answer(channel)?.status == 408)
    }

    @Test func aBodyStillComingAfterItsRequestWasAnsweredIsCutUnanswered() throws {
        let (channel, log) = try channel()
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "127.0.0.1", path: "/health")))
        try Self.respond(channel)
        #expect(try Self.answer(channel)?.status == 200)
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "a")))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!Self.isOpen(channel))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil, "a second answer to an answered request")
        #expect(log.count(.readRequestTimeout) == 1)
    }

    @Test func aHeadPastTheHeaderLimitsIsAnswered431AndClosedAndCounted() throws {
        let metrics = TestMetrics()
        let (channel, log) = try channel(metrics: ServerMetrics(factory: metrics))
        Self.headBytesArrive(channel)
        channel.pipeline.fireErrorCaught(HTTPParserError.headerOverflow)
        let answer = try Self.answer(channel)
        #expect(answer?.status == 431 && answer?.connection == "close")
        // The decoder's later complaints about the bytes it no longer reads go nowhere.
        channel.pipeline.fireErrorCaught(ByteToMessageDecoderError.dataReceivedInErrorState(HTTPParserError.headerOverflow, ByteBuffer()))
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        channel.embeddedEventLoop.advanceTime(by: ConnectionLimitsHandler.lingering)
        #expect(!Self.isOpen(channel))
        #expect(log.count(.headerLimits) == 1 && log.count(.readRequestTimeout) == 0)
        let closed = try metrics.expectCounter(
            "webimage_server_connections_closed_total", [("limit", "MAX_HEADER_FIELD_SIZE|MAX_HEADERS_SIZE|MAX_HEADER_COUNT")]
        )
        #expect(closed.totalValue == 1)
    }

    @Test func aHeadTooLargeBehindAPipelinedRequestIsAnswered431AfterThatRequestsResponse() throws {
        let (channel, _) = try channel()
        try Self.request(channel)
        channel.pipeline.fireErrorCaught(HTTPParserError.headerOverflow)
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil, "answered 431 before the response in flight")
        try Self.respond(channel)
        #expect(try Self.answer(channel)?.status == 200)
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        #expect(try Self.answer(channel)?.status == 431)
        channel.embeddedEventLoop.advanceTime(by: ConnectionLimitsHandler.lingering)
        #expect(!Self.isOpen(channel))
    }

    @Test func otherDecoderErrorsGoOnToTheServer() throws {
        let (channel, _) = try channel()
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidHeaderToken)
        #expect(throws: HTTPParserError.self) { try channel.throwIfErrorCaught() }
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
    }

    @Test func withoutKeepAliveEveryResponseSaysCloseAndEndsItsConnection() throws {
        var limits = Self.limits
        limits.keepAliveTimeout = nil
        let (channel, _) = try channel(limits: limits)
        try Self.request(channel)
        try Self.respond(channel)
        let head = try channel.readOutbound(as: HTTPResponsePart.self)
        guard case .head(let response) = head else {
            Issue.record("no response head written: \(String(describing: head))")
            return
        }
        #expect(response.headerFields[.connection] == "close")
        #expect(!Self.isOpen(channel))
    }
}
