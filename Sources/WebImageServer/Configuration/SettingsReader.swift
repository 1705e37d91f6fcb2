import Configuration
import Foundation

/// A setting that could not be read, named as the user wrote it.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// One line per bad setting: "WEBIMAGE_WORKERS (--workers): "two" is not a whole number".
    public var problems: [String]

    public var description: String { problems.joined(separator: "\n") }
}

/// Reads settings by key from a `ConfigReader`, parsing text itself so that a value that does not
/// parse is an error naming the setting rather than a silent default.
struct SettingsReader {
    let reader: ConfigReader
    var problems: [String] = []

    init(_ reader: ConfigReader) {
        self.reader = reader
    }

    /// `WEBIMAGE_MAX_SRC_RESOLUTION (--max-src-resolution)` for `maxSrcResolution`.
    static func names(of key: String) -> String {
        var words: [String] = []
        var word = ""
        for character in key {
            if character.isUppercase, !word.isEmpty {
                words.append(word)
                word = ""
            }
            word.append(character)
        }
        words.append(word)
        return "WEBIMAGE_" + words.map { $0.uppercased() }.joined(separator: "_") + " (--" + words.map { $0.lowercased() }.joined(separator: "-") + ")"
    }

    private mutating func problem(_ key: String, _ text: String, _ expected: String) {
        problems.append("\(Self.names(of: key)): \"\(text)\" is not \(expected)")
    }

    func string(_ key: String) -> String? {
        reader.string(forKey: ConfigKey(key)).flatMap { $0.isEmpty ? nil : $0 }
    }

    mutating func int(_ key: String, default value: Int, range: ClosedRange<Int> = 0...Int.max) -> Int {
        guard let text = string(key) else { return reader.int(forKey: ConfigKey(key)) ?? value }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
            problem(key, text, "a whole number in \(range.lowerBound)...\(range.upperBound == Int.max ? "" : String(range.upperBound))")
            return value
        }
        return number
    }

    /// A count of megapixels (`50`, `0.5`) as pixels, as imgproxy reads `MAX_SRC_RESOLUTION`.
    mutating func megapixels(_ key: String, default value: Int) -> Int {
        guard let text = string(key) else { return reader.double(forKey: ConfigKey(key)).map { Int($0 * 1_000_000) } ?? value }
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite, number >= 0 else {
            problem(key, text, "a number of megapixels")
            return value
        }
        return Int(number * 1_000_000)
    }

    /// Runs `apply` on the setting's text, when set; its error becomes a problem naming the setting.
    mutating func parse(_ key: String, _ apply: (String) throws(ImageServerConfigurationError) -> Void) {
        guard let text = string(key) else { return }
        do {
            try apply(text)
        } catch {
            problems.append("\(Self.names(of: key)): \(error)")
        }
    }

    mutating func seconds(_ key: String, default value: TimeInterval, allowsZero: Bool = false) -> TimeInterval {
        guard let text = string(key) else { return reader.double(forKey: ConfigKey(key)) ?? value }
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite, number > 0 || (allowsZero && number == 0) else {
            problem(key, text, allowsZero ? "a number of seconds, 0 or more" : "a number of seconds above 0")
            return value
        }
        return number
    }

    mutating func bool(_ key: String, default value: Bool) -> Bool {
        guard let text = string(key) else { return reader.bool(forKey: ConfigKey(key)) ?? value }
        switch text.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default:
            problem(key, text, "true or false")
            return value
        }
    }

    func list(_ key: String) -> [String] {
        (reader.stringArray(forKey: ConfigKey(key)) ?? [])
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    mutating func address(_ key: String, default value: ServerAddress?) -> ServerAddress? {
        guard let text = string(key) else { return value }
        guard let address = ServerAddress(text) else {
            problem(key, text, "HOST:PORT")
            return value
        }
        return address
    }
}
