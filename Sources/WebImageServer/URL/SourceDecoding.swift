/// The source segments of a path decoded into a URL and the extension after it: `plain/URL@ext`
/// (percent-escaped) or URL-safe base64 in any number of `/` chunks with `.ext` after
/// (imgproxy's `options/parser/url.go`).
enum SourceDecoding {
    static func decode(_ segments: [String], schemes: Set<String>) throws(ImageServerError) -> ImgproxySource {
        guard let first = segments.first else { throw .invalidSource("the source is missing") }
        let url: String, fileExtension: String?
        if first == "plain", segments.count > 1 {
            let encoded = segments.dropFirst().joined(separator: "/")
            let (body, suffix) = try split(encoded, at: "@")
            guard let unescaped = PercentDecoding.pathUnescaped(body) else { throw .invalidSource("a bad percent escape") }
            (url, fileExtension) = (unescaped, suffix)
        } else {
            let encoded = segments.joined()
            let (body, suffix) = try split(encoded, at: ".")
            guard let bytes = Base64URL.decode(body), let text = String(validating: bytes, as: UTF8.self) else {
                throw .invalidSource("not URL-safe base64 of a UTF-8 URL")
            }
            (url, fileExtension) = (text, suffix)
        }
        guard !url.isEmpty else { throw .invalidSource("the source URL is empty") }
        guard let scheme = scheme(of: url)?.lowercased() else { throw .invalidSource("the source URL has no scheme") }
        guard schemes.contains(scheme) else { throw .unsupportedSourceScheme(scheme) }
        return ImgproxySource(url: url, scheme: scheme, fileExtension: fileExtension)
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
