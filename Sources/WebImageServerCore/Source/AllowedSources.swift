import Foundation

/// `ALLOWED_SOURCES`: URL prefixes a remote source must start with, `*` standing for any run of
/// characters but `/` (so `https://*.example.com/` allows every subdomain and nothing after a
/// `@` trick: `https://example.com@evil.com/` does not start with `https://example.com/`).
/// None: every source passes (the source guard still checks addresses).
struct AllowedSources: Sendable {
    private let patterns: [[Substring]]

    init(_ prefixes: [String]) {
        patterns = prefixes.map { $0.split(separator: "*", omittingEmptySubsequences: false) }
    }

    func allows(_ url: URL) -> Bool {
        guard !patterns.isEmpty else { return true }
        let text = Substring(url.absoluteString)
        return patterns.contains { Self.matches(text, pieces: $0[...]) }
    }

    /// Whether `text` starts with the pieces joined by runs of non-`/` characters.
    private static func matches(_ text: Substring, pieces: ArraySlice<Substring>) -> Bool {
        guard let first = pieces.first else { return true }
        guard text.hasPrefix(first) else { return false }
        let rest = text.dropFirst(first.count)
        guard pieces.count > 1 else { return true }
        // Try every length of the wildcard's run, shortest first; it never crosses a `/`.
        var candidate = rest
        while true {
            if matches(candidate, pieces: pieces.dropFirst()) { return true }
            guard let next = candidate.first, next != "/" else { return false }
            candidate = candidate.dropFirst()
        }
    }
}
