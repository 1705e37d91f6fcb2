import Crypto
import HTTPTypes

/// `SECRET`: the check of an image request's `Authorization` field against `Bearer <secret>`
/// (imgproxy's `WithSecret`; any other is 403 before the path is read): its bytes exactly, as
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
