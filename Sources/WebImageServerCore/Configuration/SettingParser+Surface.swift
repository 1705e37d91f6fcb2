import Foundation

/// The parsers of the request surface's settings: paths, the fallback image, URL rewrites.
extension SettingParser where Value == String {
    /// A URL path such as `/images` (`PATH_PREFIX`, `HEALTH_CHECK_PATH`), as imgproxy 3.x read
    /// them: a missing leading `/` added, a trailing one dropped (`/` alone: the root, empty).
    /// Segments hold unreserved characters only (`A-Z a-z 0-9 - . _ ~`), so that the path is
    /// matched as written.
    static var urlPath: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                let segments = text.trimmingSpaces.split(separator: "/")
                let unreserved = { (character: Character) in character.isASCII && (character.isLetter || character.isNumber || "-._~".contains(character)) }
                guard segments.allSatisfy({ $0.allSatisfy(unreserved) && $0 != "." && $0 != ".." }) else {
                    throw ImageServerConfigurationError(problems: ["\"\(text)\" is not a path of letters, digits, -, ., _ and ~ between slashes"])
                }
                return segments.map { "/" + $0 }.joined()
            },
            text: { $0.isEmpty ? "none" : $0 }
        )
    }

    /// Any text, written "none" when empty (`BASE_URL`).
    static var prefix: Self { Self(parse: { $0 }, text: { $0.isEmpty ? "none" : $0 }) }

    /// `ARGUMENTS_SEPARATOR`: any text but one holding `/`, which separates options.
    static var argumentsSeparator: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard !text.contains("/") else {
                    throw ImageServerConfigurationError(problems: ["\"\(text)\" holds /, which separates the options themselves"])
                }
                return text
            },
            text: { $0 }
        )
    }

    /// Standard base64 (`FALLBACK_IMAGE_DATA`), white space ignored; kept as written. The text is
    /// not quoted in the problem: it is long.
    static var base64: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard Self.decodedBase64(text) != nil else {
                    throw ImageServerConfigurationError(problems: ["\(text.count) characters that are not standard base64"])
                }
                return text
            },
            text: { _ in "data" }
        )
    }

    /// The bytes of standard base64 text, white space ignored.
    static func decodedBase64(_ text: String) -> Data? {
        Data(base64Encoded: String(text.filter { !$0.isWhitespace }))
    }
}

extension SettingParser where Value == Int {
    /// An HTTP status, 100...599, or 0 (`FALLBACK_IMAGE_HTTP_CODE`: the failure's own status).
    static var statusOrZero: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard let number = Int(text.trimmingSpaces), number == 0 || (100...599).contains(number) else {
                    throw ImageServerConfigurationError(problems: ["\"\(text)\" is not an HTTP status (100...599) or 0"])
                }
                return number
            },
            text: { String($0) }
        )
    }
}

extension SettingParser where Value == [URLReplacement] {
    /// `pattern=replacement;pattern=replacement` (`URL_REPLACEMENTS`).
    static var urlReplacements: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in try URLReplacement.list(parsing: text) },
            text: { $0.isEmpty ? "none" : $0.map { "\($0.pattern)=\($0.replacement)" }.joined(separator: ";") }
        )
    }
}
