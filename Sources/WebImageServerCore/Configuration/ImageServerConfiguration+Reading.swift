import Configuration
import Foundation
import SystemPackage

extension ImageServerConfiguration {
    /// The settings `reader` holds, over the defaults, read through `settings`. Throws one error
    /// listing every setting that does not parse, is refused, or contradicts another.
    public init(reading reader: ConfigReader) throws(ImageServerConfigurationError) {
        self.init()
        var problems = apply(Self.settings, from: reader)
        if keys.count != salts.count {
            problems.append("\(Self.names(of: \.keys)) and \(Self.names(of: \.salts)): \(keys.count) keys for \(salts.count) salts (they pair in order)")
        }
        if let prometheusBind, prometheusBind == bind {
            problems.append("\(Self.names(of: \.prometheusBind)): must differ from \(Self.names(of: \.bind))")
        }
        problems += resultCache.problems
        guard problems.isEmpty else { throw ImageServerConfigurationError(problems: problems) }
    }

    /// The settings `reader` holds of `settings`, applied to this configuration: one problem
    /// line for each that does not parse or is refused.
    private mutating func apply(_ settings: [ImageServerSetting], from reader: ConfigReader) -> [String] {
        var problems: [String] = []
        for setting in settings {
            let readsEmpty = if case .read(let binding) = setting.state { binding.readsEmpty } else { false }
            guard let (key, text) = setting.keys.lazy.compactMap({ key in reader.settingText(key, readsEmpty: readsEmpty).map { (key, $0) } }).first
            else { continue }
            switch setting.state {
            case .read(let binding):
                do {
                    try binding.apply(text, &self)
                } catch {
                    problems += error.problems.map { "\(ImageServerSetting.names(of: key)): \($0)" }
                }
            case .refused:
                problems.append("\(ImageServerSetting.names(of: key)): not supported yet; the server does not start with it set")
            }
        }
        return problems
    }

    /// The settings of `properties` alone, read from `environment` as `load` reads it (`WEBIMAGE_*`,
    /// then imgproxy's `IMGPROXY_*`) over `base`, for a tool that needs a few of the server's
    /// settings: `webimage sign` its keys, salts and signature size, the other commands their log
    /// level. Other names set are not looked at, nor settings checked against each other.
    public static func reading(
        _ properties: [PartialKeyPath<ImageServerConfiguration>], over base: ImageServerConfiguration = ImageServerConfiguration(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ImageServerConfigurationError) -> ImageServerConfiguration {
        let settings = settings.filter { setting in
            guard case .read(let binding) = setting.state else { return false }
            return properties.contains(binding.property)
        }
        var configuration = base
        let problems = configuration.apply(settings, from: ConfigReader(providers: environmentProviders(environment)))
        guard problems.isEmpty else { throw ImageServerConfigurationError(problems: problems) }
        return configuration
    }

    /// The environment's settings, under each prefix in turn.
    private static func environmentProviders(_ environment: [String: String]) -> [any ConfigProvider] {
        ImageServerSetting.environmentPrefixes.map { prefix in
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ConfigKey(String(prefix.dropLast()).lowercased()))
        }
    }

    /// Reads the settings as `webimage serve` does: `arguments` (flags such as
    /// `--max-src-resolution 40`) over `environment` (`WEBIMAGE_*`, then imgproxy's `IMGPROXY_*`,
    /// so that an imgproxy environment works as it is) over the JSON file named by `--config` or
    /// `WEBIMAGE_CONFIG`, if any. A name under those prefixes, a flag or a JSON key that is no
    /// setting (a typo) stops it, as a refused setting does: nothing set is silently ignored.
    /// Every failure is an `ImageServerConfigurationError`, a file that does not read too.
    public static func load(
        arguments: [String] = CommandLine.arguments, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> ImageServerConfiguration {
        let flags = CommandLineArgumentsProvider(arguments: arguments)
        let variables = environmentProviders(environment)
        let first = ConfigReader(providers: [flags] + variables)
        var providers: [any ConfigProvider] = [flags] + variables
        var jsonKeys: [String] = []
        if let file = first.settingText("config") {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file)))
            } catch {
                // A file that cannot be read or is not a JSON object, named as the other problems are.
                throw ImageServerConfigurationError(problems: ["\(ImageServerSetting.names(of: "config")): \(file): \(error)"])
            }
            jsonKeys = SettingNames.keys(ofJSONFile: file)
        }
        let unknown = SettingNames.unknown(environment: environment, arguments: arguments.dropFirst(), jsonKeys: jsonKeys)
        let configuration: ImageServerConfiguration
        do {
            configuration = try ImageServerConfiguration(reading: ConfigReader(providers: providers))
        } catch {
            // Both: what the values say, then the names that are no setting.
            throw ImageServerConfigurationError(problems: error.problems + unknown)
        }
        guard unknown.isEmpty else { throw ImageServerConfigurationError(problems: unknown) }
        return try configuration.withAWSEnvironment(environment)
    }

    /// With `USE_S3` on, the S3 region and credentials not set otherwise taken from the AWS
    /// variables of `environment` and the shared credentials file, as the AWS SDKs find them.
    /// The same for the result store's bucket with `CACHE_USE=s3`.
    func withAWSEnvironment(_ environment: [String: String]) throws(ImageServerConfigurationError) -> ImageServerConfiguration {
        var configuration = self
        if usesS3 { try configuration.s3.takeAWSEnvironment(environment) }
        if resultCache.use == .s3 { try configuration.resultCache.s3.takeAWSEnvironment(environment) }
        return configuration
    }

    /// Why a server with these settings must not start; nil when it may. It refuses to serve
    /// unsigned URLs on an address other machines reach unless told to.
    public var refusalToStart: ImageServerConfigurationError? {
        guard keys.isEmpty, !allowsUnsigned, !bind.isLoopback else { return nil }
        return ImageServerConfigurationError(problems: [
            "\(Self.names(of: \.bind)): refusing to serve unsigned URLs on \(bind), which other machines can reach: "
                + "set \(Self.names(of: \.keys)) and \(Self.names(of: \.salts)), or \(Self.names(of: \.allowsUnsigned))",
        ])
    }
}

extension ConfigReader {
    /// The text of the setting `key`; nil when unset, or empty unless `readsEmpty`. Flags and environment variables
    /// are text already; a JSON file's number, Boolean or array (or a flag given several
    /// values, or none) is written as text, so that every setting is parsed, and refused, alike.
    fileprivate func settingText(_ key: String, readsEmpty: Bool = false) -> String? {
        let key = ConfigKey(key)
        let text: String? =
            if let text = string(forKey: key) { text }
            else if let number = int(forKey: key) { String(number) }
            else if let number = double(forKey: key) { String(number) }
            else if let flag = bool(forKey: key) { String(flag) }
            else { stringArray(forKey: key)?.joined(separator: ",") }
        return readsEmpty || text?.isEmpty == false ? text : nil
    }
}
