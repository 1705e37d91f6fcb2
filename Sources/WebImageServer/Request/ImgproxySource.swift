/// Where a request's image comes from, as its URL names it.
public struct ImgproxySource: Sendable, Hashable {
    /// The source URL, decoded (`https://example.com/a.jpg`, `local:///photos/a.jpg`).
    public var url: String
    /// The URL's scheme, lowercased (`https`, `local`).
    public var scheme: String
    /// The extension written after the source (`@png`, `.png`), which sets the output format.
    public var fileExtension: String?

    /// A source at `url`, whose scheme is `scheme`.
    public init(url: String, scheme: String, fileExtension: String? = nil) {
        self.url = url
        self.scheme = scheme
        self.fileExtension = fileExtension
    }
}
