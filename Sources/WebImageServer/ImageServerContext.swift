import Hummingbird
import NIOCore

/// A request context that knows when the client's connection closes, so that a request whose
/// client went away stops waiting and, when nobody else waits for the same result, stops its
/// processing. Routes mounted with another context type answer the same, without that.
public protocol ClientConnectionContext: RequestContext {
    /// Completes when the client goes away (its side of the connection closes). Read only by a
    /// request that has to wait (not a memory hit): it may cost a hop to the connection's event
    /// loop.
    var connectionClosed: EventLoopFuture<Void> { get }
}

/// The request context `webimage serve` uses (any `ClientConnectionContext` serves as well).
public struct ImageServerContext: ClientConnectionContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's connection.
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// The connection's watcher's future (`ClientGoneHandler`), found when asked.
    public var connectionClosed: EventLoopFuture<Void> { ClientGoneHandler.clientGone(on: channel) }
}
