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
