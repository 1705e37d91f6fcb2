import Crypto
import HTTPTypes
import Hummingbird

/// `SECRET`: an image request must carry `Authorization: Bearer <secret>`; any other is 403
/// `Forbidden` before its path is read (imgproxy's `WithSecret`). The secret is never logged.
struct BearerSecretMiddleware<Context: RequestContext>: RouterMiddleware {
    let secret: BearerSecret

    init(secret: String) {
        self.secret = BearerSecret(secret)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard secret.admits(authorization: request.headers[values: .authorization].first) else {
            throw ImageRequestFailure(.invalidSecret)
        }
        return try await next(request, context)
    }
}

/// The check of an `Authorization` field against `Bearer <secret>`: its bytes exactly, as
/// imgproxy compares them. Compared in constant time, through digests of both sides, so that
/// neither the secret's bytes nor its length show in the time an answer takes.
struct BearerSecret: Sendable {
    /// SHA-256 of `Bearer <secret>`.
    private let expected: [UInt8]

    init(_ secret: String) {
        expected = Array(SHA256.hash(data: Array("Bearer \(secret)".utf8)))
    }

    /// Whether the request's first `Authorization` field (nil: none) carries the secret.
    func admits(authorization: String?) -> Bool {
        SignatureVerifier.constantTimeEqual(Array(SHA256.hash(data: Array((authorization ?? "").utf8))), expected)
    }
}
