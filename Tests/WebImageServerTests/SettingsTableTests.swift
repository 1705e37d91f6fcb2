import Configuration
import Foundation
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The settings are declared once, in `ImageServerConfiguration.settings`: these check that the
/// declaration reaches the providers' names, the properties and docs/server-settings.md.
@Suite(.offThePool) struct SettingsTableTests {
    static let docsFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/server-settings.md")
    static let tableStart = "<!-- The settings table is written from ImageServerConfiguration.settings: "
        + "SETTINGS_TABLE_WRITE=1 swift test --filter SettingsTableTests -->"
    static let tableEnd = "<!-- End of the settings table. -->"

    /// docs/server-settings.md's settings table, as the declaration writes it.
    static func table() -> String {
        var lines = ["| environment | flag | JSON key | default | meaning |", "| --- | --- | --- | --- | --- |"]
        let defaults = ImageServerConfiguration()
        for setting in ImageServerConfiguration.settings {
            let keys = setting.keys
            let names = [
                keys.map { "`\(ImageServerSetting.environmentName(of: $0))`" }, keys.map { "`\(ImageServerSetting.flag(of: $0))`" },
                keys.map { "`\($0)`" },
            ].map { $0.joined(separator: " or ") }
            switch setting.state {
            case .read(let binding):
                var value = binding.defaultDescription ?? binding.text(defaults)
                if binding.defaultDescription == nil, value != "none" { value = "`\(value)`" }
                if let imgproxy = binding.imgproxyDefault { value += " (imgproxy: \(imgproxy))" }
                lines.append("| \(names.joined(separator: " | ")) | \(value) | \(setting.summary) |")
            case .refused:
                continue
            }
        }
        // imgproxy's settings that are not read yet: one line each, by imgproxy's name.
        lines += [
            "",
            "imgproxy's settings this server does not read yet: set under either prefix (or as the flag or JSON key",
            "its name gives), each stops the server at start with a line naming it.",
            "",
            "| setting | in imgproxy |",
            "| --- | --- |",
        ]
        for setting in ImageServerConfiguration.settings {
            guard case .refused = setting.state else { continue }
            let names = setting.keys.map { "`\(ImageServerSetting.unprefixedEnvironmentName(of: $0))`" }.joined(separator: " or ")
            lines.append("| \(names) | \(setting.summary.replacingOccurrences(of: "|", with: "\\|")) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Settings are named through the table, never by a literal: a `WEBIMAGE_*` or `IMGPROXY_*`
    /// name in the code (outside comments) is the prefixes' declaration or one of the names the
    /// project reads for other purposes (`SettingNames.readElsewhere`, the TSan build's flag).
    @Test func noSettingIsNamedByALiteralInTheCode() throws {
        let sources = Self.docsFile.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        let allowed = Set(SettingNames.readElsewhere.map { "WEBIMAGE_" + $0 } + ["WEBIMAGE_", "IMGPROXY_", "WEBIMAGE_TSAN"])
        let name = /(WEBIMAGE|IMGPROXY)_[A-Z0-9_]*/
        var found: [String] = []
        var files = 0
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in enumerator where file.pathExtension == "swift" {
            files += 1
            for (number, line) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                for match in line.matches(of: name) where !allowed.contains(String(match.output.0)) {
                    found.append("\(file.lastPathComponent):\(number + 1): \(match.output.0)")
                }
            }
        }
        #expect(files > 200)
        #expect(found.isEmpty, "\(found)")
    }

    @Test func docsListEverySettingAsDeclared() throws {
        var text = try String(contentsOf: Self.docsFile, encoding: .utf8)
        let start = try #require(text.range(of: Self.tableStart), "docs/server-settings.md has no settings table start marker")
        let end = try #require(text.range(of: Self.tableEnd, range: start.upperBound..<text.endIndex), "no end marker")
        let written = "\n" + Self.table() + "\n"
        var documented = String(text[start.upperBound..<end.lowerBound])
        if documented != written, ProcessInfo.processInfo.environment["SETTINGS_TABLE_WRITE"] == "1" {
            text.replaceSubrange(start.upperBound..<end.lowerBound, with: written)
            try text.write(to: Self.docsFile, atomically: true, encoding: .utf8)
            documented = written
        }
        #expect(documented == written, "run SETTINGS_TABLE_WRITE=1 swift test --filter SettingsTableTests")
    }

    @Test func everyKeyIsOneSettingAndNamesItsProperty() {
        let keys = ImageServerConfiguration.settings.flatMap(\.keys)
        #expect(Set(keys).count == keys.count)
        var properties: [PartialKeyPath<ImageServerConfiguration>] = []
        for setting in ImageServerConfiguration.settings {
            guard case .read(let binding) = setting.state else { continue }
            properties.append(binding.property)
            #expect(ImageServerConfiguration.names(of: binding.property) == ImageServerSetting.names(of: setting.key))
        }
        #expect(Set(properties).count == properties.count)
    }

    /// The names the declaration derives are the ones swift-configuration's providers read.
    @Test func theDerivedEnvironmentNameAndFlagAreTheOnesRead() {
        for key in ImageServerConfiguration.settings.flatMap(\.keys) {
            let environment = EnvironmentVariablesProvider(environmentVariables: [ImageServerSetting.environmentName(of: key): "set"])
            #expect(ConfigReader(provider: environment.prefixKeys(with: "webimage")).string(forKey: ConfigKey(key)) == "set", "\(key)")
            let flags = CommandLineArgumentsProvider(arguments: ["webimage", ImageServerSetting.flag(of: key), "set"])
            #expect(ConfigReader(provider: flags).string(forKey: ConfigKey(key)) == "set", "\(key)")
        }
        #expect(ImageServerSetting.names(of: "maxSrcResolution") == "WEBIMAGE_MAX_SRC_RESOLUTION (--max-src-resolution)")
    }

    /// Each read setting, given its default as text, reads back as that default: the text a
    /// setting writes is text it reads, into the property it names.
    @Test func everyDefaultWrittenAsASettingReadsBack() async throws {
        let defaults = ImageServerConfiguration()
        var environment: [String: String] = [:]
        var bindings: [ImageServerSetting.Binding] = []
        for setting in ImageServerConfiguration.settings {
            guard case .read(let binding) = setting.state, binding.text(defaults) != "none" else { continue }
            environment[ImageServerSetting.environmentName(of: setting.key)] = binding.text(defaults)
            bindings.append(binding)
        }
        #expect(!bindings.isEmpty)
        let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: environment)
        for binding in bindings {
            #expect(binding.text(read) == binding.text(defaults), "\(binding.property)")
        }
    }

    /// Every value differs from its default here, so each must reach its own property.
    @Test func aValueSetReachesItsProperty() async throws {
        let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
            "WEBIMAGE_MAX_SRC_FILE_SIZE": "1000", "WEBIMAGE_MAX_SRC_RESOLUTION": "0.5", "WEBIMAGE_MEMORY_CACHE_SIZE": "1048576",
            "WEBIMAGE_FORMAT_QUALITY": "webp=50", "WEBIMAGE_PREFERRED_FORMATS": "png,webp", "WEBIMAGE_PLAYGROUND": "off",
            "WEBIMAGE_LOCAL_FILESYSTEM_ROOT": "/srv/images", "WEBIMAGE_SHUTDOWN_TIMEOUT": "1.5", "WEBIMAGE_SOURCE_MEMORY_CACHE_SIZE": "0",
        ])
        #expect(read.processing.maxSourceFileSize == 1000 && read.processing.maxSourceResolution == 500_000)
        #expect(read.memoryCacheSize == 1 << 20 && read.shutdownTimeout == 1.5 && read.sourceMemoryCacheSize == 0)
        #expect(read.processing.formatQuality == [.webP: 50] && read.processing.preferredFormats == [.png, .webP])
        #expect(read.playground == false && read.localFilesystemRoot == "/srv/images")
        #expect(try read.makeParser().configuration.maxSourceFileSize == 1000)
    }

    @Test func aJSONFileAndFlagsGiveNumbersBooleansAndListsAlike() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-settings-\(UUID().uuidString).json")
        try Data(#"""
            {"timeout": 2.5, "useEtag": false, "allowedSources": ["https://a.example/", "https://b.example/"],
             "maxSrcResolution": 0.5, "autoRotate": 0, "trustedSignatures": []}
            """#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let read = try await ImageServerConfiguration.load(
            arguments: ["webimage", "--config", file.path, "--key", "00", "11", "--salt", "22", "33", "--playground"], environment: [:]
        )
        #expect(read.timeout == 2.5 && !read.usesETag && !read.processing.autoRotate)
        #expect(read.allowedSources == ["https://a.example/", "https://b.example/"] && read.trustedSignatures.isEmpty)
        #expect(read.processing.maxSourceResolution == 500_000)
        #expect(read.keys == ["00", "11"] && read.salts == ["22", "33"] && read.playground == true)
    }

    @Test func anOlderNameIsReadWhenTheCurrentOneIsNotSet() async throws {
        let older = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["WEBIMAGE_ENABLE_WEBP_DETECTION": "true"])
        #expect(older.processing.autoWebP)
        let both = try await ImageServerConfiguration.load(
            arguments: ["webimage"], environment: ["WEBIMAGE_ENABLE_AVIF_DETECTION": "true", "WEBIMAGE_AUTO_AVIF": "false"]
        )
        #expect(!both.processing.autoAVIF)
        let error = await #expect(throws: ImageServerConfigurationError.self) {
            try await ImageServerConfiguration.load(arguments: ["webimage", "--enable-webp-detection", "maybe"], environment: [:])
        }
        #expect(error?.problems == ["WEBIMAGE_ENABLE_WEBP_DETECTION (--enable-webp-detection): \"maybe\" is not true or false"])
    }

    @Test func presetsAndKeysThatDoNotParseNameTheirSetting() async throws {
        var configuration = ImageServerConfiguration()
        configuration.processing.presets = ["thumb"]
        let preset = #expect(throws: ImageServerConfigurationError.self) { try configuration.makeParser() }
        #expect(preset?.problems == ["WEBIMAGE_PRESETS (--presets): preset thumb: expected name=options"])
        configuration = ImageServerConfiguration()
        configuration.keys = ["zz"]
        configuration.salts = ["00"]
        let key = #expect(throws: ImageServerConfigurationError.self) { try configuration.makeParser() }
        #expect(key?.problems == ["WEBIMAGE_KEY (--key) and WEBIMAGE_SALT (--salt): the key is not hex"])
        #expect(
            ImageServerConfigurationError.localFilesystemRootIsNotAFolder("/nowhere").description
                == "WEBIMAGE_LOCAL_FILESYSTEM_ROOT (--local-filesystem-root): /nowhere is not a folder"
        )
    }
}
