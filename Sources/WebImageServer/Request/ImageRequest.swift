import Foundation

/// Where a request's source image is, as its URL names it.
public enum SourceURL: Sendable, Hashable, CustomStringConvertible {
    /// An http(s) URL, fetched through the server's downloader (and its source guard).
    case remote(URL)
    /// A path under the configured local root (imgproxy's `local://`), as written after it.
    case local(path: String)

    /// The URL as the request named it (`https://example.com/a.jpg`, `local:///photos/a.jpg`):
    /// the source's part of the result key and the source store's key.
    public var description: String {
        switch self {
        case .remote(let url): url.absoluteString
        case .local(let path): "local://" + path
        }
    }
}

/// A request read from its URL path: signature checked, options parsed (the configuration's
/// defaults and presets applied, the extension written after the source turned into
/// `options.format`), source decoded. The one value the reading of a request gives the rest of
/// the server.
public struct ImageRequest: Sendable, Hashable {
    /// The signature segment as given.
    public var signature: String
    /// The path after the signature, repaired, without the query: what the signature signs, and
    /// what logs show.
    public var path: String
    /// The processing asked for.
    public var options: ProcessingOptions
    /// Where the image comes from.
    public var source: SourceURL
    /// The processing asked for as one string, by the option table the request was read with
    /// (`ProcessingOptions.canonicalForm` for imgproxy's): the processing's part of the result key.
    public var canonicalForm: String

    /// A request made of its parts; `canonicalForm` nil takes `options.canonicalForm`.
    public init(signature: String, path: String, options: ProcessingOptions, source: SourceURL, canonicalForm: String? = nil) {
        self.signature = signature
        self.path = path
        self.options = options
        self.source = source
        self.canonicalForm = canonicalForm ?? options.canonicalForm
    }

    /// When the URL stops being valid (imgproxy's `expires`): checked when the path is parsed;
    /// caps the response's `max-age`.
    public var expires: Date? {
        options.expires.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}

/// Turns a request path into an `ImageRequest`: the URL format the server speaks
/// (`ImgproxyURLParser`, or a format of your own).
public protocol ImageRequestParser: Sendable {
    /// `path` is the request target as received after the mount prefix, starting with `/` (the
    /// signature first), not percent-decoded, its query allowed. Errors carry the status to
    /// answer: 403 for the signature or an expired URL, 400 for options, 404 for the path or the
    /// source.
    func parse(path: String, now: Date) throws(ImageServerError) -> ImageRequest
}
