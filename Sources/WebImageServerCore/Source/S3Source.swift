import Foundation
import WebImage
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `s3://bucket/key` sources (`USE_S3`): each object fetched with a GET of its URL on the
/// configured endpoint (AWS, or an S3-compatible store), signed with AWS Signature Version 4,
/// through an `ImageDownloader` of its own made from the server's downloader settings (the byte
/// limit, the timeouts and retries, identical fetches shared). The request modifier signs each
/// request as the downloader makes it. Its source guard lets through the configured endpoint
/// and nothing else, whatever the endpoint's address: the store is trusted by configuration, and
/// the same address written as an `http://` source still meets the server's own guard.
struct S3Source: Sendable {
    /// Where objects are read from, and how they are addressed.
    struct Endpoint: Sendable, Equatable {
        var scheme: String
        var host: String
        var port: Int?
        /// A path before the bucket (or key), without a trailing `/`: `""` usually.
        var basePath: String
        var usesPathStyle: Bool
        /// True for AWS's own endpoint: buckets whose name allows it go in the host name.
        var isAWS: Bool

        /// The endpoint `settings` name (`http://` added when no scheme is written), else
        /// AWS's in `region`; nil when `settings.endpoint` is not a URL with a host.
        init?(settings: S3Settings, region: String) {
            guard var text = settings.endpoint?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                (scheme, host, port, basePath, usesPathStyle, isAWS) = ("https", "s3.\(region).amazonaws.com", nil, "", false, true)
                return
            }
            if !text.lowercased().hasPrefix("http://") && !text.lowercased().hasPrefix("https://") { text = "http://" + text }
            guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty, let scheme = components.scheme else {
                return nil
            }
            var path = components.percentEncodedPath
            while path.hasSuffix("/") { path.removeLast() }
            (self.scheme, self.host, port, basePath, usesPathStyle, isAWS) = (scheme.lowercased(), host, components.port, path, settings.endpointUsesPathStyle, false)
        }

        /// Whether `bucket` can be a host name label (AWS's virtual-hosted style; a name with a
        /// dot would break the TLS certificate's wildcard).
        private static func isHostLabel(_ bucket: String) -> Bool {
            bucket.count >= 3 && bucket.count <= 63 && bucket.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
                && bucket.first != "-" && bucket.last != "-"
        }

        /// The object's URL: `ENDPOINT/bucket/key` or `bucket.ENDPOINT/key`, the key encoded as
        /// S3 signs it (every byte but unreserved ones and `/`), `?versionId=` for a version.
        func url(for object: S3ObjectAddress) -> URL? {
            let virtual = isAWS ? Self.isHostLabel(object.bucket) : !usesPathStyle
            var text = scheme + "://" + (virtual ? object.bucket + "." : "") + (host.contains(":") ? "[\(host)]" : host)
            if let port { text += ":\(port)" }
            text += basePath + (virtual ? "" : "/" + SignatureV4.uriEncoded(object.bucket))
            text += "/" + SignatureV4.uriEncoded(object.key, keepingSlashes: true)
            if let version = object.versionID { text += "?versionId=" + SignatureV4.uriEncoded(version) }
            return URL(string: text)
        }

        /// The hosts the downloader may reach: the endpoint's, and its subdomains when buckets
        /// are addressed by host.
        var allowedHosts: [String] {
            usesPathStyle && !isAWS ? [host] : [host, "*." + host]
        }
    }

    let endpoint: Endpoint
    let settings: S3Settings
    let downloader: ImageDownloader

    /// The source for `settings`, fetching with a downloader made from `base` (the server's
    /// downloader settings) with its guard narrowed to the endpoint; nil when the endpoint is
    /// not a URL.
    init?(settings: S3Settings, base: ImageDownloaderConfig) {
        let region = settings.region ?? S3Settings.fallbackRegion
        guard let endpoint = Endpoint(settings: settings, region: region) else { return nil }
        self.endpoint = endpoint
        self.settings = settings
        var config = base
        let serverGuard = base.sourceGuard
        // A store of your own is trusted whatever its address; AWS's endpoint is public, and
        // meets the server's address rules as any origin does.
        config.sourceGuard = SourceGuard(
            allowedSchemes: [endpoint.scheme], allowedHosts: endpoint.allowedHosts,
            allowsLoopback: !endpoint.isAWS || (serverGuard?.allowsLoopback ?? false),
            allowsPrivate: !endpoint.isAWS || (serverGuard?.allowsPrivate ?? false),
            allowsLinkLocal: !endpoint.isAWS || (serverGuard?.allowsLinkLocal ?? false),
            resolver: serverGuard?.resolver ?? SystemSourceResolver(), connector: serverGuard?.connector
        )
        // S3 answers a bucket in another region with a redirect that a signed request cannot
        // follow (the signature names the region): it is a failure, not a hop.
        config.maximumRedirects = 0
        downloader = ImageDownloader(config: config)
        if let credentials = settings.credentials {
            let signer = SignatureV4(credentials: credentials, region: region, service: "s3", normalizesPath: false)
            downloader.requestModifier = DownloaderRequestModifier { request in
                guard let url = request.url, let headers = signer.headers(method: request.httpMethod ?? "GET", url: url, date: Date()) else {
                    return nil
                }
                var request = request
                for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                return request
            }
        }
    }

    /// The bytes of `object`, at most `maximumBytes`; errors as `SourceStore.serverError` makes
    /// them (an object that is missing, denied or refused by the store: 404).
    func fetch(_ object: S3ObjectAddress, maximumBytes: Int) async throws -> SourceImage {
        guard settings.allows(bucket: object.bucket) else {
            throw ImageServerError.sourceRefused("\(object): bucket \(object.bucket) is not allowed (S3_ALLOWED_BUCKETS, S3_DENIED_BUCKETS)")
        }
        guard let url = endpoint.url(for: object) else { throw ImageServerError.invalidSource("\(object): no URL on the endpoint") }
        return try await SourceStore.download(url, with: downloader, maximumBytes: maximumBytes)
    }
}
