/// One setting of the image server, declared once in `ImageServerConfiguration.settings`: the
/// key it is read by, older keys still read, what it does, and where its value goes.
struct ImageServerSetting: Sendable {
    /// The JSON key, `maxSrcResolution`; the environment name (`WEBIMAGE_MAX_SRC_RESOLUTION`)
    /// and the flag (`--max-src-resolution`) derive from it.
    let key: String
    /// Older keys imgproxy still reads, tried in order when `key` is not set
    /// (`enableWebpDetection` for `autoWebp`).
    let aliases: [String]
    /// One line for docs/server-settings.md: what the setting does.
    let summary: String
    let state: State

    enum State: Sendable {
        /// Read into the configuration.
        case read(Binding)
        /// An imgproxy setting this server does not have yet: set, it stops the server at start,
        /// rather than being ignored while the user believes it on.
        case refused
    }

    /// Where a read setting's value goes and how its text reads.
    struct Binding: Sendable {
        /// The configuration's property the setting sets.
        let property: PartialKeyPath<ImageServerConfiguration> & Sendable
        /// Sets the property from the setting's text; throws why the text is not a value.
        let apply: @Sendable (String, inout ImageServerConfiguration) throws(ImageServerConfigurationError) -> Void
        /// The property's value in a configuration, written as the setting would be.
        let text: @Sendable (ImageServerConfiguration) -> String
        /// The default in words, for a default that depends on the machine ("the core count").
        let defaultDescription: String?
        /// imgproxy's default, where it differs from this server's.
        let imgproxyDefault: String?
        /// Set and empty is a value, not unset (`SOURCE_URL_QUERY_SEPARATOR`).
        let readsEmpty: Bool
    }

    /// Every key the setting is read by: its own first, then its aliases.
    var keys: [String] { [key] + aliases }

    /// A setting read into `property` by `parser`; its default is the property's value in
    /// `ImageServerConfiguration()`, described in words only where the machine decides it.
    static func read<Value>(
        _ key: String, _ property: WritableKeyPath<ImageServerConfiguration, Value> & Sendable, _ parser: SettingParser<Value>,
        aliases: [String] = [], defaultDescription: String? = nil, imgproxyDefault: String? = nil, readsEmpty: Bool = false,
        _ summary: String
    ) -> ImageServerSetting {
        let binding = Binding(
            property: property,
            apply: { text, configuration throws(ImageServerConfigurationError) in configuration[keyPath: property] = try parser.parse(text) },
            text: { configuration in parser.text(configuration[keyPath: property]) },
            defaultDescription: defaultDescription, imgproxyDefault: imgproxyDefault, readsEmpty: readsEmpty
        )
        return ImageServerSetting(key: key, aliases: aliases, summary: summary, state: .read(binding))
    }

    /// An imgproxy setting refused at start until it is built.
    static func refused(_ key: String, aliases: [String] = [], _ summary: String) -> ImageServerSetting {
        ImageServerSetting(key: key, aliases: aliases, summary: summary, state: .refused)
    }

    /// The words of a key, split where a lowercase letter meets an uppercase one, as
    /// swift-configuration's environment and flag providers split them: `max`, `Src`, `Resolution`.
    private static func words(of key: String) -> [String] {
        var words: [String] = []
        var word = ""
        var previous: Character?
        for character in key {
            if let previous, previous.isLowercase, character.isUppercase {
                words.append(word)
                word = ""
            }
            word.append(character)
            previous = character
        }
        words.append(word)
        return words
    }

    /// The words of a key of several components (`s3.endpointUsePathStyle`: `s3`, `endpoint`,
    /// `Use`, `Path`, `Style`), as the providers join a dotted key's components.
    private static func words(ofDotted key: String) -> [String] {
        key.split(separator: ".").flatMap { words(of: String($0)) }
    }

    /// `MAX_SRC_RESOLUTION` for `maxSrcResolution`, `S3_ENDPOINT` for `s3.endpoint`: the
    /// environment name after its prefix (`WEBIMAGE_`, or imgproxy's `IMGPROXY_`).
    static func unprefixedEnvironmentName(of key: String) -> String {
        let name = words(ofDotted: key).map { $0.uppercased() }.joined(separator: "_")
        return String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// `WEBIMAGE_MAX_SRC_RESOLUTION` for `maxSrcResolution`.
    static func environmentName(of key: String) -> String {
        environmentPrefix + unprefixedEnvironmentName(of: key)
    }

    /// The prefixes the settings are read under from the environment, in the order they are read:
    /// this server's, then imgproxy's, so that an imgproxy environment works as it is.
    static let environmentPrefixes = ["WEBIMAGE_", "IMGPROXY_"]
    static var environmentPrefix: String { environmentPrefixes[0] }

    /// `--max-src-resolution` for `maxSrcResolution`.
    static func flag(of key: String) -> String {
        "--" + words(ofDotted: key).map { $0.lowercased() }.joined(separator: "-")
    }

    /// `WEBIMAGE_MAX_SRC_RESOLUTION (--max-src-resolution)`: the setting as a user writes it,
    /// in a problem's line.
    static func names(of key: String) -> String {
        "\(environmentName(of: key)) (\(flag(of: key)))"
    }
}
