// Signing and signature checking (`URLSigner`, `SignatureVerifier`): the input gives the key,
// the salt, the signature size and the path. A signed path verifies, alone and among rotated
// keys, and through the parser (its signature is never what refuses it); the path changed
// (a byte, one more, one less) or the signature's bytes changed fail; any signature text and
// the hex key readers never crash. (Spellings of the same signature bytes, `=` padding or the
// unused low bits of the last base64 character, verify as imgproxy's Go decoder has them.)
import Foundation
@testable import WebImageServer
@testable import WebImageServerCore
import FuzzerMain

let rotated = URLSigningKey(key: Array("an older key".utf8), salt: Array("an older salt".utf8))

/// The input's bytes after `offset`, `length` of them at most.
func slice(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int, _ length: Int) -> [UInt8] {
    let end = min(bytes.count, offset + length)
    defer { offset = end }
    return offset < end ? Array(bytes[offset..<end]) : []
}

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    guard bytes.count >= 4 else { return 0 }
    let size = 1 + Int(bytes[0]) % 32, position = Int(bytes[3])
    var offset = 4
    let key = slice(bytes, &offset, 1 + Int(bytes[1]) % 64)
    let salt = slice(bytes, &offset, Int(bytes[2]) % 32)
    let text = String(decoding: slice(bytes, &offset, bytes.count), as: UTF8.self)
    _ = try? URLSigningKey.pairs(hexKeys: text, hexSalts: String(text.reversed()))
    guard !key.isEmpty else { return 0 }
    guard let signer = try? URLSigner(key: URLSigningKey(key: key, salt: salt), signatureSize: size),
          let alone = try? SignatureVerifier(keys: [signer.key], signatureSize: size),
          let rotation = try? SignatureVerifier(keys: [rotated, signer.key], signatureSize: size)
    else { preconditionFailure("a key of \(key.count) bytes and size \(size) were refused") }

    // Signed, it verifies, alone and among rotated keys.
    let path = text.utf8.first == UInt8(ascii: "/") ? text : "/" + text
    let signedPath = signer.signedPath(text)
    let signature = signer.signature(for: path)
    precondition(signedPath == "/" + signature + path && !signature.contains("/") && !signature.contains(":"))
    precondition(Base64URL.decode(signature) == signer.digest(for: path) && signer.digest(for: path).count == size)
    for verifier in [alone, rotation] {
        do {
            try verifier.verify(signature: signature, path: path)
        } catch {
            preconditionFailure("\(signedPath) does not verify: \(error)")
        }
    }
    // Through the parser, when the path is one the parser signs as given (no query, nothing repaired).
    if let parser = try? ImgproxyURLParser(verifier: rotation), !path.unicodeScalars.contains("?"),
       case let rest = String(Substring(Substring(path).unicodeScalars.dropFirst())), PathRepair.repaired(rest) == rest {
        do {
            _ = try parser.parse(path: signedPath)
        } catch {
            precondition(error != .invalidSignature && error != .signatureLooksLikeOption, "\(signedPath): \(error)")
        }
    }

    // Changed, it fails: the path (where a truncated signature leaves chance out: 8 bytes and
    // more), the signature's bytes (always).
    var changed = Array(path.utf8)
    let index = position % changed.count
    changed[index] = changed[index] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
    let changedPaths = [String(decoding: changed, as: UTF8.self), path + "x", String(path.dropLast())]
    // A path without its leading `/` is signed with one, as imgproxy does: that is no change.
    for other in changedPaths where (other.utf8.first == UInt8(ascii: "/") ? other : "/" + other) != path && size >= 8 {
        precondition((try? alone.verify(signature: signature, path: other)) == nil, "\(signature) verifies \(other) too")
        precondition((try? rotation.verify(signature: signature, path: other)) == nil, "\(signature) verifies \(other) too")
    }
    var digest = signer.digest(for: path)
    digest[position % digest.count] ^= 1 << (position % 8)
    let forged = Base64URL.encode(digest)
    // (Among rotated keys, a truncated signature can be another key's by chance: 8 bytes and more.)
    for verifier in size >= 8 ? [alone, rotation] : [alone] {
        precondition((try? verifier.verify(signature: forged, path: path)) == nil, "\(forged) verifies \(path)")
        precondition((try? verifier.verify(signature: Base64URL.encode(digest.dropLast()), path: path)) == nil)
        precondition((try? verifier.verify(signature: signature + "A", path: path)) == nil)
    }

    // Any text as a signature: no crash; trusted signatures pass whatever the path.
    _ = try? rotation.verify(signature: text, path: path)
    if let trusting = try? SignatureVerifier(keys: [signer.key], signatureSize: size, trustedSignatures: [text]) {
        precondition((try? trusting.verify(signature: text, path: "/anything")) != nil)
    }
    return 0
}
