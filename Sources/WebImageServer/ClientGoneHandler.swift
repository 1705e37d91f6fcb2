import NIOCore
import WebImageSupport

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

    /// The future of each open connection's watcher, by channel, until the channel closes.
    private static let watched = Locked([ObjectIdentifier: EventLoopFuture<Void>]())

    /// A future that completes when the client of `channel` goes: one per connection, shared by
    /// its requests (a future per request, chained to the connection's, would stay chained until
    /// the connection closes: a keep-alive connection would hold one for every request it
    /// served). The first request of a connection adds its watcher, first in its pipeline.
    static func clientGone(on channel: any Channel) -> EventLoopFuture<Void> {
        let key = ObjectIdentifier(channel)
        let (future, made) = watched.withLock { watched -> (EventLoopFuture<Void>, EventLoopPromise<Void>?) in
            if let future = watched[key] { return (future, nil) }
            let promise = channel.eventLoop.makePromise(of: Void.self)
            watched[key] = promise.futureResult
            return (promise.futureResult, promise)
        }
        guard let gone = made else { return future }
        // The entry goes with the channel, before the channel itself can (its identifier is then free).
        channel.closeFuture.whenComplete { _ in
            watched.withLock { _ = $0.removeValue(forKey: key) }
            gone.succeed()
        }
        channel.eventLoop.execute {
            // A channel already closing cannot take the watcher: its close future completes it.
            try? channel.pipeline.syncOperations.addHandler(ClientGoneHandler(gone: gone), position: .first)
        }
        return future
    }
}
