import NIOCore

/// Watches a client connection for the client going away: its side closed (a FIN: the server
/// allows half-closed connections, so the channel itself stays open until a write fails) or the
/// connection gone. Go's HTTP server, and so imgproxy, takes a read-side EOF the same way.
final class ClientGoneHandler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    /// Completes when the client goes; the channel's end completes it at the latest.
    let gone: EventLoopPromise<Void>

    private init(channel: any Channel) {
        gone = channel.eventLoop.makePromise(of: Void.self)
        channel.closeFuture.whenComplete { [gone] _ in gone.succeed() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { gone.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    /// A future that completes when the client of `channel` goes: from the channel's watcher,
    /// added first in its pipeline by the first request that asks.
    static func clientGone(on channel: any Channel) -> EventLoopFuture<Void> {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            let pipeline = channel.pipeline.syncOperations
            if let watcher = try? pipeline.handler(type: ClientGoneHandler.self) {
                watcher.gone.futureResult.cascade(to: promise)
                return
            }
            let watcher = ClientGoneHandler(channel: channel)
            do {
                try pipeline.addHandler(watcher, position: .first)
            } catch {
                // The channel is closing: its close future completes the watcher.
            }
            watcher.gone.futureResult.cascade(to: promise)
        }
        return promise.futureResult
    }
}
