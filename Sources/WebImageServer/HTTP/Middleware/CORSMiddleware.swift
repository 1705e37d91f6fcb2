import HTTPTypes
import Hummingbird

/// `ALLOW_ORIGIN`: every response of the routes it wraps (images, their errors, `OPTIONS`)
/// carries `Access-Control-Allow-Origin` with the configured origin and
/// `Access-Control-Allow-Methods: GET, OPTIONS`, as imgproxy's `WithCORS` writes them. Outermost,
/// so that a refused request (a missing secret, a bad signature) carries them too and a
/// browser can read its status.
struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let origin: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlAllowMethods] = "GET, OPTIONS"
        return response
    }
}
