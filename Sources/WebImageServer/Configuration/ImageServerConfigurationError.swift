/// A setting the image server cannot start with.
public enum ImageServerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A preset that does not parse, or whose options are invalid.
    case invalidPreset(String, reason: String)
    /// A key or salt that is not hex, keys and salts in different numbers, or a signature size
    /// outside 1...32.
    case invalidSigningKey(String)
    /// A format list or quality table that does not parse.
    case invalidValue(setting: String, value: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidPreset(preset, reason): "invalid preset \(preset): \(reason)"
        case .invalidSigningKey(let reason): "invalid signing key: \(reason)"
        case let .invalidValue(setting, value, reason): "invalid \(setting) \(value): \(reason)"
        }
    }
}
