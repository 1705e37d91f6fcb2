import Logging
import MetricsTestKit
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The watcher of a client's going away, on an embedded channel: one a connection however many
/// requests it serves, completed by the client's half-close or by the connection's end.
/// ServingTests.aClientThatGoesAwayStopsItsWorkWhenAlone drives it over loopback.
@Suite(.offThePool) struct ClientGoneHandlerTests {
    /// An active channel with a handler of the host's in it, as a host's server would have.
    private func connection() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ChannelInboundHandlerStandIn())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    /// How many watchers the channel's pipeline holds (each removed to find the next).
    private func watchers(in channel: EmbeddedChannel) throws -> Int {
        var count = 0
        while let watcher = try? channel.pipeline.syncOperations.handler(type: ClientGoneHandler.self) {
            try channel.pipeline.syncOperations.removeHandler(watcher).wait()
            count += 1
        }
        return count
    }

    @Test func theRequestsOfAKeepAliveConnectionShareOneWatcherThatTheClientsHalfCloseCompletes() throws {
        let channel = try connection()
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        let requests = (0..<50).map { _ in ClientGoneHandler.clientGone(on: channel) }
        let ended = NIOLockedValueBox(0)
        for request in requests { request.whenSuccess { ended.withLockedValue { $0 += 1 } } }
        #expect(ended.withLockedValue { $0 } == 0)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(ended.withLockedValue { $0 } == 50)
        #expect(try watchers(in: channel) == 1)
    }

    @Test func aConnectionsEndCompletesItsWatch() throws {
        let channel = try connection()
        let request = ClientGoneHandler.clientGone(on: channel)
        let ended = NIOLockedValueBox(false)
        request.whenSuccess { ended.withLockedValue { $0 = true } }
        #expect(!ended.withLockedValue { $0 })
        _ = try channel.finish(acceptAlreadyClosed: true)
        #expect(ended.withLockedValue { $0 })
    }

    /// A connection set up as `webimage serve` sets up each: its handlers, then the host's.
    private func serversConnection(watches: ClientGoneWatches) throws -> EmbeddedChannel {
        let configuration = ImageServer.httpConfiguration(
            ImageServerConfiguration(), logger: Logger(label: "test"), metrics: ServerMetrics(factory: TestMetrics()), watches: watches
        )
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(configuration.additionalChannelHandlers() + [ChannelInboundHandlerStandIn()])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    /// `webimage serve` puts the watcher in each connection as it is set up: a client that
    /// half-closes before a request asks for its watch (a request that has to wait asks only
    /// after it has been read and looked up) is still seen, in the server's table as through the
    /// pipeline, and no second watcher is added.
    @Test func aHalfCloseBeforeARequestAsksIsSeenOnTheServersConnections() throws {
        let watches = ClientGoneWatches()
        let channel = try serversConnection(watches: watches)
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        let ended = NIOLockedValueBox(0)
        try #require(watches.watch(of: channel)).whenSuccess { ended.withLockedValue { $0 += 1 } }
        ClientGoneHandler.clientGone(on: channel).whenSuccess { ended.withLockedValue { $0 += 1 } }
        #expect(ended.withLockedValue { $0 } == 2)
        #expect(try watchers(in: channel) == 1)
    }

    /// The server's table holds the watches of its open connections only: a connection's own,
    /// pending while its client stays, and gone from the table once the connection closes.
    @Test func theServersTableHoldsItsOpenConnectionsWatches() throws {
        let watches = ClientGoneWatches()
        let first = try serversConnection(watches: watches)
        let second = try serversConnection(watches: watches)
        defer { _ = try? second.finish(acceptAlreadyClosed: true) }
        #expect(watches.count == 2)
        let firstEnded = NIOLockedValueBox(false), secondEnded = NIOLockedValueBox(false)
        try #require(watches.watch(of: first)).whenSuccess { firstEnded.withLockedValue { $0 = true } }
        try #require(watches.watch(of: second)).whenSuccess { secondEnded.withLockedValue { $0 = true } }
        _ = try first.finish(acceptAlreadyClosed: true)
        #expect(firstEnded.withLockedValue { $0 })
        #expect(!secondEnded.withLockedValue { $0 })
        #expect(watches.watch(of: first) == nil)
        #expect(watches.count == 1)
    }

    @Test func aRequestOnAClosedConnectionIsToldAtOnce() throws {
        let channel = try connection()
        _ = try channel.finish(acceptAlreadyClosed: true)
        let ended = NIOLockedValueBox(false)
        ClientGoneHandler.clientGone(on: channel).whenSuccess { ended.withLockedValue { $0 = true } }
        #expect(ended.withLockedValue { $0 })
    }
}

/// A handler that passes everything on: the host's own, behind which the watcher goes first.
private final class ChannelInboundHandlerStandIn: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
}
