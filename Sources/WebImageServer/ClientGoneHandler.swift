import NIOCore
import WebImageSupport

/// Watches a client connection for the client going away: its side closed (a FIN: the server
/// allows half-closed connections, so the channel itself stays open until a write fails) or the
/// connection gone. Go's HTTP server, and so imgproxy, takes a read-side EOF the same way.
///
/// `webimage serve` puts one in every connection's pipeline as it is set up, so that no FIN
/// goes unseen, and finds it in its table (`ClientGoneWatches`); a host's server, configured by
/// the host, gets one from the first request that asks (`clientGone(on:)`), through a hop to the
/// connection's event loop. Only a request that has to wait (a miss) asks: a memory hit is
/// answered without it (the hop was 3.4 µs of a hit at 16 connections when every request asked,
/// run 16).
final class ClientGoneHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    /// Completes when the client goes; the channel's end completes it at the latest. Made when
    /// the handler is added, on the channel's event loop, which alone touches it.
    private var gone: EventLoopPromise<Void>?
    /// The table the watch goes into while the connection is open (nil: a host's connection).
    private let watches: ClientGoneWatches?

    init(watches: ClientGoneWatches? = nil) {
        self.watches = watches
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let gone = context.eventLoop.makePromise(of: Void.self)
        let channel = ObjectIdentifier(context.channel)
        watches?.add(gone.futureResult, of: channel)
        context.channel.closeFuture.whenComplete { [watches] _ in
            watches?.remove(channel)
            gone.succeed()
        }
        self.gone = gone
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { gone?.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    /// A future that completes when the client of `channel` goes: one watcher a connection, kept
    /// in its own pipeline and shared by its requests (a future per request, chained to the
    /// connection's, would stay chained until the connection closes: a keep-alive connection
    /// would hold one for every request it served). Added, first in the pipeline, when the
    /// connection has none.
    static func clientGone(on channel: any Channel) -> EventLoopFuture<Void> {
        let eventLoop = channel.eventLoop
        if eventLoop.inEventLoop { return watcher(of: channel) }
        return eventLoop.flatSubmit { watcher(of: channel) }
    }

    /// The connection's watcher's future, added on first use. Runs on the channel's event loop.
    private static func watcher(of channel: any Channel) -> EventLoopFuture<Void> {
        let pipeline = channel.pipeline.syncOperations
        if let watcher = try? pipeline.handler(type: ClientGoneHandler.self), let gone = watcher.gone { return gone.futureResult }
        let watcher = ClientGoneHandler()
        // A channel already closing cannot take the watcher: its close future stands for it.
        guard (try? pipeline.addHandler(watcher, position: .first)) != nil, let gone = watcher.gone else { return channel.closeFuture }
        return gone.futureResult
    }
}

/// The client-gone watches of a server's own connections, by connection, so that a request finds
/// its connection's without a hop to the connection's event loop (an eventfd write and read for
/// each request that waits, run 17). Filled by the `ClientGoneHandler` each connection gets as it
/// is set up; a connection leaves it as it closes, before it can be freed and its identifier
/// reused.
final class ClientGoneWatches: Sendable {
    private let watches = Locked([ObjectIdentifier: EventLoopFuture<Void>]())

    init() {}

    /// The watch of `channel`, when it is one of this server's open connections.
    func watch(of channel: any Channel) -> EventLoopFuture<Void>? {
        watches.withLock { $0[ObjectIdentifier(channel)] }
    }

    /// How many connections are watched (for tests).
    var count: Int { watches.withLock { $0.count } }

    fileprivate func add(_ watch: EventLoopFuture<Void>, of channel: ObjectIdentifier) {
        watches.withLock { $0[channel] = watch }
    }

    fileprivate func remove(_ channel: ObjectIdentifier) {
        _ = watches.withLock { $0.removeValue(forKey: channel) }
    }
}
