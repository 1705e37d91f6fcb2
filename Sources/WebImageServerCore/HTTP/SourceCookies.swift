import Foundation
import HTTPTypes

/// `COOKIE_PASSTHROUGH`: the `Cookie` header a source's fetch carries, from the image request's
/// cookies, as imgproxy's `cookies` package chooses them. The request's cookies are taken as set
/// by the scope `COOKIE_BASE_URL` names (else the request's own: `X-Forwarded-Proto` or http,
/// `X-Forwarded-Host` or `Host`) with no `Domain` and no `Path` attribute, as Go's cookie jar
/// keeps them: they go to a source on that host exactly (any port, any scheme) whose path is
/// within the scope's folder. With `COOKIE_PASSTHROUGH_ALL` all of them go to every http(s)
/// source. Names and values as the request sent them (Go's `Request.Cookies`: a name that is not
/// a token, or a value with a byte no cookie holds, is dropped; a name sent twice is kept once,
/// with its last value, by the jar, and twice with `COOKIE_PASSTHROUGH_ALL`, whose jar keeps all).
struct SourceCookies: Sendable {
    /// The scope the request's cookies are taken as set for.
    struct Scope: Sendable, Equatable {
        var host: String
        /// Go's `defaultPath` of the scope URL's path: its folder, `/` at least.
        var path: String
    }

    let all: Bool
    /// `COOKIE_BASE_URL`'s scope; nil: the request's own.
    let base: Scope?

    /// The passthrough `configuration` asks for; nil when it is off.
    init?(configuration: ImageServerConfiguration) throws(ImageServerConfigurationError) {
        guard configuration.cookiePassthrough else { return nil }
        all = configuration.cookiePassthroughAll
        if let text = configuration.cookieBaseURL, !all {
            guard let url = URL(string: text), let scope = Self.scope(scheme: url.scheme, host: url.host, path: url.path) else {
                throw ImageServerConfigurationError(problems: [
                    "\(ImageServerConfiguration.names(of: \.cookieBaseURL)): \"\(text)\" is not an http(s) URL with a host",
                ])
            }
            base = scope
        } else {
            base = nil
        }
    }

    /// The `Cookie` header for fetching `source` on behalf of `request`; nil when no cookie goes.
    func header(for request: HTTPRequest, source: SourceURL) -> String? {
        guard case .remote(let url) = source, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        var cookies = Self.cookies(in: request.headerFields[values: .cookie])
        guard !cookies.isEmpty else { return nil }
        if !all {
            guard let scope = base ?? Self.requestScope(request), let host = url.host.map(Self.canonicalHost), host == scope.host,
                  Self.pathMatches(url.path.isEmpty ? "/" : url.path, scope.path)
            else { return nil }
            cookies = Self.lastOfEachName(cookies)
        }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The scope of the request's own address (imgproxy's rule when `COOKIE_BASE_URL` is unset).
    private static func requestScope(_ request: HTTPRequest) -> Scope? {
        let forwardedProto = request.headerFields[.xForwardedProto]
        let scheme = forwardedProto.flatMap { $0.isEmpty ? nil : $0 } ?? "http"
        let forwardedHost = request.headerFields[.xForwardedHost].flatMap { $0.isEmpty ? nil : $0 }
        guard let host = forwardedHost ?? request.authority, !host.isEmpty else { return nil }
        return scope(scheme: scheme, host: host, path: "")
    }

    /// A scope for a URL's parts; nil unless http(s) with a host (Go's jar keeps no other).
    private static func scope(scheme: String?, host: String?, path: String) -> Scope? {
        guard let scheme = scheme?.lowercased(), scheme == "http" || scheme == "https", let host, !host.isEmpty else { return nil }
        return Scope(host: canonicalHost(host), path: defaultPath(path))
    }

    /// `host` without its port and trailing dot, lowercased (Go's `canonicalHost`).
    static func canonicalHost(_ host: String) -> String {
        var host = Substring(host.lowercased())
        if host.hasPrefix("[") {
            if let close = host.firstIndex(of: "]") { host = host[host.index(after: host.startIndex)..<close] }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        return String(host)
    }

    /// Go's cookie jar `defaultPath`: the folder of `path`, `/` at least (by bytes, as Go: a `/`
    /// before a combining mark is one Swift Character with it).
    static func defaultPath(_ path: String) -> String {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/"), let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash != bytes.startIndex else { return "/" }
        return String(decoding: bytes[..<slash], as: UTF8.self)
    }

    /// RFC 6265's path-match, as Go's jar does it, by bytes.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        let request = Array(requestPath.utf8), cookie = Array(cookiePath.utf8)
        guard request.starts(with: cookie) else { return false }
        return request.count == cookie.count || cookie.last == UInt8(ascii: "/") || request[cookie.count] == UInt8(ascii: "/")
    }

    /// The most cookies Go reads from one request (`httpcookiemaxnum`'s default, since Go 1.25.2):
    /// a request that may hold more (counted as Go counts them, a `;`-separated part each) has none.
    static let maximumCount = 3000

    /// The cookies of `Cookie` fields, in order, as Go's `readCookies` reads them, byte by byte:
    /// parts split at `;`, spaces and tabs around them dropped; a part's name (up to its first `=`,
    /// or all of it: an empty value) a token; a value of printable ASCII but `"`, `;` and `\`
    /// (outer quotes allowed, and kept when sent, as Go quotes a value with a space or comma).
    static func cookies(in fields: [String]) -> [(name: String, value: String)] {
        let semicolon = UInt8(ascii: ";"), quote = UInt8(ascii: "\"")
        guard fields.reduce(0, { count, field in count + field.utf8.count(where: { $0 == semicolon }) + 1 }) <= maximumCount else { return [] }
        var cookies: [(name: String, value: String)] = []
        for field in fields {
            for part in field.utf8.split(separator: semicolon) {
                let pair = trimmingSpaces(part)
                guard !pair.isEmpty else { continue }
                let equals = pair.firstIndex(of: UInt8(ascii: "="))
                let name = trimmingSpaces(pair[..<(equals ?? pair.endIndex)])
                var value = equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
                var quoted = false
                if value.count > 1, value.first == quote, value.last == quote {
                    value = value.dropFirst().dropLast()
                    quoted = true
                }
                guard !name.isEmpty, name.allSatisfy(isTokenByte), value.allSatisfy(isValueByte) else { continue }
                let text = String(decoding: value, as: UTF8.self)
                let sent = !value.isEmpty && (quoted || value.contains(UInt8(ascii: " ")) || value.contains(UInt8(ascii: ","))) ? "\"\(text)\"" : text
                cookies.append((String(decoding: name, as: UTF8.self), sent))
            }
        }
        return cookies
    }

    /// The cookies a Go cookie jar keeps of `cookies` set at once: one of each name, the last
    /// one's value in the first one's place.
    static func lastOfEachName(_ cookies: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var kept: [(name: String, value: String)] = []
        var places: [String: Int] = [:]
        for cookie in cookies {
            if let place = places[cookie.name] {
                kept[place].value = cookie.value
            } else {
                places[cookie.name] = kept.count
                kept.append(cookie)
            }
        }
        return kept
    }

    /// `bytes` without the spaces and tabs around them (Go's `textproto.TrimString`; a field
    /// holds no line break).
    private static func trimmingSpaces(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }

    /// A byte of an HTTP token (RFC 9110's `tchar`).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// A byte a cookie's value may hold (Go's `validCookieValueByte`).
    private static func isValueByte(_ byte: UInt8) -> Bool {
        (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: ";") && byte != UInt8(ascii: "\\")
    }
}
