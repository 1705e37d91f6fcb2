import Configuration
import Foundation
import SystemPackage

extension ImageServerConfiguration {
    /// The settings `reader` holds, over the defaults. Throws one error listing every setting
    /// whose value does not parse.
    public init(reading reader: ConfigReader) throws(ConfigurationError) {
        self.init()
        var settings = SettingsReader(reader)
        bind = settings.address("bind", default: bind) ?? bind
        keys = settings.list("key")
        salts = settings.list("salt")
        signatureSize = settings.int("signatureSize", default: signatureSize, range: 1...32)
        trustedSignatures = settings.list("trustedSignatures")
        allowsUnsigned = settings.bool("allowUnsigned", default: allowsUnsigned)
        localFilesystemRoot = settings.string("localFilesystemRoot")
        allowedSources = settings.list("allowedSources")
        allowsLoopbackSourceAddresses = settings.bool("allowLoopbackSourceAddresses", default: allowsLoopbackSourceAddresses)
        allowsPrivateSourceAddresses = settings.bool("allowPrivateSourceAddresses", default: allowsPrivateSourceAddresses)
        allowsLinkLocalSourceAddresses = settings.bool("allowLinkLocalSourceAddresses", default: allowsLinkLocalSourceAddresses)
        maxSourceFileSize = settings.int("maxSrcFileSize", default: maxSourceFileSize)
        maxRedirects = settings.int("maxRedirects", default: maxRedirects)
        workers = settings.int("workers", default: workers, range: 1...4096)
        requestsQueueSize = settings.int("requestsQueueSize", default: requestsQueueSize)
        timeout = settings.seconds("timeout", default: timeout)
        downloadTimeout = settings.seconds("downloadTimeout", default: downloadTimeout)
        ttl = settings.int("ttl", default: ttl)
        cacheControlPassthrough = settings.bool("cacheControlPassthrough", default: cacheControlPassthrough)
        usesETag = settings.bool("useEtag", default: usesETag)
        prometheusBind = settings.address("prometheusBind", default: nil)
        cacheDirectory = settings.string("cacheDir") ?? cacheDirectory
        resultCacheSize = settings.int("resultCacheSize", default: resultCacheSize)
        sourceCacheSize = settings.int("sourceCacheSize", default: sourceCacheSize)
        memoryCacheSize = settings.int("memoryCacheSize", default: memoryCacheSize)
        resultCacheSyncsWrites = settings.bool("resultCacheFsync", default: resultCacheSyncsWrites)
        shutdownTimeout = settings.seconds("shutdownTimeout", default: shutdownTimeout)
        if settings.string("playground") != nil { playground = settings.bool("playground", default: false) }
        readProcessing(&settings)
        maxClients = settings.int("maxClients", default: maxClients)
        readRequestTimeout = settings.seconds("readRequestTimeout", default: settings.seconds("readTimeout", default: readRequestTimeout))
        writeResponseTimeout = settings.seconds("writeResponseTimeout", default: writeResponseTimeout)
        keepAliveTimeout = settings.seconds("keepAliveTimeout", default: keepAliveTimeout, allowsZero: true)
        maxHeaderFieldSize = settings.int("maxHeaderFieldSize", default: maxHeaderFieldSize, range: 1...Int.max)
        maxHeadersSize = settings.int("maxHeadersSize", default: maxHeadersSize, range: 1...Int.max)
        maxHeaderCount = settings.int("maxHeaderCount", default: maxHeaderCount, range: 1...Int.max)
        if keys.count != salts.count {
            settings.problems.append("WEBIMAGE_KEY and WEBIMAGE_SALT: \(keys.count) keys for \(salts.count) salts (they pair in order)")
        }
        if let prometheusBind, prometheusBind == bind {
            settings.problems.append("WEBIMAGE_PROMETHEUS_BIND: must differ from WEBIMAGE_BIND")
        }
        guard settings.problems.isEmpty else { throw ConfigurationError(problems: settings.problems) }
    }

    /// imgproxy's processing settings, into `processing`.
    private mutating func readProcessing(_ settings: inout SettingsReader) {
        processing.quality = settings.int("quality", default: processing.quality, range: 1...100)
        settings.parse("formatQuality") { text throws(ImageServerConfigurationError) in
            processing.formatQuality = try ProcessingConfiguration.formatQuality(parsing: text)
        }
        settings.parse("preferredFormats") { text throws(ImageServerConfigurationError) in
            processing.preferredFormats = try ProcessingConfiguration.formats(parsing: text)
        }
        processing.autoWebP = settings.bool("autoWebp", default: processing.autoWebP)
        processing.autoAVIF = settings.bool("autoAvif", default: processing.autoAVIF)
        processing.enforceWebP = settings.bool("enforceWebp", default: processing.enforceWebP)
        processing.enforceAVIF = settings.bool("enforceAvif", default: processing.enforceAVIF)
        if let presets = settings.string("presets") { processing.presets = ProcessingConfiguration.presets(parsing: presets) }
        processing.onlyPresets = settings.bool("onlyPresets", default: processing.onlyPresets)
        processing.allowSecurityOptions = settings.bool("allowSecurityOptions", default: processing.allowSecurityOptions)
        processing.maxSourceResolution = settings.megapixels("maxSrcResolution", default: processing.maxSourceResolution)
        processing.maxAnimationFrames = settings.int("maxAnimationFrames", default: processing.maxAnimationFrames, range: 1...Int.max)
        processing.maxAnimationFrameResolution = settings.megapixels("maxAnimationFrameResolution", default: processing.maxAnimationFrameResolution)
        processing.maxResultDimension = settings.int("maxResultDimension", default: processing.maxResultDimension)
        processing.stripMetadata = settings.bool("stripMetadata", default: processing.stripMetadata)
        processing.autoRotate = settings.bool("autoRotate", default: processing.autoRotate)
    }

    /// Reads the settings as `webimage serve` does: `arguments` (flags such as
    /// `--max-src-resolution 40`) over `environment` (`WEBIMAGE_*`) over the JSON file named by
    /// `--config` or `WEBIMAGE_CONFIG`, if any.
    public static func load(
        arguments: [String] = CommandLine.arguments, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> ImageServerConfiguration {
        let flags = CommandLineArgumentsProvider(arguments: arguments)
        let variables = EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "webimage")
        let first = ConfigReader(providers: [flags, variables])
        var providers: [any ConfigProvider] = [flags, variables]
        if let file = first.string(forKey: "config"), !file.isEmpty {
            providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file)))
        }
        return try ImageServerConfiguration(reading: ConfigReader(providers: providers))
    }
}
