import Crypto
import Foundation

/// AWS Signature Version 4 (the `Authorization: AWS4-HMAC-SHA256 ...` header), as AWS documents
/// it: a canonical request (method, path, sorted query, sorted lower-case headers, the signed
/// header names, the payload's SHA-256), a string to sign (algorithm, time, scope, the canonical
/// request's SHA-256), and an HMAC-SHA256 chain from `AWS4` + secret through date, region,
/// service and `aws4_request`. Checked against AWS's published test suite and botocore's signer
/// (`SignatureV4Tests`).
struct SignatureV4: Sendable {
    let credentials: AWSCredentials
    let region: String
    let service: String
    /// S3 signs the path as sent (it is encoded once); other services normalise it (`.`, `..`
    /// and repeated slashes) and encode it again.
    let normalizesPath: Bool

    /// A request as the signer reads it.
    struct Request: Sendable {
        var method: String
        /// The path as in the request line (percent-encoded as sent).
        var path: String
        /// The query as sent, without `?`; empty for none.
        var query: String
        /// Every header to sign, `Host` among them, in any case and order (a name may repeat).
        var headers: [(name: String, value: String)]
        /// The payload's SHA-256 in lower-case hex (or `UNSIGNED-PAYLOAD`).
        var payloadHash: String
    }

    /// The SHA-256 of an empty payload, as a GET sends.
    static let emptyPayloadHash = payloadHash(Data())

    /// A payload's SHA-256 in lower-case hex.
    static func payloadHash(_ payload: Data) -> String { hex(SHA256.hash(data: payload)) }

    /// `20150830T123600Z`: the `X-Amz-Date` form of `date`.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { let text = String(value ?? 0); return text.count < 2 ? "0" + text : text }
        return String(parts.year ?? 1970) + two(parts.month) + two(parts.day) + "T" + two(parts.hour) + two(parts.minute) + two(parts.second) + "Z"
    }

    // MARK: The steps

    func canonicalRequest(_ request: Request) -> String {
        let headers = Self.canonicalHeaders(request.headers)
        return [
            request.method.uppercased(),
            canonicalPath(request.path),
            Self.canonicalQuery(request.query),
            headers.map { "\($0.name):\($0.value)\n" }.joined(),
            headers.map(\.name).joined(separator: ";"),
            request.payloadHash,
        ].joined(separator: "\n")
    }

    /// `yyyyMMdd/region/service/aws4_request`.
    func scope(timestamp: String) -> String {
        "\(timestamp.prefix(8))/\(region)/\(service)/aws4_request"
    }

    func stringToSign(canonicalRequest: String, timestamp: String) -> String {
        ["AWS4-HMAC-SHA256", timestamp, scope(timestamp: timestamp), Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
    }

    func signature(stringToSign: String, timestamp: String) -> String {
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [String(timestamp.prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
    }

    /// The `Authorization` value of `request` signed at `timestamp` (its `X-Amz-Date`, which
    /// `request.headers` must hold).
    func authorization(_ request: Request, timestamp: String) -> String {
        let signed = Self.canonicalHeaders(request.headers).map(\.name).joined(separator: ";")
        let toSign = stringToSign(canonicalRequest: canonicalRequest(request), timestamp: timestamp)
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(timestamp: timestamp)), "
            + "SignedHeaders=\(signed), Signature=\(signature(stringToSign: toSign, timestamp: timestamp))"
    }

    /// The headers that sign a request for `url` at `date` whose body has `payloadHash` (none
    /// by default): `Host`, `X-Amz-Date`, `X-Amz-Content-SHA256`, `X-Amz-Security-Token` for
    /// temporary credentials, `extra` (signed too: a PUT's `Content-MD5` and `x-amz-meta-*`), and
    /// `Authorization`. Nil when `url` has no host.
    func headers(
        method: String = "GET", url: URL, date: Date, payloadHash: String = emptyPayloadHash, extra: [(name: String, value: String)] = []
    ) -> [(name: String, value: String)]? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let host = components.host, !host.isEmpty else {
            return nil
        }
        let scheme = components.scheme?.lowercased()
        let defaultPort = scheme == "https" ? 443 : 80
        let hostField = components.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
        let timestamp = Self.timestamp(date)
        var headers: [(name: String, value: String)] = [
            ("Host", hostField), ("X-Amz-Date", timestamp), ("X-Amz-Content-SHA256", payloadHash),
        ]
        if let token = credentials.sessionToken { headers.append(("X-Amz-Security-Token", token)) }
        headers += extra
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let request = Request(method: method, path: path, query: components.percentEncodedQuery ?? "", headers: headers, payloadHash: payloadHash)
        return headers + [("Authorization", authorization(request, timestamp: timestamp))]
    }

    // MARK: Canonical forms

    private func canonicalPath(_ path: String) -> String {
        guard normalizesPath else { return path.isEmpty ? "/" : path }
        // RFC 3986's dot segments removed and empty segments dropped, then every byte but the
        // unreserved ones and `/` encoded (a `%` already there included).
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        let trailing = path.hasSuffix("/") && !segments.isEmpty
        return "/" + segments.map { Self.uriEncoded(String($0)) }.joined(separator: "/") + (trailing ? "/" : "")
    }

    /// Each `name=value` decoded and encoded again as AWS encodes, sorted by name then value.
    static func canonicalQuery(_ query: String) -> String {
        guard !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { item -> (String, String) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func encoded(_ text: Substring) -> String { uriEncoded(percentDecoded(String(text))) }
            return (encoded(parts[0]), parts.count > 1 ? encoded(parts[1]) : "")
        }
        return pairs.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// Lower-case names, sorted; values trimmed, inner runs of spaces made one, and the values of
    /// a repeated name joined by commas in the order given.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let trimmed = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            values[name.lowercased(), default: []].append(trimmed)
        }
        return values.keys.sorted().map { (name: $0, value: values[$0, default: []].joined(separator: ",")) }
    }

    /// AWS's URI encoding: every byte but `A-Z a-z 0-9 - _ . ~` as `%XX` (upper-case hex);
    /// `/` too unless `keepingSlashes`.
    static func uriEncoded(_ text: String, keepingSlashes: Bool = false) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                result.append("/")
            default:
                result += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }

    /// `%XX` escapes decoded (others kept as written); bytes that are not UTF-8 kept escaped.
    private static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
               let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func hex(_ digest: SHA256.Digest) -> String { hex(Array(digest)) }
    static func hex(_ code: HMAC<SHA256>.MAC) -> String { hex(Array(code)) }
}
