// The request headers the server reads besides the path: `Cookie` (`SourceCookies`, for
// `COOKIE_PASSTHROUGH`, as Go's `Request.Cookies` and cookie jar read it) and `Authorization`
// (`BearerSecret`, for `SECRET`). The input's first line is a secret, each line after it a
// header field. Cookies read must be what a cookie may be, and the header sent with them must
// read back as the same cookies; the secret must admit its own field and no other bytes.
import Foundation
@testable import WebImageServer
@testable import WebImageServerCore
import FuzzerMain

let semicolon = UInt8(ascii: ";")

/// A byte of an HTTP token.
func isToken(_ byte: UInt8) -> Bool {
    (byte >= 0x21 && byte < 0x7F) && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
}

/// Whether `value`, as sent, is one Go's reader keeps: printable ASCII but `"`, `;` and `\`,
/// within outer quotes when it holds a space or a comma.
func isSendable(_ value: String) -> Bool {
    var bytes = Substring(value).utf8[...]
    if bytes.count > 1, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") {
        bytes = bytes.dropFirst().dropLast()
        if bytes.isEmpty { return false }
    } else if bytes.contains(UInt8(ascii: " ")) || bytes.contains(UInt8(ascii: ",")) {
        return false
    }
    return bytes.allSatisfy { (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\"") && $0 != semicolon && $0 != UInt8(ascii: "\\") }
}

func checkCookies(_ fields: [String]) {
    let cookies = SourceCookies.cookies(in: fields)
    let parts = fields.reduce(0) { $0 + $1.utf8.count(where: { $0 == semicolon }) + 1 }
    precondition(cookies.count <= min(parts, SourceCookies.maximumCount), "\(cookies.count) cookies of \(parts) parts")
    for cookie in cookies {
        precondition(!cookie.name.isEmpty && cookie.name.utf8.allSatisfy(isToken), "name \(cookie.name)")
        precondition(isSendable(cookie.value), "\(cookie.name): value \(cookie.value)")
        precondition(fields.contains { $0.utf8.firstRange(of: cookie.name.utf8) != nil }, "\(cookie.name) is in no field")
    }
    // What the source's fetch carries reads back as the same cookies, at once or field by field.
    let sent = cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    let again = SourceCookies.cookies(in: [sent])
    precondition(again.map(\.name) == cookies.map(\.name) && again.map(\.value) == cookies.map(\.value), "\(fields) sent as \(sent)")
    // The scope's jar: each name once, with its last value, in the order names first came.
    let kept = SourceCookies.lastOfEachName(cookies)
    var firstNames: [String] = []
    for cookie in cookies where !firstNames.contains(cookie.name) { firstNames.append(cookie.name) }
    precondition(kept.map(\.name) == firstNames)
    for cookie in kept { precondition(cookie.value == cookies.last { $0.name == cookie.name }?.value) }
}

func checkScope(_ text: String) {
    _ = SourceCookies.canonicalHost(text)
    let path = text.utf8.first == UInt8(ascii: "/") ? text : "/" + text
    let folder = SourceCookies.defaultPath(path)
    precondition(folder.utf8.first == UInt8(ascii: "/") && SourceCookies.pathMatches(path, folder), "\(path) is not within its folder \(folder)")
    precondition(SourceCookies.pathMatches(path, path) && SourceCookies.pathMatches(path, "/"))
}

func checkSecret(_ secret: String, _ fields: [String]) {
    let check = BearerSecret(secret)
    let expected = Array("Bearer \(secret)".utf8)
    precondition(check.admits(authorization: "Bearer " + secret), "its own field refused")
    precondition(!check.admits(authorization: nil) && !check.admits(authorization: "bearer " + secret) && !check.admits(authorization: "Bearer " + secret + " "))
    for field in fields {
        precondition(check.admits(authorization: field) == (Array(field.utf8) == expected), "\(field) for \(secret)")
    }
}

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let secret = lines.first ?? "", fields = Array(lines.dropFirst())
    checkCookies(fields)
    checkCookies([text])
    checkSecret(secret, fields)
    for field in fields.prefix(4) { checkScope(field) }
    return 0
}
