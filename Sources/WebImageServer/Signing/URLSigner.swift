import Crypto
import Foundation

/// Signs image paths as imgproxy does: `base64url_nopad(HMAC-SHA256(key, salt ‖ path))`,
/// truncated to `signatureSize` bytes. `path` is everything after the signature, from its `/`:
/// `/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png`.
public struct URLSigner: Sendable {
    /// The pair that signs.
    public let key: URLSigningKey
    /// Bytes of the HMAC kept, 1...32 (`SIGNATURE_SIZE`, 32).
    public let signatureSize: Int

    /// A signer; `signatureSize` outside 1...32 is refused.
    public init(key: URLSigningKey, signatureSize: Int = 32) throws(ImageServerConfigurationError) {
        guard (1...32).contains(signatureSize) else { throw .invalidSigningKey("signature size \(signatureSize) is not in 1...32") }
        self.key = key
        self.signatureSize = signatureSize
    }

    /// The signature of `path` (a `/` is put in front when it has none, as imgproxy does).
    public func signature(for path: String) -> String {
        Base64URL.encode(digest(for: path))
    }

    /// `/{signature}{path}`: the URL path to request.
    public func signedPath(_ path: String) -> String {
        let path = path.hasPrefix("/") ? path : "/" + path
        return "/" + signature(for: path) + path
    }

    /// The truncated HMAC of `path`.
    func digest(for path: String) -> [UInt8] {
        var message = key.salt
        if !path.hasPrefix("/") { message.append(UInt8(ascii: "/")) }
        message.append(contentsOf: path.utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key.key))
        return Array(Array(code).prefix(signatureSize))
    }
}
