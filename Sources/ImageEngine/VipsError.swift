/// A libvips failure, with the text libvips gave for it.
public struct VipsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libvips' own message, trimmed; it names the operation that failed.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
