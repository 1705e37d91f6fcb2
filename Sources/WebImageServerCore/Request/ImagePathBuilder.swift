/// Builds imgproxy paths, `/{options}/{source}`, for signing: what `webimage sign` prints
/// and what URL builders in other languages make.
public enum ImagePathBuilder {
    /// How the source URL is written into the path.
    public enum SourceEncoding: String, Sendable, CaseIterable {
        /// URL-safe base64 without padding, in chunks of 16 characters as imgproxy's
        /// documentation writes it; the extension after a `.`.
        case base64
        /// `plain/` and the URL percent-escaped; the extension after an `@`.
        case plain
    }

    /// The unsigned path for `sourceURL` processed by `options` (slash-separated, as in a URL:
    /// `rs:fill:300:200/g:sm`; empty for none), in `format` when given (an extension: `webp`).
    public static func path(options: String, sourceURL: String, format: String? = nil, encoding: SourceEncoding = .base64) -> String {
        let trimmed = options.split(separator: "/").joined(separator: "/")
        let source: String
        switch encoding {
        case .base64:
            let encoded = Array(Base64URL.encode(Array(sourceURL.utf8)))
            let chunks = stride(from: 0, to: encoded.count, by: 16).map { String(encoded[$0..<min($0 + 16, encoded.count)]) }
            source = chunks.joined(separator: "/") + (format.map { "." + $0 } ?? "")
        case .plain: source = "plain/" + escaped(sourceURL) + (format.map { "@" + $0 } ?? "")
        }
        return "/" + (trimmed.isEmpty ? "" : trimmed + "/") + source
    }

    /// `url` with every byte outside RFC 3986's unreserved characters, `:`, `/` and the
    /// sub-delimiters percent-escaped (`%`, `?`, `#`, `@`, spaces, non-ASCII among them).
    static func escaped(_ url: String) -> String {
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/!$&'()*+,;=".utf8)
        var result = ""
        for byte in url.utf8 {
            if kept.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}
