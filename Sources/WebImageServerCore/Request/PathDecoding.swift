import Foundation


/// imgproxy's repairs of paths that CDNs and proxies normalised (`handlers/path.go`): `%3A`
/// in the options turned back into `:`, and a plain source's `scheme:/x` back into
/// `scheme://x` (`local:/x` into `local:///x`).
enum PathRepair {
    /// `path`: everything after the signature segment, without its leading `/`.
    static func repaired(_ path: String) -> String {
        let options: Substring, plain: Substring?
        if path.hasPrefix("plain/") {
            (options, plain) = ("", path.dropFirst("plain/".count))
        } else if let range = path.range(of: "/plain/") {
            (options, plain) = (path[..<range.lowerBound], path[range.upperBound...])
        } else {
            (options, plain) = (Substring(path), nil)
        }
        let repairedOptions = options.replacingOccurrences(of: "%3A", with: ":")
        guard let plain else { return repairedOptions }
        let source = repairedScheme(String(plain))
        return repairedOptions.isEmpty ? "plain/" + source : repairedOptions + "/plain/" + source
    }

    /// `scheme:/x` (a single slash, then not a slash) as `scheme://x`.
    private static func repairedScheme(_ source: String) -> String {
        guard let scheme = SourceDecoding.scheme(of: source) else { return source }
        let rest = source.dropFirst(scheme.count + 1)
        guard rest.hasPrefix("/"), !rest.dropFirst().hasPrefix("/"), rest.count > 1 else { return source }
        let slashes = scheme == "local" ? "///" : "//"
        return String(scheme) + ":" + slashes + String(rest.dropFirst())
    }
}

/// Go's `url.PathUnescape`: `%XX` escapes decoded, `+` kept, a `%` without two hex digits
/// refused; the result must be UTF-8.
enum PercentDecoding {
    static func pathUnescaped(_ text: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HexDigits.value), let low = iterator.next().flatMap(HexDigits.value) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// How a source URL is read beyond its encoding (imgproxy's `options/parser/url.go`): a base64
/// source's last segment taken as a file name (`BASE64_URL_INCLUDES_FILENAME`), then the decoded
/// URL rewritten by `URL_REPLACEMENTS`, then `BASE_URL` put before it unless it starts with it;
/// a `local://` or `s3://` URL's query after `SOURCE_URL_QUERY_SEPARATOR`.
struct SourceURLReading: Sendable {
    var base64IncludesFilename = false
    var replacements: [URLReplacement] = []
    var baseURL = ""
    /// What ends the path of a `local://` or `s3://` URL and starts its query; empty: nothing does.
    var querySeparator = "?"

    init() {}

    init(_ configuration: ProcessingConfiguration) {
        base64IncludesFilename = configuration.base64URLIncludesFilename
        replacements = configuration.urlReplacements
        baseURL = configuration.baseURL
        querySeparator = configuration.sourceURLQuerySeparator
    }

    /// `url` as decoded from the path, rewritten and based.
    func rewritten(_ url: String) -> String {
        let replaced = replacements.reduce(url) { url, replacement in replacement.applied(to: url) }
        return baseURL.isEmpty || replaced.hasPrefix(baseURL) ? replaced : baseURL + replaced
    }
}

/// The source segments of a path decoded into a URL and the extension after it: `plain/URL@ext`
/// (percent-escaped) or URL-safe base64 in any number of `/` chunks with `.ext` after
/// (imgproxy's `options/parser/url.go`).
enum SourceDecoding {
    /// The source and the extension written after it (the output format), when any.
    static func decode(
        _ segments: [String], schemes: Set<String>, reading: SourceURLReading = SourceURLReading()
    ) throws(ImageServerError) -> (source: SourceURL, fileExtension: String?) {
        guard let first = segments.first else { throw .invalidSource("the source is missing") }
        var url: String, fileExtension: String?
        if first == "plain", segments.count > 1 {
            let encoded = segments.dropFirst().joined(separator: "/")
            let (body, suffix) = try split(encoded, at: "@")
            guard let unescaped = PercentDecoding.pathUnescaped(body) else { throw .invalidSource("a bad percent escape") }
            (url, fileExtension) = (unescaped, suffix)
        } else {
            let chunks = reading.base64IncludesFilename && segments.count > 1 ? segments.dropLast() : segments[...]
            let encoded = chunks.joined()
            let (body, suffix) = try split(encoded, at: ".")
            guard let bytes = Base64URL.decode(body), let text = String(validating: bytes, as: UTF8.self) else {
                throw .invalidSource("not URL-safe base64 of a UTF-8 URL")
            }
            (url, fileExtension) = (text, suffix)
        }
        url = reading.rewritten(url)
        guard !url.isEmpty else { throw .invalidSource("the source URL is empty") }
        guard let scheme = scheme(of: url)?.lowercased() else { throw .invalidSource("the source URL has no scheme") }
        guard schemes.contains(scheme) else { throw .unsupportedSourceScheme(scheme) }
        if scheme == "local" {
            guard url.hasPrefix("local://") else { throw .invalidSource("\(url) is not local://PATH") }
            // A query names nothing in a folder: cut, as imgproxy cuts it.
            let path = url.dropFirst("local://".count)
            let query = reading.querySeparator.isEmpty ? nil : path.range(of: reading.querySeparator)
            return (.local(path: String(path[..<(query?.lowerBound ?? path.endIndex)])), fileExtension)
        }
        if scheme == "s3" {
            guard let object = S3ObjectAddress(url, querySeparator: reading.querySeparator) else { throw .invalidSource("\(url) is not s3://BUCKET/KEY") }
            return (.s3(object), fileExtension)
        }
        guard let remote = URL(string: url), remote.host != nil else { throw .invalidSource("\(url) is not a URL") }
        return (.remote(remote), fileExtension)
    }

    /// `text` before and after its only `separator`; two of them are refused.
    private static func split(_ text: String, at separator: Character) throws(ImageServerError) -> (String, String?) {
        let parts = text.split(separator: separator, omittingEmptySubsequences: false)
        guard !parts[0].isEmpty else { throw .invalidSource("the source URL is empty") }
        guard parts.count <= 2 else { throw .invalidSource("more than one format is given") }
        return (String(parts[0]), parts.count == 2 && !parts[1].isEmpty ? String(parts[1]) : nil)
    }

    /// The scheme before the first `:`, as written, when the URL starts with one (RFC 3986:
    /// a letter, then letters, digits, `+`, `-`, `.`).
    static func scheme(of url: String) -> Substring? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme
    }
}
