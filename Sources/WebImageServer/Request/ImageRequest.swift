import Foundation
import WebImage

/// Where a request's source image is.
public enum ImageSource: Sendable, Hashable, CustomStringConvertible {
    /// An http(s) URL, fetched through the server's downloader (and its source guard).
    case remote(URL)
    /// A path under the configured local root (imgproxy's `local://`), as written after it.
    case local(String)

    public var description: String {
        switch self {
        case .remote(let url): url.absoluteString
        case .local(let path): "local://" + path
        }
    }
}

/// A source image's bytes, as fetched or read, with what HTTP said of them.
public struct SourceImage: Sendable {
    /// The encoded bytes.
    public var data: Data
    /// The origin's validators (ETag, Last-Modified), when it sent any.
    public var validators: HTTPValidators?
    /// The origin's `Cache-Control` and `Expires`, for `CACHE_CONTROL_PASSTHROUGH`.
    public var cacheControl: String?
    public var expires: String?

    public init(data: Data, validators: HTTPValidators? = nil, cacheControl: String? = nil, expires: String? = nil) {
        self.data = data
        self.validators = validators
        self.cacheControl = cacheControl
        self.expires = expires
    }
}

/// A request once its path is parsed and its signature checked: what the serving side needs to
/// cache, fetch and answer it, and the processing to run on the source's bytes.
public struct ImageRequest: Sendable {
    /// The source image.
    public var source: ImageSource
    /// Identifies the result: the source, the canonical options (defaults and presets
    /// expanded, order normalised) and the output format or the formats the request accepts.
    /// Never the signature.
    public var resultKey: String
    /// True when the output format was left to the request's `Accept` header (the response then
    /// carries `Vary: Accept`).
    public var variesWithAccept: Bool
    /// When the URL stops being valid (imgproxy's `expires`): 403 after it; caps `max-age`.
    public var expires: Date?
    /// The file name for `Content-Disposition`, without extension (imgproxy's `filename`).
    public var filename: String?
    /// `Content-Disposition: attachment` rather than `inline`.
    public var isAttachment: Bool
    /// The most source bytes this request may fetch (nil: the server's limit).
    public var maximumSourceBytes: Int?
    /// The path as logged: the options and source, without the signature.
    public var loggedPath: String
    /// Turns the source's bytes into the result. Runs once per result key at a time (shared by
    /// identical requests) in a worker slot; it runs blocking libvips work off the cooperative
    /// pool itself.
    public var process: @Sendable (SourceImage) async throws -> ProcessedImage

    public init(
        source: ImageSource, resultKey: String, variesWithAccept: Bool, expires: Date? = nil,
        filename: String? = nil, isAttachment: Bool = false, maximumSourceBytes: Int? = nil,
        loggedPath: String, process: @escaping @Sendable (SourceImage) async throws -> ProcessedImage
    ) {
        self.source = source
        self.resultKey = resultKey
        self.variesWithAccept = variesWithAccept
        self.expires = expires
        self.filename = filename
        self.isAttachment = isAttachment
        self.maximumSourceBytes = maximumSourceBytes
        self.loggedPath = loggedPath
        self.process = process
    }
}

/// Turns a request path into an `ImageRequest`: the URL format the server speaks.
public protocol ImageRequestParser: Sendable {
    /// `path` is everything after the mount prefix, starting with `/` (the signature first),
    /// percent-escapes as received; `accept` is the request's `Accept` header.
    func imageRequest(path: Substring, accept: String?) throws(ImageServerError) -> ImageRequest
}
