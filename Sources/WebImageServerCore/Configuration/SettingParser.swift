import Foundation
import WebImage

/// How a setting's text becomes its value, and a value the text a user would write for it.
struct SettingParser<Value>: Sendable {
    /// The value `text` (set, not empty) holds; throws why it holds none, quoting it.
    let parse: @Sendable (String) throws(ImageServerConfigurationError) -> Value
    /// `value` as the setting writes it.
    let text: @Sendable (Value) -> String

    /// The problem of `text` that is not `expected`: `"two" is not a whole number in 1...32`.
    fileprivate static func notA(_ expected: String, _ text: String) -> ImageServerConfigurationError {
        ImageServerConfigurationError(problems: ["\"\(text)\" is not \(expected)"])
    }

    /// `wrapped`'s values, unset (`nil`, written "none") until the setting is given.
    static func optional<Wrapped>(_ wrapped: SettingParser<Wrapped>) -> SettingParser<Wrapped?> where Value == Wrapped? {
        SettingParser<Wrapped?>(parse: { text throws(ImageServerConfigurationError) in try wrapped.parse(text) }, text: { $0.map(wrapped.text) ?? "none" })
    }
}

extension SettingParser where Value == Int {
    /// A whole number in `range`.
    static func int(in range: ClosedRange<Int> = 0...Int.max) -> Self {
        let expected =
            range.upperBound == Int.max ? "a whole number, \(range.lowerBound) or more" : "a whole number in \(range.lowerBound)...\(range.upperBound)"
        return Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard let number = Int(text.trimmingSpaces), range.contains(number) else { throw notA(expected, text) }
                return number
            },
            text: { String($0) }
        )
    }

    /// A count of megapixels (`50`, `0.5`) held as pixels, as imgproxy reads `MAX_SRC_RESOLUTION`
    /// (to the nearest pixel: imgproxy truncates, and `0.123456` would be 123,455 pixels, written
    /// back as `0.123455`).
    static var megapixels: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard let number = Double(text.trimmingSpaces), number.isFinite, number >= 0, number < Double(Int.max / 1_000_000) else {
                    throw notA("a number of megapixels", text)
                }
                return Int((number * 1_000_000).rounded())
            },
            text: { pixels in shortText(Double(pixels) / 1_000_000) }
        )
    }
}

extension SettingParser where Value == TimeInterval {
    /// A number of seconds above 0 (`2.5`).
    static var seconds: Self { seconds(allowingZero: false, expected: "a number of seconds above 0") }

    /// A number of seconds, 0 or more (0: off, for `KEEP_ALIVE_TIMEOUT`).
    static var secondsOrZero: Self { seconds(allowingZero: true, expected: "a number of seconds, 0 or more") }

    /// A finite number of seconds above 0, or 0 too when `allowingZero`.
    private static func seconds(allowingZero: Bool, expected: String) -> Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard let number = Double(text.trimmingSpaces), number.isFinite, allowingZero ? number >= 0 : number > 0 else {
                    throw notA(expected, text)
                }
                return number
            },
            text: shortText
        )
    }
}

extension SettingParser where Value == Double {
    /// A fraction above 0, up to 1 (`WATERMARK_OPACITY`).
    static var opacity: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard let number = Double(text.trimmingSpaces), number > 0, number <= 1 else { throw notA("a number above 0, up to 1", text) }
                return number
            },
            text: shortText
        )
    }
}

extension SettingParser where Value == Bool {
    /// `true`, `yes`, `1`, `on` or `false`, `no`, `0`, `off`, in any case.
    static var bool: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                switch text.trimmingSpaces.lowercased() {
                case "true", "yes", "1", "on": return true
                case "false", "no", "0", "off": return false
                default: throw notA("true or false", text)
                }
            },
            text: { $0 ? "true" : "false" }
        )
    }
}

extension SettingParser where Value == String {
    /// Any text, such as a path.
    static var text: Self { Self(parse: { $0 }, text: { $0 }) }

    /// One of `words`, in any case.
    static func oneOf(_ words: [String]) -> Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard let word = words.first(where: { $0 == text.trimmingSpaces.lowercased() }) else {
                    throw notA("one of " + words.joined(separator: ", "), text)
                }
                return word
            },
            text: { $0 }
        )
    }
}

extension SettingParser where Value == [String] {
    /// Comma-separated entries, spaces around each dropped (a JSON file or flags may give an array).
    static var list: Self { Self(parse: { ProcessingConfiguration.commaSeparated($0) }, text: { $0.isEmpty ? "none" : $0.joined(separator: ",") }) }
}

extension SettingParser where Value == ServerAddress {
    /// `HOST:PORT`.
    static var address: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard let address = ServerAddress(text.trimmingSpaces) else { throw notA("HOST:PORT", text) }
                return address
            },
            text: { $0.description }
        )
    }
}

extension SettingParser where Value == [ImageFormat] {
    /// Format names, `jpeg,png,gif`.
    static var formats: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in try ProcessingConfiguration.formats(parsing: text) },
            text: { $0.map(\.description).joined(separator: ",") }
        )
    }
}

extension SettingParser where Value == [ImageFormat: Int] {
    /// Qualities by format, `webp=79,avif=63`.
    static var formatQuality: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in try ProcessingConfiguration.formatQuality(parsing: text) },
            text: { table in table.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",") }
        )
    }
}

extension SettingParser where Value == Bool {
    /// A Boolean that must be `true`: `false` asks for what the server does not do, and is
    /// refused with `reason` rather than ignored.
    static func onlyTrue(_ reason: String) -> Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                guard try bool.parse(text) else { throw ImageServerConfigurationError(problems: ["\"\(text)\": \(reason)"]) }
                return true
            },
            text: bool.text
        )
    }
}

extension SettingParser where Value: CaseIterable & RawRepresentable & Sendable, Value.RawValue == String {
    /// One of the type's names, in any case (`WEBP_PRESET`, `LOG_FORMAT`, `LOG_LEVEL`), or one of
    /// `aliases` (another spelling: imgproxy's `warn` for `warning`).
    static func named(_ what: String, aliases: [String: Value] = [:]) -> Self {
        let names = SettingParser<String>.oneOf(Value.allCases.map(\.rawValue) + aliases.keys.sorted())
        return Self(
            parse: { text throws(ImageServerConfigurationError) in
                let name = try names.parse(text)
                guard let value = Value(rawValue: name) ?? aliases[name] else { throw notA(what, text) }
                return value
            },
            text: { $0.rawValue }
        )
    }
}

/// `50` for 50.0, `0.5` for 0.5.
private func shortText(_ number: Double) -> String {
    number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
}
