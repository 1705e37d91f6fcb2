import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import WebImageServer

/// The connection limits handler alone, on an embedded channel whose clock the test moves:
/// which connections it closes, when, and under which limit's name. AbusiveClientTests drives
/// the same handler with real clients over loopback.
@Suite struct ConnectionLimitsHandlerTests {
    static let limits = ConnectionLimitsHandler.Limits(
        readRequestTimeout: .seconds(10), writeResponseTimeout: .seconds(10), keepAliveTimeout: .seconds(10)
    )

    /// A channel with the handler in it, active, and the log of the limits it named.
    private static func channel(limits: ConnectionLimitsHandler.Limits = Self.limits) throws -> (EmbeddedChannel, LimitLog) {
        let log = LimitLog()
        var logger = Logger(label: "connection-limits") { _ in LimitLogHandler(log: log) }
        logger.logLevel = .debug
        let channel = EmbeddedChannel(handler: ConnectionLimitsHandler(limits: limits, logger: logger))
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

    @Test func aRequestThatSaysCloseHasItsConnectionClosedOnceAnsweredWithNoLimitNamed() throws {
        let (channel, log) = try Self.channel()
        try Self.request(channel, connection: "keep-alive, Close")
        #expect(Self.isOpen(channel), "closed before its answer")
        try Self.respond(channel)
        #expect(!Self.isOpen(channel), "open after the answer to a request that said close")
        #expect(log.count(.keepAliveTimeout) == 0 && log.count(.readRequestTimeout) == 0)
    }

    @Test func aResponseThatSaysCloseClosesItsConnection() throws {
        let (channel, log) = try Self.channel()
        try Self.request(channel)
        try Self.respond(channel, connection: "close")
        #expect(!Self.isOpen(channel))
        #expect(log.count(.keepAliveTimeout) == 0)
    }

    @Test func aPipelinedRequestThatSaysCloseEndsTheConnectionAfterItsOwnAnswerNotTheOneBefore() throws {
        let (channel, _) = try Self.channel()
        try Self.request(channel)
        try Self.request(channel, connection: "close")
        try Self.respond(channel)
        #expect(Self.isOpen(channel), "closed with the first of two answers")
        try Self.respond(channel)
        #expect(!Self.isOpen(channel))
    }

    @Test func aKeptAliveConnectionStaysOpenUntilTheKeepAliveTimeoutAndIsClosedUnderItsName() throws {
        let (channel, log) = try Self.channel()
        try Self.request(channel, connection: "keep-alive")
        try Self.respond(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(Self.isOpen(channel), "closed before the keep-alive timeout")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!Self.isOpen(channel))
        #expect(log.count(.keepAliveTimeout) == 1 && log.count(.readRequestTimeout) == 0)
    }

    @Test func aConnectionThatSaysNothingIsClosedAtTheReadTimeoutFromItsOpening() throws {
        let (channel, log) = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(Self.isOpen(channel))
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!Self.isOpen(channel))
        #expect(log.count(.readRequestTimeout) == 1 && log.count(.keepAliveTimeout) == 0)
    }

    @Test func withoutKeepAliveEveryResponseSaysCloseAndEndsItsConnection() throws {
        var limits = Self.limits
        limits.keepAliveTimeout = nil
        let (channel, _) = try Self.channel(limits: limits)
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
