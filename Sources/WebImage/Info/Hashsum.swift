import Crypto
import Foundation

/// The digests imgproxy Pro's `calc_hashsums` computes over a source's bytes (its names).
/// swift-crypto's (BoringSSL's on Linux, where Foundation has no CommonCrypto).
public enum Hashsum: String, Sendable, CaseIterable {
    /// MD5, SHA-1 (weak: for matching files, not for security), SHA-256, SHA-512.
    case md5, sha1, sha256, sha512

    /// The digest of `data` in lowercase hex, as `md5sum` and `sha256sum` print it.
    public func hex(of data: Data) -> String {
        switch self {
        case .md5: HexDigits.string(Insecure.MD5.hash(data: data))
        case .sha1: HexDigits.string(Insecure.SHA1.hash(data: data))
        case .sha256: HexDigits.string(SHA256.hash(data: data))
        case .sha512: HexDigits.string(SHA512.hash(data: data))
        }
    }
}
