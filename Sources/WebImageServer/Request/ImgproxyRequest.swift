/// An image request read from its URL path: signature checked, options parsed (presets and
/// defaults applied), source decoded.
public struct ImgproxyRequest: Sendable, Hashable {
    /// The signature segment as given.
    public var signature: String
    /// The path after the signature, repaired, without the query: what the signature signs,
    /// and what logs may show.
    public var path: String
    /// The processing asked for.
    public var options: ProcessingOptions
    /// Where the image comes from.
    public var source: ImgproxySource

    /// A request made of its parts.
    public init(signature: String, path: String, options: ProcessingOptions, source: ImgproxySource) {
        self.signature = signature
        self.path = path
        self.options = options
        self.source = source
    }
}
