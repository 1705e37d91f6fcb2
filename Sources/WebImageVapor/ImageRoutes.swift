import Foundation
import HTTPTypes
import NIOHTTPTypesHTTP1
import Tracing
import Vapor
import WebImageServerCore

/// The image server's routes for a Vapor application, registered under a group of its own:
/// ```swift
/// let images = try ImageServer(configuration: configuration)
/// try app.grouped("img").register(collection: ImageRoutes(server: images))
/// app.lifecycle.use(ImageServerLifecycle(server: images))
/// ```
/// `GET`, `HEAD` and `OPTIONS` of the group and of every path under it go to the server's core
/// (`ImageServer.respond(to:)`), which answers, under `PATH_PREFIX` when set, `/health` (and
/// `HEALTH_CHECK_PATH`), the playground when configured, and the image URLs (404 for the rest).
/// Each request keeps the application's logger (with Vapor's request ID) and, behind Vapor's
/// `TracingMiddleware`, its span, the parent of the server's spans.
///
/// Vapor does not tell a handler that its client went away: a request whose client left runs to
/// its end (Hummingbird's adapter stops it). Vapor reads a request's path through Foundation's
/// `URL`, which rewrites a few forms (a leading `//` collapsed, `%3B` decoded to `;`): a URL
/// signed over such a path no longer matches its signature.
public struct ImageRoutes: RouteCollection, Sendable {
    public let server: ImageServer

    public init(server: ImageServer) {
        self.server = server
    }

    public func boot(routes: any RoutesBuilder) throws {
        for method in [Vapor.HTTPMethod.GET, .HEAD, .OPTIONS] {
            // The group itself (the playground's page), and every path under it; the body, which
            // no route reads, is not collected.
            routes.on(method, body: .stream, use: respond)
            routes.on(method, "**", body: .stream, use: respond)
        }
    }

    @Sendable func respond(_ request: Request) async throws -> Response {
        var target = request.url.path
        if let query = request.url.query { target += "?" + query }
        let head = HTTPRequest(
            method: HTTPRequest.Method(request.method.rawValue) ?? .get, scheme: nil,
            authority: request.headers.first(name: .host), path: target,
            headerFields: HTTPFields(request.headers, splitCookie: false)
        )
        // The components of the route before its catch-all: where the group mounted us.
        let mountComponents = (request.route?.path ?? []).filter { $0 != .catchall }.count
        let imageRequest = ImageServerRequest(
            head: head, mountPath: ImageServerRequest.mountPath(of: request.url.path, routeComponents: mountComponents),
            logger: request.logger, id: Self.id(of: request)
        )
        // Vapor's TracingMiddleware keeps the request's span in `serviceContext`, not in the
        // task: the server's spans are its children only inside it.
        let answer = await ServiceContext.withValue(request.serviceContext) { await server.respond(to: imageRequest) }
        return Response(answer)
    }
}

extension ImageRoutes {
    /// Vapor's ID of `request`: the client's `X-Request-ID` as sent, else a UUID. The core takes
    /// the client's only when it is one imgproxy would take; Vapor's copy of one it refuses is
    /// not answered either: a new UUID stands for it.
    static func id(of request: Request) -> String {
        request.headers.first(name: "X-Request-ID") == request.id ? UUID().uuidString : request.id
    }
}

extension Response {
    /// The core's answer as Vapor writes it: its fields as they are (`Content-Length` the
    /// image's, for `HEAD` too: the core gives a `HEAD` no body), its body in the request's
    /// `streaming_image` span when traced.
    convenience init(_ answer: ImageServerResponse) {
        let status = HTTPResponseStatus(statusCode: answer.head.status.code, reasonPhrase: answer.head.status.reasonPhrase)
        let headers = HTTPHeaders(answer.head.headerFields)
        let length = answer.body.readableBytes
        guard length > 0 else {
            self.init(status: status, version: .http1_1, headersNoUpdate: headers, body: .empty)
            return
        }
        guard answer.isTraced else {
            self.init(status: status, version: .http1_1, headersNoUpdate: headers, body: Body(buffer: answer.body))
            return
        }
        let body = Body(managedAsyncStream: { writer in
            try await answer.writeBody { try await writer.writeBuffer($0) }
        }, count: length)
        self.init(status: status, version: .http1_1, headersNoUpdate: headers, body: body)
    }
}
