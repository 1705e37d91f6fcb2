import Foundation
import Testing
import WebImageServer
import WebImageTestSupport

/// imgproxy's signing: its published vector, truncation, rotation, trusted signatures, and
/// the unsigned mode.
@Suite(.offThePool) struct SignatureTests {
    /// imgproxy's documented example: key `secret`, salt `hello`.
    static let key = URLSigningKey(key: Array("secret".utf8), salt: Array("hello".utf8))
    static let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    static let signature = "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"

    @Test func imgproxysPublishedVectorSigns() throws {
        #expect(try URLSigner(key: Self.key, signatureSize: 32).signature(for: Self.path) == Self.signature)
        #expect(try URLSigner(key: Self.key, signatureSize: 8).signature(for: Self.path) == "oKfUtW34Dvo")
        // The same pair given in hex, as the settings give it.
        #expect(try URLSigningKey(hexKey: "736563726574", hexSalt: "68656c6c6f") == Self.key)
        // A path without its leading slash signs the same (imgproxy adds it).
        #expect(try URLSigner(key: Self.key).signature(for: String(Self.path.dropFirst())) == Self.signature)
        #expect(try URLSigner(key: Self.key).signedPath(Self.path) == "/" + Self.signature + Self.path)
    }

    @Test func theVectorVerifiesAndAFlippedByteDoesNot() throws {
        let verifier = try SignatureVerifier(keys: [Self.key])
        try verifier.verify(signature: Self.signature, path: Self.path)
        var bytes = try #require(Base64URL.decode(Self.signature))
        for index in [0, 15, 31] {
            let original = bytes[index]
            bytes[index] ^= 0x01
            #expect(throws: ImageServerError.invalidSignature) { try verifier.verify(signature: Base64URL.encode(bytes), path: Self.path) }
            bytes[index] = original
        }
        // Another path, a truncated signature, a signature that is not base64: all 403.
        #expect(throws: ImageServerError.invalidSignature) { try verifier.verify(signature: Self.signature, path: Self.path + "x") }
        #expect(throws: ImageServerError.invalidSignature) { try verifier.verify(signature: "oKfUtW34Dvo", path: Self.path) }
        #expect(throws: ImageServerError.invalidSignature) { try verifier.verify(signature: "not*base64", path: Self.path) }
        #expect(ImageServerError.invalidSignature.status == 403)
        // Truncated to 8 bytes, the short signature verifies and the full one does not.
        let short = try SignatureVerifier(keys: [Self.key], signatureSize: 8)
        try short.verify(signature: "oKfUtW34Dvo", path: Self.path)
        #expect(throws: ImageServerError.invalidSignature) { try short.verify(signature: Self.signature, path: Self.path) }
    }

    @Test func bothPairsOfARotationVerify() throws {
        let pairs = try URLSigningKey.pairs(hexKeys: "736563726574, 6f6c64", hexSalts: "68656c6c6f,73616c74")
        #expect(pairs.count == 2 && pairs[0] == Self.key)
        let verifier = try SignatureVerifier(keys: pairs)
        for pair in pairs {
            try verifier.verify(signature: try URLSigner(key: pair).signature(for: Self.path), path: Self.path)
        }
        let stranger = URLSigningKey(key: Array("other".utf8), salt: Array("hello".utf8))
        #expect(throws: ImageServerError.invalidSignature) {
            try verifier.verify(signature: try URLSigner(key: stranger).signature(for: Self.path), path: Self.path)
        }
    }

    @Test func trustedSignaturesPassWhateverThePath() throws {
        let verifier = try SignatureVerifier(keys: [Self.key], trustedSignatures: ["let-me-in"])
        try verifier.verify(signature: "let-me-in", path: "/anything")
        #expect(throws: ImageServerError.invalidSignature) { try verifier.verify(signature: "let-me-out", path: "/anything") }
    }

    @Test func withoutKeysAnySignatureWithoutAColonPasses() throws {
        let verifier = try SignatureVerifier(keys: [])
        #expect(!verifier.isSigningRequired)
        for signature in ["insecure", "_", "unsafe", Self.signature] {
            try verifier.verify(signature: signature, path: Self.path)
        }
        #expect(throws: ImageServerError.signatureLooksLikeOption) { try verifier.verify(signature: "rs:fill:300:400", path: Self.path) }
        #expect(ImageServerError.signatureLooksLikeOption.status == 403)
    }

    @Test func badKeysAreRefusedAtStart() {
        #expect(throws: ImageServerConfigurationError.self) { try URLSigningKey(hexKey: "xyz", hexSalt: "00") }
        #expect(throws: ImageServerConfigurationError.self) { try URLSigningKey(hexKey: "abc", hexSalt: "00") }
        #expect(throws: ImageServerConfigurationError.self) { try URLSigningKey.pairs(hexKeys: "00,11", hexSalts: "00") }
        #expect(throws: ImageServerConfigurationError.self) { try URLSigner(key: Self.key, signatureSize: 33) }
        #expect(throws: ImageServerConfigurationError.self) { try SignatureVerifier(keys: [Self.key], signatureSize: 0) }
        #expect((try? URLSigningKey.pairs(hexKeys: "", hexSalts: ""))?.isEmpty == true)
    }

    @Test func theParserChecksTheSignatureOfTheWholePath() throws {
        let parser = try ImgproxyURLParser(verifier: try SignatureVerifier(keys: [Self.key]))
        let request = try parser.parse(path: "/" + Self.signature + Self.path)
        #expect(request.source.description == "http://example.com/images/curiosity.jpg")
        #expect(request.options.format == .png && request.options.gravity == .smart && request.options.resizingType == .fill)
        #expect(request.path == Self.path && request.signature == Self.signature)
        // The query string is not signed, and ignored.
        _ = try parser.parse(path: "/" + Self.signature + Self.path + "?v=2")
        #expect(throws: ImageServerError.invalidSignature) { try parser.parse(path: "/insecure" + Self.path) }
        // The path builder makes the documented path from its parts.
        let built = ImagePathBuilder.path(options: "rs:fill:300:400:0/g:sm", sourceURL: "http://example.com/images/curiosity.jpg", format: "png")
        #expect(built == Self.path)
    }
}
