/// Settings the image server cannot start with: every problem found, one line each, naming the
/// setting as the user wrote it:
/// `WEBIMAGE_WORKERS (--workers): "two" is not a whole number in 1...4096`.
public struct ImageServerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line per problem.
    public var problems: [String]

    public init(problems: [String]) {
        self.problems = problems
    }

    public var description: String { problems.joined(separator: "\n") }

    /// A preset that does not parse, or whose options are invalid.
    public static func invalidPreset(_ preset: String, reason: String) -> Self {
        Self(problems: ["\(ImageServerConfiguration.names(of: \.processing.presets)): preset \(preset): \(reason)"])
    }

    /// A key or salt that is not hex, keys and salts in different numbers, or a signature size
    /// outside 1...32.
    public static func invalidSigningKey(_ reason: String) -> Self {
        let names = ImageServerConfiguration.names(of: \.keys) + " and " + ImageServerConfiguration.names(of: \.salts)
        return Self(problems: ["\(names): \(reason)"])
    }

    /// An S3 endpoint that is not a URL with a host.
    public static func invalidS3Endpoint(_ endpoint: String) -> Self {
        Self(problems: ["\(ImageServerConfiguration.names(of: \.s3.endpoint)): \"\(endpoint)\" is not a URL with a host"])
    }

    /// An image a setting names (a fallback image's or a watermark's data, file or URL) that
    /// cannot be had or is not an image.
    static func invalidSetting(_ setting: PartialKeyPath<ImageServerConfiguration>, _ reason: String) -> Self {
        invalidSetting(named: ImageServerConfiguration.names(of: setting), reason)
    }

    /// `invalidSetting` with the setting's names as `ImageServerConfiguration.names(of:)` writes them.
    static func invalidSetting(named names: String, _ reason: String) -> Self {
        Self(problems: ["\(names): \(reason)"])
    }

    /// A local filesystem root that does not name a folder.
    public static func localFilesystemRootIsNotAFolder(_ path: String) -> Self {
        Self(problems: ["\(ImageServerConfiguration.names(of: \.localFilesystemRoot)): \(path) is not a folder"])
    }
}
