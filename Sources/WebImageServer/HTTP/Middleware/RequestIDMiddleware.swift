import HTTPTypes
import Hummingbird
import NIOCore

/// Gives each image request an ID and every response its `X-Request-ID`: the client's when it is
/// a plausible ID (1 – 64 characters of `A-Z a-z 0-9 _ -`, as imgproxy accepts), else a new
/// random one. The ID goes into `context.logger`'s metadata (`request_id`), so every line logged
/// for the request names it. Outermost of the image routes' middleware: it also writes the
/// response of a failed request (`ImageRequestFailure`), so that one carries the ID too.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var field: HTTPField.Name { HTTPField.Name("X-Request-ID")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = RequestID.take(request.headers[Self.field])
        var context = context
        context.logger[metadataKey: "request_id"] = "\(id)"
        var response: Response
        do {
            response = try await next(request, context)
        } catch let failure as ImageRequestFailure {
            response = failure.response
        }
        response.headers[Self.field] = id
        return response
    }
}

/// Request IDs: taken from the client when plausible, else made.
enum RequestID {
    /// 64 characters, so that each takes 6 random bits.
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_".utf8)

    static func take(_ header: String?) -> String {
        if let header, (1...64).contains(header.utf8.count),
           header.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 }) {
            return header
        }
        // 20 characters from 2 draws (120 of 128 bits): each draw is a getrandom call.
        var generator = SystemRandomNumberGenerator()
        let draws: [UInt64] = [generator.next(), generator.next()]
        let characters = (0..<20).map { index in alphabet[Int((draws[index / 10] >> (6 * UInt64(index % 10))) & 63)] }
        return String(decoding: characters, as: UTF8.self)
    }
}
