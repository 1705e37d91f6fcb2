import Crypto
import HTTPTypes
import Hummingbird

/// `SECRET`: an image request must carry `Authorization: Bearer <secret>`; any other is 403
/// `Forbidden` before its path is read (imgproxy's `WithSecret`). The header is compared in
/// constant time, through digests of both sides, so that neither the secret's bytes nor its
/// length show in the time an answer takes. The secret is never logged.
struct BearerSecretMiddleware<Context: RequestContext>: RouterMiddleware {
    /// SHA-256 of `Bearer <secret>`.
    private let expected: [UInt8]

    init(secret: String) {
        expected = Array(SHA256.hash(data: Array("Bearer \(secret)".utf8)))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let given = request.headers[values: .authorization].first ?? ""
        guard SignatureVerifier.constantTimeEqual(Array(SHA256.hash(data: Array(given.utf8))), expected) else {
            throw ImageRequestFailure(.invalidSecret)
        }
        return try await next(request, context)
    }
}
