import Hummingbird

/// `webimage serve`'s responder: every request goes straight to the core (`respond(to:)`), which
/// matches its paths itself; no router walks an imgproxy path's many components (a twentieth of
/// a cached hit's CPU when it did). Traced, every request is a span (Hummingbird's
/// `TracingMiddleware`, which honours an incoming `traceparent`), the parent of its work's
/// (`RequestSpan`).
struct ImageServerResponder: HTTPResponder {
    typealias Context = ImageServerContext

    private let server: ImageServer
    private let tracing: TracingMiddleware<Context>?
    /// The route the metrics and spans name a request under `PATH_PREFIX` by.
    private let endpoint: String
    /// The client-gone watches of the server's connections (its `additionalChannelHandlers`).
    private let watches: ClientGoneWatches

    /// The responder of `server` at the root, finding each connection's client-gone watch in
    /// `watches`; with `traces`, each request in a span of its own.
    init(server: ImageServer, watches: ClientGoneWatches, traces: Bool) {
        self.server = server
        self.watches = watches
        tracing = traces ? TracingMiddleware() : nil
        endpoint = server.configuration.pathPrefix + "/**"
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let tracing else { return await answer(request, context: context) }
        return try await tracing.handle(request, context: context, next: answer)
    }

    private func answer(_ request: Request, context: Context) async -> Response {
        context.coreContext.endpointPath.value = endpoint
        // The core names the request `request_id` (imgproxy's name) on its lines: Hummingbird's
        // copy of the same ID would be formatted and written beside it on each of them.
        var logger = context.logger
        logger[metadataKey: "hb.request.id"] = nil
        let answer = await server.respond(to: ImageServerRequest(
            head: request.head, mountPath: "", logger: logger, id: context.id, clientGone: watches.watch(of: context.channel) ?? context.connectionClosed
        ))
        return Response(answer)
    }
}
