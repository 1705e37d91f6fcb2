import Hummingbird

/// `HEAD` of an image URL: the response a `GET` gets, its headers (`Content-Length` the
/// image's) without the body, whatever the status. Outside the request ID middleware, which
/// writes the body of a failure.
struct HeadMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await next(request, context).createHeadResponse()
    }
}
