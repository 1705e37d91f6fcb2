import Hummingbird
import NIOCore

/// A request context that knows when the client's connection closes, so that a request whose
/// client went away stops waiting and, when nobody else waits for the same result, stops its
/// processing. Routes mounted with another context type answer the same, without that.
public protocol ClientConnectionContext: RequestContext {
    /// Completes when the client goes away (its side of the connection closes).
    var connectionClosed: EventLoopFuture<Void> { get }
}

/// The request context `webimage serve` uses (any `ClientConnectionContext` serves as well).
public struct ImageServerContext: ClientConnectionContext {
    public var coreContext: CoreRequestContextStorage
    public let connectionClosed: EventLoopFuture<Void>

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        connectionClosed = ClientGoneHandler.clientGone(on: source.channel)
    }
}
