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
