import Hummingbird

/// `webimage serve`'s responder: an image `GET` goes straight to its middleware and answer, past
/// the router's walk over the path's components (an imgproxy path has many: a twentieth of a
/// cached hit's CPU); every other request goes through the router, which holds the same routes
/// (`ImageServer.addRoutes`), so that both ways answer alike. Traced, every request is a span
/// (Hummingbird's `TracingMiddleware`, which honours an incoming `traceparent`), the parent of
/// its work's (`RequestSpan`).
struct ImageServerResponder: HTTPResponder {
    typealias Context = ImageServerContext

    private let router: RouterResponder<Context>
    private let server: ImageServer
    private let middleware: ImageRequestMiddleware<Context>
    private let cors: CORSMiddleware<Context>?
    private let tracing: TracingMiddleware<Context>?
    /// `PATH_PREFIX` ("" or `/images`) and the route the router names for an image path under it.
    private let prefix: String
    private let endpoint: String
    /// First path components under the prefix that the router's other routes begin with.
    private let reserved: Set<Substring>

    /// The responder of `router`, to which `server`'s routes were added at its root; with
    /// `traces`, each request in a span of its own.
    init(router: Router<Context>, server: ImageServer, traces: Bool) {
        self.router = router.buildResponder()
        self.server = server
        middleware = server.imageRequestMiddleware()
        cors = server.configuration.allowOrigin.map { CORSMiddleware(origin: $0) }
        tracing = traces ? TracingMiddleware() : nil
        prefix = server.configuration.pathPrefix
        endpoint = RouterPath(prefix + "/**").description
        let routed = server.healthPaths + (server.configuration.servesPlayground ? ImageServer.playgroundPaths : [])
        reserved = Set(routed.compactMap { $0.split(separator: "/").first })
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let tracing else { return try await respondUntraced(to: request, context: context) }
        return try await tracing.handle(request, context: context, next: respondUntraced)
    }

    private func respondUntraced(to request: Request, context: Context) async throws -> Response {
        guard request.method == .get, takesImage(request.uri.path) else { return try await router.respond(to: request, context: context) }
        context.coreContext.endpointPath.value = endpoint
        do {
            guard let cors else { return try await middleware.handle(request, context: context, next: answer) }
            return try await cors.handle(request, context: context) { request, context in
                try await middleware.handle(request, context: context, next: answer)
            }
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        }
    }

    private func answer(_ request: Request, context: Context) async throws -> Response {
        try await server.respond(to: request, context: context)
    }

    /// Whether the router gives `path` to the image route: under the prefix, with a first
    /// component that none of the other routes begins with. Anything else goes to the router.
    func takesImage(_ path: String) -> Bool {
        guard path.hasPrefix(prefix) else { return false }
        let rest = path.utf8.dropFirst(prefix.utf8.count)
        guard rest.first == UInt8(ascii: "/") else { return false }
        let first = rest.drop { $0 == UInt8(ascii: "/") }.prefix { $0 != UInt8(ascii: "/") }
        return !first.isEmpty && !reserved.contains(Substring(first))
    }
}
