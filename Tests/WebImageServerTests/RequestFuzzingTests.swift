import Foundation
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// Inputs the request fuzz targets (Fuzz/path, signature, canonical, accept) found.
@Suite(.offThePool) struct RequestFuzzingTests {
    /// Found by the `signature` target (Tests/Images/fuzz-regressions/signature-slash-before-combining-mark.bin):
    /// a path whose options start with a combining mark (U+0318). `/` and the mark are one
    /// Character, so the parser, splitting by Characters, did not see the `/` that ends the
    /// signature, and a correctly signed path was 403; the signer, by the same rule, signed
    /// `//...`. imgproxy splits and signs bytes, and so do both now.
    @Test func aSlashBeforeACombiningMarkEndsTheSignature() throws {
        let signer = try URLSigner(key: URLSigningKey(key: Array("key".utf8), salt: Array("salt".utf8)))
        let path = "/\u{318}:sm/rt:fill/plain/https://example.com/a.jpg"
        #expect(path.hasPrefix("/") == false)
        let signed = signer.signedPath(path)
        #expect(signed == "/" + signer.signature(for: path) + path)
        let parser = try ImgproxyURLParser(verifier: try SignatureVerifier(keys: [signer.key]))
        // Past the signature: the option is what is refused.
        #expect(throws: ImageServerError.unknownOption("\u{318}")) { try parser.parse(path: signed) }
        // A query after a `?` with a combining mark is a query too.
        let open = try ImgproxyURLParser()
        #expect(try open.parse(path: "/_/plain/https://example.com/a.jpg?\u{318}x=1").source.description == "https://example.com/a.jpg")
    }

    /// Found by the `accept` target's long run (Tests/Images/fuzz-regressions/accept-combining-marks-trim.bin,
    /// 3.4 KB of `Accept` with runs of combining marks): trimming a part's spaces walked Characters
    /// backwards, quadratic in a long grapheme cluster (about 30 ms a read under ASan; the target
    /// timed out on a starved run). Trimming is now by bytes, as Go's `TrimSpace` and Foundation's
    /// scalar trimming agree on U+0020.
    @Test func acceptPartsAreTrimmedByBytesAsFoundationTrimsThem() throws {
        let found = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Images/fuzz-regressions/accept-combining-marks-trim.bin"))
        let header = String(decoding: found, as: UTF8.self)
        for text in [header, "  image/webp ", " \u{318}x ", "   ", "", "a\u{301} \u{301} "] {
            #expect(text.trimmingSpaces == text.trimmingCharacters(in: CharacterSet(charactersIn: " ")), "\(text.unicodeScalars.count) scalars")
        }
        let reference = Set(header.split(separator: ",").compactMap { range -> String? in
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " ")).lowercased() }
            guard let type = parts.first, !type.isEmpty, !type.contains("*") else { return nil }
            return parts.dropFirst().contains { $0.hasPrefix("q=") && Double($0.dropFirst(2)) == 0 } ? nil : type
        })
        #expect(AcceptHeader.mediaTypes(in: header) == reference)
    }
}
