import Foundation

/// The names a user can set, and those set that name no setting: every environment variable under
/// the settings' prefixes, every flag and every JSON key must be a setting's (read or refused),
/// so that a typo (`WEBIMAGE_WORKRES`) stops the server rather than being ignored.
enum SettingNames {
    /// Variables under `WEBIMAGE_` that the project reads for other purposes, not settings: the
    /// library's own (`WEBIMAGE_LIBORC_LOCK`, `WEBIMAGE_RENDER`, `WEBIMAGE_CHECK_BLOCKING`) and
    /// the test suite's (`WEBIMAGE_TEST_*`). The server claims no other name under its prefix.
    static let readElsewhere: Set<String> = ["LIBORC_LOCK", "RENDER", "CHECK_BLOCKING"]
    static let testPrefix = "TEST_"

    /// Every setting's keys (its own and its aliases), and `config`.
    private static let keys: [String] = ImageServerConfiguration.settings.flatMap(\.keys) + ["config"]
    private static let environmentNames = Set(keys.map(ImageServerSetting.unprefixedEnvironmentName))
    private static let flags = Set(keys.map(ImageServerSetting.flag))
    private static let jsonKeys = Set(keys)

    /// One problem line for each name set that is no setting.
    static func unknown(environment: [String: String], arguments: some Sequence<String>, jsonKeys given: [String]) -> [String] {
        var problems: [String] = []
        for name in environment.keys.sorted() {
            guard let prefix = ImageServerSetting.environmentPrefixes.first(where: { name.hasPrefix($0) }) else { continue }
            let setting = String(name.dropFirst(prefix.count))
            if environmentNames.contains(setting) { continue }
            if prefix == ImageServerSetting.environmentPrefix, readElsewhere.contains(setting) || setting.hasPrefix(testPrefix) { continue }
            problems.append("\(name): not a setting of this server (docs/server-settings.md lists them)")
        }
        for argument in arguments where argument.hasPrefix("--") {
            let flag = String(argument.prefix { $0 != "=" })
            if !flags.contains(flag) { problems.append("\(flag): not a setting of this server (docs/server-settings.md lists them)") }
        }
        for key in given where !jsonKeys.contains(key) {
            problems.append("\"\(key)\" in the configuration file: not a setting of this server (docs/server-settings.md lists them)")
        }
        return problems
    }

    /// The keys a JSON settings file sets, nested objects' as dotted paths (`s3.endpoint`); none
    /// when it does not read (the file provider reports that).
    static func keys(ofJSONFile path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return dottedKeys(of: object, under: "")
    }

    private static func dottedKeys(of object: [String: Any], under prefix: String) -> [String] {
        object.keys.sorted().flatMap { key -> [String] in
            let path = prefix.isEmpty ? key : prefix + "." + key
            if let nested = object[key] as? [String: Any] { return dottedKeys(of: nested, under: path) }
            return [path]
        }
    }
}
