/// Named option sets from the configuration, in imgproxy's text form: `name=option/option`.
struct Presets: Sendable {
    let options: [String: [RawOption]]

    /// Parses `entries` (`PRESETS`), options' arguments after `separator`; blank entries and `#`
    /// comments are skipped.
    init(parsing entries: [String], separator: String = ":") throws(ImageServerConfigurationError) {
        var options: [String: [RawOption]] = [:]
        for entry in entries {
            let text = entry.trimmingSpaces
            if text.isEmpty || text.hasPrefix("#") { continue }
            let halves = text.split(separator: "=", omittingEmptySubsequences: false)
            guard halves.count == 2 else { throw .invalidPreset(text, reason: "expected name=options") }
            let name = String(halves[0]).trimmingSpaces, value = String(halves[1]).trimmingSpaces
            guard !name.isEmpty, !value.isEmpty else { throw .invalidPreset(text, reason: "empty name or options") }
            let (parsed, rest) = RawOption.leading(value.split(separator: "/", omittingEmptySubsequences: false).map(String.init), separator: separator)
            guard rest.isEmpty else { throw .invalidPreset(text, reason: "\(rest[0]) is not an option") }
            options[name] = parsed
        }
        self.options = options
    }
}
