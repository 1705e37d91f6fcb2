/// One entry of `URL_REPLACEMENTS` (`pattern=replacement`): a source URL that starts with
/// `pattern` has that start replaced, as imgproxy does (`env.RegexpFromPattern`, then Go's
/// `Regexp.ReplaceAllString`). The pattern is a prefix in which each `*` stands for a run of any
/// characters but `/` (as long as it can be while the rest still matches); the replacement may
/// name those runs as `$1` / `${1}` (`$0`: the whole match, `$$`: a `$`).
public struct URLReplacement: Sendable, Hashable {
    public let pattern: String
    public let replacement: String
    /// The pattern's literal pieces around its `*`s, as Unicode scalars (Go's regexp reads runes).
    private let pieces: [[Unicode.Scalar]]

    public init(pattern: String, replacement: String) {
        self.pattern = pattern
        self.replacement = replacement
        pieces = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.unicodeScalars) }
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
        let text = Array(url.unicodeScalars)
        guard let (end, runs) = match(text) else { return url }
        let string = { (range: Range<Int>) in String(String.UnicodeScalarView(text[range])) }
        return expand(groups: [string(0..<end)] + runs.map(string)) + string(end..<text.count)
    }

    /// Where a match at the start of `text` ends, and the run each `*` took, as Go's
    /// `^piece([^/]*)piece…` takes them: each run as long as it can be while the rest still
    /// matches, the first first. Linear in the text (for a pattern of few pieces): which
    /// positions each rest of the pattern matches from is worked out once, from the last piece
    /// back, rather than by trying every split of a run (which a run of thousands of characters
    /// and a few `*`s make take for ever).
    private func match(_ text: [Unicode.Scalar]) -> (Int, [Range<Int>])? {
        let count = text.count
        let isPiece = { (piece: [Unicode.Scalar], at: Int) in
            at + piece.count <= count && text[at..<(at + piece.count)].elementsEqual(piece)
        }
        // runEnd[p]: where a run from p must stop, at the next `/` or the end.
        var runEnd = [Int](repeating: count, count: count + 1)
        for position in stride(from: count - 1, through: 0, by: -1) {
            runEnd[position] = text[position] == "/" ? position : runEnd[position + 1]
        }
        // latest[i][q]: the latest position at or before q from which pieces i... match; -1: none.
        var latest = [[Int]](repeating: [], count: pieces.count)
        for index in pieces.indices.reversed() {
            var row = [Int](repeating: -1, count: count + 1)
            for position in 0...count {
                var matches = isPiece(pieces[index], position)
                if matches, index + 1 < pieces.count {
                    // A run from after this piece, ending where the next pieces match.
                    let start = position + pieces[index].count
                    matches = latest[index + 1][runEnd[start]] >= start
                }
                row[position] = matches ? position : (position > 0 ? row[position - 1] : -1)
            }
            latest[index] = row
        }
        guard !pieces.isEmpty, latest[0][0] == 0 else { return nil }
        var position = pieces[0].count
        var runs: [Range<Int>] = []
        for index in pieces.indices.dropFirst() {
            let end = latest[index][runEnd[position]]
            runs.append(position..<end)
            position = end + pieces[index].count
        }
        return (position, runs)
    }

    /// The replacement with its `$` references filled from `groups` (Go's `Regexp.Expand`: a
    /// name is the longest run of letters, digits and `_`; a number names a group, none there
    /// gives nothing; a `$` that starts no reference stays).
    private func expand(groups: [String]) -> String {
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
