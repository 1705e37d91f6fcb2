import Foundation

/// Where a request's source image is, as its URL names it.
public enum SourceURL: Sendable, Hashable, CustomStringConvertible {
    /// An http(s) URL, fetched through the server's downloader (and its source guard).
    case remote(URL)
    /// A path under the configured local root (imgproxy's `local://`), as written after it.
    case local(path: String)
    /// An object of an S3 bucket (`s3://bucket/key`, with `USE_S3`).
    case s3(S3ObjectAddress)

    /// The URL as the request named it (`https://example.com/a.jpg`, `local:///photos/a.jpg`):
    /// the source's part of the result key and the source store's key.
    public var description: String {
        switch self {
        case .remote(let url): url.absoluteString
        case .local(let path): "local://" + path
        case .s3(let object): object.description
        }
    }

    /// Its scheme and host (`https://example.com`, `local://`, `s3://bucket`): imgproxy's
    /// `imgproxy.source_image_origin` span attribute.
    public var origin: String {
        switch self {
        case .remote(let url): "\(url.scheme ?? "")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
        case .local: "local://"
        case .s3(let object): "s3://" + object.bucket
        }
    }
}

/// An S3 object as an `s3://` source names it, read as imgproxy reads one: the bucket up to the
/// first `/`, the key after it (leading slashes dropped; as written, with no percent-decoding
/// beyond the URL's own), up to the first `?` (`SOURCE_URL_QUERY_SEPARATOR`); after that, the
/// version: `versionId=ID`, or imgproxy's bare `ID`.
public struct S3ObjectAddress: Sendable, Hashable, CustomStringConvertible {
    public var bucket: String
    public var key: String
    public var versionID: String?

    public init(bucket: String, key: String, versionID: String? = nil) {
        self.bucket = bucket
        self.key = key
        self.versionID = versionID
    }

    /// The address in `url` (`s3://bucket/key?versionId=ID`, any case of scheme), its query after
    /// `querySeparator` (empty: no query, the rest is key); nil when it has no bucket or no key, or
    /// the bucket holds characters no bucket name has.
    public init?(_ url: String, querySeparator: String = "?") {
        guard let separator = url.range(of: "://"), url[..<separator.lowerBound].lowercased() == "s3" else { return nil }
        let rest = url[separator.upperBound...]
        let bucket = rest.prefix { $0 != "/" }
        var path = rest.dropFirst(bucket.count).drop { $0 == "/" }
        var versionID: Substring?
        if !querySeparator.isEmpty, let separator = path.range(of: querySeparator) {
            let query = path[separator.upperBound...]
            path = path[..<separator.lowerBound]
            let named = query.split(separator: "&").first { $0.hasPrefix("versionId=") }.map { $0.dropFirst("versionId=".count) }
            versionID = named.map { Substring(PercentDecoding.pathUnescaped(String($0)) ?? String($0)) } ?? query
        }
        guard !bucket.isEmpty, !path.isEmpty,
              bucket.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) })
        else { return nil }
        self.init(bucket: String(bucket), key: String(path), versionID: versionID.flatMap { $0.isEmpty ? nil : String($0) })
    }

    /// `s3://bucket/key`, with `?versionId=ID` for a version: the source's part of the result
    /// key and the source store's key.
    public var description: String {
        "s3://\(bucket)/\(key)" + (versionID.map { "?versionId=" + $0 } ?? "")
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
    /// The `/info` request `path` asks for: the path after `/info`, read as `parse` reads an
    /// image path. A format without `/info` leaves the default, which answers 404.
    func parseInfo(path: String, now: Date) throws(ImageServerError) -> InfoRequest
}
