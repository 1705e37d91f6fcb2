import HTTPTypes
import Hummingbird
import NIOCore

/// Gives each image request an ID and every response its `X-Request-ID`: the client's when it is
/// a plausible ID (1 – 64 characters of `A-Z a-z 0-9 _ -`, as imgproxy accepts), else the one
/// Hummingbird gave the request (`context.id`: a random prefix a process and a counter, so no
/// system call a request). The ID goes into `context.logger`'s metadata as `request_id` (imgproxy's
/// name), so every line logged for the request names it (Hummingbird's `hb.request.id` stays:
/// its `context.id` reads it, unwrapped). Outermost of the image routes'
/// middleware: it also writes the response of a failed request (`ImageRequestFailure`), so that
/// one carries the ID too.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = plausibleRequestID(request.headers[.requestID]) ?? context.id
        var context = context
        context.logger[metadataKey: "request_id"] = .string(id)
        var response: Response
        do {
            response = try await next(request, context)
        } catch let failure as ImageRequestFailure {
            response = failure.response
        }
        response.headers[.requestID] = id
        return response
    }
}

/// The client's request ID when it is one imgproxy would take.
func plausibleRequestID(_ header: String?) -> String? {
    guard let header, (1...64).contains(header.utf8.count),
        header.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 })
    else { return nil }
    return header
}
