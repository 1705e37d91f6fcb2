import Configuration
import Foundation
import Logging
import WebImage

/// The image server's settings. `webimage serve` reads them with swift-configuration: flags
/// (`--max-src-resolution 40`) over environment variables (`WEBIMAGE_MAX_SRC_RESOLUTION=40`:
/// imgproxy's `IMGPROXY_` names with `WEBIMAGE_` in their place) over a JSON file
/// (`--config` / `WEBIMAGE_CONFIG`; keys as in `"maxSrcResolution": 40`), each setting as
/// `settings` declares it. A Swift service that mounts the routes itself fills one in code. The
/// defaults are the values below; docs/server-settings.md lists every setting with its default.
public struct ImageServerConfiguration: Sendable {
    /// Where the server listens.
    public var bind = ServerAddress(host: "127.0.0.1", port: 8080)
    /// Signing keys and salts, hex, paired in order; none: unsigned URLs.
    public var keys: [String] = []
    public var salts: [String] = []
    /// Bytes of the HMAC a signature keeps, 1...32.
    public var signatureSize = 32
    /// Signatures always accepted.
    public var trustedSignatures: [String] = []
    /// Listen on an address other machines reach without a key.
    public var allowsUnsigned = false
    /// The folder `local://` sources are read from; none: local sources off.
    public var localFilesystemRoot: String?
    /// Source URL prefixes allowed, `*` matching any characters but `/`; none: any.
    public var allowedSources: [String] = []
    /// Sources at loopback, private (and CGNAT) and link-local addresses.
    public var allowsLoopbackSourceAddresses = false
    public var allowsPrivateSourceAddresses = false
    public var allowsLinkLocalSourceAddresses = false
    /// Redirects followed for one source.
    public var maxRedirects = 10
    /// Requests processed at once: twice the core count, as imgproxy (a worker also waits for
    /// its source's fetch).
    public var workers = 2 * ProcessInfo.processInfo.activeProcessorCount
    /// Requests waiting for a worker beyond them; 0: no bound. Past it: 429.
    public var requestsQueueSize = 0
    /// Seconds a request may take in all: past it, 503.
    public var timeout: TimeInterval = 10
    /// Seconds a source may take to arrive: past it, 504.
    public var downloadTimeout: TimeInterval = 5
    /// `max-age` of results, seconds.
    public var ttl = 31_536_000
    /// Pass the source's `Cache-Control`/`Expires` on.
    public var cacheControlPassthrough = false
    /// `ETag` on results and 304 to `If-None-Match`.
    public var usesETag = true
    /// Where Prometheus metrics are served at `/metrics`; none: not served.
    public var prometheusBind: ServerAddress?
    /// `webimage serve` exports its traces over OTLP/HTTP, to the OpenTelemetry SDK's
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` (http://localhost:4318 when unset); it does so too when
    /// that variable, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, is set.
    public var exportsTraces = false
    /// A traced request's context is sent on to its origins and S3 (`traceparent`), so that their
    /// spans join its trace.
    public var propagatesTraceContext = true
    /// The folder of the result and source caches.
    public var cacheDirectory = ImageCache.defaultDiskCacheDirectory
    /// Bytes the result and source caches may hold on disk. Over it, the oldest entries go.
    public var resultCacheSize = 1 << 30
    public var sourceCacheSize = 1 << 30
    /// Bytes of results kept in memory.
    public var memoryCacheSize = 256 << 20
    /// Bytes of sources fetched lately kept in memory. A source goes to the disk store when it is
    /// used a second time, so a source asked for once (one size of it) is never written; 0: every
    /// source fetched is written to disk at once. 16 MiB (about 150 photos of 100 KB) makes the
    /// uncached benchmark as fast as 64 MiB did, for 50 MB less peak memory.
    public var sourceMemoryCacheSize = 16 << 20
    /// Flush each result to the device before it is renamed into place. Off by default:
    /// results can be made again, and a torn one is dropped when read.
    public var resultCacheSyncsWrites = false
    /// Seconds the server waits for requests in flight after SIGTERM or SIGINT.
    public var shutdownTimeout: TimeInterval = 20
    /// Serve the playground page at `/`; nil: on when `bind` is a loopback address, off
    /// otherwise. It signs paths for the page, so it is never on by chance where others can
    /// reach it.
    public var playground: Bool?
    /// The level of the server's log (`LOG_LEVEL`): each image request's access line is `info`.
    public var logLevel = Logger.Level.info
    /// The form of each log line (`LOG_FORMAT`), imgproxy's default: `key="value"` pairs.
    public var logFormat = LogFormat.structured
    /// `s3://bucket/key` sources (imgproxy's `USE_S3`), read as `s3` says.
    public var usesS3 = false
    public var s3 = S3Settings()
    /// The shared result store (imgproxy Pro's internal cache, `CACHE_*`): results kept in object
    /// storage too, read when memory and disk miss.
    public var resultCache = ResultCacheSettings()
    /// What requests are parsed and processed by: quality, formats, presets, source limits.
    public var processing = ProcessingConfiguration()
    /// Client connections served at once (`MAX_CLIENTS`); 2048, 0: no limit. Past it, a new
    /// connection waits in the listen queue until one closes, as imgproxy's `LimitListener` does.
    public var maxClients = 2048
    /// Seconds a client may take to send a request, from its first byte (from its connection's
    /// opening for the first request) to the end of its body (`READ_REQUEST_TIMEOUT`, imgproxy
    /// 3.x's `READ_TIMEOUT`); 10. Past it, the connection is closed.
    public var readRequestTimeout: TimeInterval = 10
    /// Seconds a response may take to reach the client, from its head to its last byte handed
    /// to the network (`WRITE_RESPONSE_TIMEOUT`); 10. Past it, the connection is closed: a
    /// client that does not read holds nothing longer.
    public var writeResponseTimeout: TimeInterval = 10
    /// Seconds a connection may wait for its next request (`KEEP_ALIVE_TIMEOUT`); 10. 0: no
    /// keep-alive, each response closes its connection.
    public var keepAliveTimeout: TimeInterval = 10
    /// Bytes of a request's URL, or of one header field, name and value
    /// (`MAX_HEADER_FIELD_SIZE`); 16 KiB. More: 400 and the connection closed.
    public var maxHeaderFieldSize = 16 << 10
    /// Bytes of a request's URL and header fields together (`MAX_HEADERS_SIZE`); 64 KiB.
    /// More: 400 and the connection closed.
    public var maxHeadersSize = 64 << 10
    /// Header fields a request may have (`MAX_HEADER_COUNT`); 100, Apache's. More: 400 and
    /// the connection closed.
    public var maxHeaderCount = 100

    // MARK: The request surface

    /// A path every route is under (`/images`: `/images/health`, `/images/{signature}/...`);
    /// empty: the root. Written `/images`; a missing leading `/` is added, a trailing one dropped.
    public var pathPrefix = ""
    /// Another path (under `pathPrefix`) answering as `/health` does.
    public var healthCheckPath: String?
    /// Image responses (and `OPTIONS`) carry `Access-Control-Allow-Origin` with this value and
    /// `Access-Control-Allow-Methods: GET, OPTIONS`; none: no CORS headers.
    public var allowOrigin: String?
    /// Image requests must carry `Authorization: Bearer <secret>` (compared in constant time);
    /// others are 403. None: not checked. Never logged.
    public var secret: String?
    /// Image responses carry `X-Origin-Content-Length`, `X-Origin-Width`, `X-Origin-Height`,
    /// `X-Result-Width` and `X-Result-Height`.
    public var enableDebugHeaders = false
    /// The request's cookies go with the source's fetch: those whose scope (`cookieBaseURL`, else
    /// the request's own host) covers the source URL, or all with `cookiePassthroughAll`.
    public var cookiePassthrough = false
    public var cookiePassthroughAll = false
    public var cookieBaseURL: String?
    /// An image answered, processed with the request's options, when the source cannot be had
    /// or read: base64 data, else a file, else a URL (fetched when first needed). Never stored
    /// as the result.
    public var fallbackImageData: String?
    public var fallbackImagePath: String?
    public var fallbackImageURL: String?
    /// The status of a fallback image's response; 0: the status the failure would have had.
    public var fallbackImageHTTPCode = 200
    /// `max-age` of a fallback image's response, seconds; 0: as a result's (`ttl`) when its
    /// status is below 400, else `no-store`.
    public var fallbackImageTTL = 0
    /// The mark the `watermark` option draws: base64 data, else a file, else a URL (fetched
    /// with the server's downloader, once, before the first request needs it; `run` fetches
    /// it at start). Decoded once, at start; none: `watermark` draws nothing.
    public var watermarkData: String?
    public var watermarkPath: String?
    public var watermarkURL: String?
    /// Multiplies the `watermark` option's opacity: above 0, up to 1.
    public var watermarkOpacity = 1.0

    /// Whether the playground is served.
    public var servesPlayground: Bool { playground ?? bind.isLoopback }

    public init() {}
}
