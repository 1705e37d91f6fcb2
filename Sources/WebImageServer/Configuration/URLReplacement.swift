/// One entry of `URL_REPLACEMENTS` (`pattern=replacement`): a source URL that starts with
/// `pattern` has that start replaced, as imgproxy does (`env.RegexpFromPattern`, then Go's
/// `Regexp.ReplaceAllString`). The pattern is a prefix in which each `*` stands for a run of any
/// characters but `/` (as long as it can be while the rest still matches); the replacement may
/// name those runs as `$1` / `${1}` (`$0`: the whole match, `$$`: a `$`).
public struct URLReplacement: Sendable, Hashable {
    public let pattern: String
    public let replacement: String
    /// The pattern's literal pieces around its `*`s.
    private let pieces: [Substring]

    public init(pattern: String, replacement: String) {
        self.pattern = pattern
        self.replacement = replacement
        pieces = pattern.split(separator: "*", omittingEmptySubsequences: false)
    }

    /// `URL_REPLACEMENTS`'s text form, `pattern=replacement;pattern=replacement`, as imgproxy
    /// reads it: nothing trimmed, each entry split at its first `=`; an entry without one (an
    /// empty entry too, as a trailing `;` makes) is refused.
    public static func list(parsing text: String) throws(ImageServerConfigurationError) -> [URLReplacement] {
        var list: [URLReplacement] = []
        for entry in text.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = entry.firstIndex(of: "=") else {
                throw ImageServerConfigurationError(problems: ["\"\(entry)\" is not pattern=replacement (entries are separated by ;)"])
            }
            list.append(URLReplacement(pattern: String(entry[..<equals]), replacement: String(entry[entry.index(after: equals)...])))
        }
        return list
    }

    /// `url` with its start replaced when the pattern matches it; else `url` as it is.
    public func applied(to url: String) -> String {
        let text = Substring(url)
        guard let (end, runs) = Self.match(text, pieces: pieces[...]) else { return url }
        let whole = text[..<end]
        return expand(groups: [whole] + runs) + text[end...]
    }

    /// Where a match of `pieces` at the start of `text` ends, and the run each `*` took: the
    /// longest run first, as Go's greedy `([^/]*)` takes it.
    private static func match(_ text: Substring, pieces: ArraySlice<Substring>) -> (String.Index, [Substring])? {
        guard let first = pieces.first else { return (text.startIndex, []) }
        guard text.hasPrefix(first) else { return nil }
        let rest = text.dropFirst(first.count)
        guard pieces.count > 1 else { return (rest.startIndex, []) }
        let runEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var end = runEnd
        while true {
            if let (matchEnd, runs) = match(text[end...], pieces: pieces.dropFirst()) {
                return (matchEnd, [rest[..<end]] + runs)
            }
            guard end > rest.startIndex else { return nil }
            end = rest.index(before: end)
        }
    }

    /// The replacement with its `$` references filled from `groups` (Go's `Regexp.Expand`: a
    /// name is the longest run of letters, digits and `_`; a number names a group, none there
    /// gives nothing; a `$` that starts no reference stays).
    private func expand(groups: [Substring]) -> String {
        var output = ""
        var rest = Substring(replacement)
        while let dollar = rest.firstIndex(of: "$") {
            output += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                output += "$"
                rest = rest.dropFirst()
                continue
            }
            guard let (name, after) = Self.reference(in: rest) else {
                output += "$"
                continue
            }
            rest = after
            if let number = Self.groupNumber(name), number < groups.count { output += groups[number] }
        }
        return output + rest
    }

    /// The name a reference starts with (`1` in `1x`, `1` in `{1}x`) and the text after it.
    private static func reference(in text: Substring) -> (Substring, Substring)? {
        let braced = text.first == "{"
        let body = braced ? text.dropFirst() : text
        let name = body.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !name.isEmpty else { return nil }
        var after = body[name.endIndex...]
        if braced {
            guard after.first == "}" else { return nil }
            after = after.dropFirst()
        }
        return (name, after)
    }

    /// A name's group number: digits without a leading zero, under 10^8.
    private static func groupNumber(_ name: Substring) -> Int? {
        guard name.allSatisfy({ $0.isASCII && $0.isNumber }), name.count <= 8, name == "0" || name.first != "0" else { return nil }
        return Int(name)
    }
}
