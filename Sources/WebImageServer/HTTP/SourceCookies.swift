import Foundation
import HTTPTypes
import Hummingbird

/// `COOKIE_PASSTHROUGH`: the `Cookie` header a source's fetch carries, from the image request's
/// cookies, as imgproxy's `cookies` package chooses them. The request's cookies are taken as set
/// by the scope `COOKIE_BASE_URL` names (else the request's own: `X-Forwarded-Proto` or http,
/// `X-Forwarded-Host` or `Host`) with no `Domain` and no `Path` attribute, as Go's cookie jar
/// keeps them: they go to a source on that host exactly (any port, any scheme) whose path is
/// within the scope's folder. With `COOKIE_PASSTHROUGH_ALL` all of them go to every http(s)
/// source. Names and values as the request sent them (Go's `Request.Cookies`: a name that is not
/// a token, or a value with a byte no cookie holds, is dropped).
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
    func header(for request: Request, source: SourceURL) -> String? {
        guard case .remote(let url) = source, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let cookies = Self.cookies(in: request.headers[values: .cookie])
        guard !cookies.isEmpty else { return nil }
        if !all {
            guard let scope = base ?? Self.requestScope(request), let host = url.host.map(Self.canonicalHost), host == scope.host,
                  Self.pathMatches(url.path.isEmpty ? "/" : url.path, scope.path)
            else { return nil }
        }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The scope of the request's own address (imgproxy's rule when `COOKIE_BASE_URL` is unset).
    private static func requestScope(_ request: Request) -> Scope? {
        let forwardedProto = request.headers[HTTPField.Name("X-Forwarded-Proto")!]
        let scheme = forwardedProto.flatMap { $0.isEmpty ? nil : $0 } ?? "http"
        let forwardedHost = request.headers[HTTPField.Name("X-Forwarded-Host")!].flatMap { $0.isEmpty ? nil : $0 }
        guard let host = forwardedHost ?? request.head.authority, !host.isEmpty else { return nil }
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

    /// Go's cookie jar `defaultPath`: the folder of `path`, `/` at least.
    static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// RFC 6265's path-match, as Go's jar does it.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// The cookies of `Cookie` fields, in order, as Go's `readCookies` reads them: `name=value`
    /// pairs split at `;`, a name a token, a value of printable ASCII but `"`, `;` and `\`
    /// (outer quotes allowed, and kept when sent, as Go quotes a value with a space or comma).
    static func cookies(in fields: [String]) -> [(name: String, value: String)] {
        var cookies: [(name: String, value: String)] = []
        for field in fields {
            for part in field.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
                var value = Substring(pair[pair.index(after: equals)...])
                var quoted = false
                if value.count > 1, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = value.dropFirst().dropLast()
                    quoted = true
                }
                guard !name.isEmpty, name.unicodeScalars.allSatisfy(isTokenCharacter),
                      value.unicodeScalars.allSatisfy({ (0x20..<0x7F).contains($0.value) && !"\";\\".unicodeScalars.contains($0) })
                else { continue }
                let sent = quoted || value.contains(" ") || value.contains(",") ? "\"\(value)\"" : String(value)
                cookies.append((name, sent))
            }
        }
        return cookies
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
    }
}
