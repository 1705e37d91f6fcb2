import HTTPTypes
import Hummingbird

extension ImageServer {
    /// Mounts the server in a Hummingbird router, or a group of it (the mount point):
    /// `GET`, `HEAD` and `OPTIONS` of the mount point and of every path under it go to
    /// `respond(to:)`, which answers, under `PATH_PREFIX` when set, `/health` (and
    /// `HEALTH_CHECK_PATH`), the playground when configured, and the image URLs (404 for the
    /// rest). Put `self` in the application's services (`Application(router:services:)`) so that
    /// its threads end after the last request.
    public func addRoutes<Routes: RouterMethods>(to routes: Routes) {
        for method in [HTTPRequest.Method.get, .head, .options] {
            routes.on("", method: method) { request, context in await self.respond(to: request, context: context) }
            routes.on("**", method: method) { request, context in await self.respond(to: request, context: context) }
        }
    }

    /// `request` answered by the core: mounted where the route the router matched begins, watched
    /// for the client going away when the context can tell (`ClientConnectionContext`).
    func respond(to request: Request, context: some RequestContext) async -> Response {
        let mount = ImageServerRequest.mountPath(of: request.uri.path, routeComponents: Self.mountComponents(of: context.endpointPath))
        let answer = await respond(to: ImageServerRequest(
            head: request.head, mountPath: mount, logger: context.logger, id: context.id,
            clientGone: (context as? any ClientConnectionContext)?.connectionClosed
        ))
        return Response(answer)
    }

    /// The number of components of the mount point in the router's route `endpoint` (`/img/**`:
    /// 1, `/img`: 1, `/`: 0).
    static func mountComponents(of endpoint: String?) -> Int {
        guard let endpoint else { return 0 }
        return endpoint.split(separator: "/").filter { $0 != "**" }.count
    }
}

extension Response {
    /// The core's answer as Hummingbird writes it: its body in the request's `streaming_image`
    /// span when traced, else as a buffer, which Hummingbird writes with the head (a closure body
    /// is a second write: a memory hit lost a third of its requests a CPU-second to it, run 10).
    init(_ answer: ImageServerResponse) {
        let length = answer.body.readableBytes
        guard length > 0 else {
            self.init(status: answer.head.status, headers: answer.head.headerFields)
            return
        }
        guard answer.isTraced else {
            self.init(status: answer.head.status, headers: answer.head.headerFields, body: ResponseBody(byteBuffer: answer.body))
            return
        }
        self.init(status: answer.head.status, headers: answer.head.headerFields, body: ResponseBody(contentLength: length) { writer in
            try await answer.writeBody { try await writer.write($0) }
            try await writer.finish(nil)
        })
    }
}
