import NIOCore

/// Watches a client connection for the client going away: its side closed (a FIN: the server
/// allows half-closed connections, so the channel itself stays open until a write fails) or the
/// connection gone. Go's HTTP server, and so imgproxy, takes a read-side EOF the same way.
final class ClientGoneHandler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    /// Completes when the client goes; the channel's end completes it at the latest.
    let gone: EventLoopPromise<Void>

    private init(gone: EventLoopPromise<Void>) {
        self.gone = gone
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { gone.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    /// A future that completes when the client of `channel` goes. One watcher a connection, kept
    /// in its own pipeline and shared by its requests (a future per request, chained to the
    /// connection's, would stay chained until the connection closes: a keep-alive connection
    /// would hold one for every request it served). The first request of a connection adds it,
    /// first in the pipeline: a host's server is configured by the host, not by us.
    static func clientGone(on channel: any Channel) -> EventLoopFuture<Void> {
        let eventLoop = channel.eventLoop
        if eventLoop.inEventLoop { return watcher(of: channel) }
        return eventLoop.flatSubmit { watcher(of: channel) }
    }

    /// The connection's watcher's future, added on first use. Runs on the channel's event loop.
    private static func watcher(of channel: any Channel) -> EventLoopFuture<Void> {
        let pipeline = channel.pipeline.syncOperations
        if let watcher = try? pipeline.handler(type: ClientGoneHandler.self) { return watcher.gone.futureResult }
        let gone = channel.eventLoop.makePromise(of: Void.self)
        channel.closeFuture.whenComplete { _ in gone.succeed() }
        // A channel already closing cannot take the watcher: its close future completes it.
        try? pipeline.addHandler(ClientGoneHandler(gone: gone), position: .first)
        return gone.futureResult
    }
}
