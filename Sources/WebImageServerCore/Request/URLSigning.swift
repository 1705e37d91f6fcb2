import Crypto
import Foundation

/// One key and salt that sign image URLs: imgproxy's `KEY` and `SALT` pair.
public struct URLSigningKey: Sendable, Hashable {
    /// The HMAC key.
    public var key: [UInt8]
    /// Bytes signed before the path.
    public var salt: [UInt8]

    /// A pair from raw bytes.
    public init(key: [UInt8], salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }

    /// A pair given in hex, as imgproxy's settings give it.
    public init(hexKey: String, hexSalt: String) throws(ImageServerConfigurationError) {
        guard let key = Self.bytes(hex: hexKey), !key.isEmpty else { throw .invalidSigningKey("the key is not hex") }
        guard let salt = Self.bytes(hex: hexSalt) else { throw .invalidSigningKey("the salt is not hex") }
        self.init(key: key, salt: salt)
    }

    /// The pairs of comma-separated keys and salts (`KEY`, `SALT`: `k1,k2` and `s1,s2`), for
    /// rotation; both empty gives none (signing off).
    public static func pairs(hexKeys: String, hexSalts: String) throws(ImageServerConfigurationError) -> [URLSigningKey] {
        let keys = hexKeys.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        let salts = hexSalts.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        guard keys.count == salts.count else {
            throw .invalidSigningKey("\(keys.count) keys and \(salts.count) salts: they go in pairs")
        }
        var pairs: [URLSigningKey] = []
        for (key, salt) in zip(keys, salts) { pairs.append(try URLSigningKey(hexKey: key, hexSalt: salt)) }
        return pairs
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = HexDigits.value(of: digits[index]), let low = HexDigits.value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}

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
        let path = path.utf8.first == UInt8(ascii: "/") ? path : "/" + path
        return "/" + signature(for: path) + path
    }

    /// The truncated HMAC of `path`.
    func digest(for path: String) -> [UInt8] {
        var message = key.salt
        // By bytes: `/` and a combining mark after it are one Character, yet start the path.
        if path.utf8.first != UInt8(ascii: "/") { message.append(UInt8(ascii: "/")) }
        message.append(contentsOf: path.utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key.key))
        return Array(Array(code).prefix(signatureSize))
    }
}

/// Checks the signature segment of image URLs: against every key pair (rotation), in constant
/// time, trusted signatures accepted as they are. With no keys, any signature without a `:` passes.
public struct SignatureVerifier: Sendable {
    /// One signer a configured pair; any of them may have signed.
    public let signers: [URLSigner]
    /// Signatures accepted whatever the path (`TRUSTED_SIGNATURES`), when keys are configured.
    public let trustedSignatures: Set<String>

    /// A verifier for `keys` (none: signing off) truncated to `signatureSize` bytes.
    public init(keys: [URLSigningKey], signatureSize: Int = 32, trustedSignatures: Set<String> = []) throws(ImageServerConfigurationError) {
        var signers: [URLSigner] = []
        for key in keys { signers.append(try URLSigner(key: key, signatureSize: signatureSize)) }
        self.signers = signers
        self.trustedSignatures = trustedSignatures
    }

    /// True when URLs must carry a valid signature.
    public var isSigningRequired: Bool { !signers.isEmpty }

    /// Throws 403 unless `signature` signs `path` (everything after the signature segment).
    public func verify(signature: String, path: String) throws(ImageServerError) {
        guard isSigningRequired else {
            if signature.contains(":") { throw .signatureLooksLikeOption }
            return
        }
        if trustedSignatures.contains(signature) { return }
        guard let given = Base64URL.decode(signature) else { throw .invalidSignature }
        // Every pair is computed and compared whatever the outcome, so that timing tells nothing.
        var matched = false
        for signer in signers where Self.constantTimeEqual(given, signer.digest(for: path)) {
            matched = true
        }
        if !matched { throw .invalidSignature }
    }

    /// Equal bytes, compared in time that depends only on the lengths.
    static func constantTimeEqual(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        guard first.count == second.count else { return false }
        var difference: UInt8 = 0
        for index in first.indices { difference |= first[index] ^ second[index] }
        return difference == 0
    }
}
