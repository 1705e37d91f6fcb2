extension ImageServerConfiguration {
    /// Every setting, declared once: reading goes through this table, and docs/server-settings.md's
    /// settings table is written from it (`SettingsTableTests`). imgproxy's settings keep their
    /// names and meanings; defaults are the properties' own.
    static let settings: [ImageServerSetting] = read + requestSurface + watermark + imgproxySettingsNotRead

    /// The settings this server reads.
    static let read: [ImageServerSetting] = [
        .read("bind", \.bind, .address, "`HOST:PORT` to listen on (`:8080`: every IPv4 address)"),
        .read("key", \.keys, .list, "hex signing keys, comma-separated, paired in order with the salts; none: unsigned URLs"),
        .read("salt", \.salts, .list, "hex salts, comma-separated, one for each key"),
        .read("signatureSize", \.signatureSize, .int(in: 1...32), "bytes of the HMAC a signature keeps, 1 to 32"),
        .read("trustedSignatures", \.trustedSignatures, .list, "signatures always accepted"),
        .read("allowUnsigned", \.allowsUnsigned, .bool, "serve unsigned URLs on an address other machines reach"),
        .read("localFilesystemRoot", \.localFilesystemRoot, .optional(.text), "folder of `local://` sources; none: `local://` is 404"),
        .read("allowedSources", \.allowedSources, .list, "source URL prefixes allowed (`*`: any characters but `/`); none: any"),
        .read("allowLoopbackSourceAddresses", \.allowsLoopbackSourceAddresses, .bool, "fetch from 127.0.0.0/8, ::1, 0.0.0.0"),
        .read(
            "allowPrivateSourceAddresses", \.allowsPrivateSourceAddresses, .bool, imgproxyDefault: "true",
            "fetch from RFC 1918, CGNAT and unique-local addresses (off here, so that a URL cannot reach the internal network)"
        ),
        .read("allowLinkLocalSourceAddresses", \.allowsLinkLocalSourceAddresses, .bool, "fetch from 169.254.0.0/16, fe80::/10"),
        .read(
            "maxSrcFileSize", \.processing.maxSourceFileSize, .int(),
            "most bytes a source may have (more: 422); 0: the downloader's limit, 100 MB"
        ),
        .read("maxRedirects", \.maxRedirects, .int(), "redirects followed for a source (one more: 404)"),
        .read(
            "workers", \.workers, .int(in: 1...4096), aliases: ["concurrency"], defaultDescription: "twice the core count",
            "requests processed at once (a worker is held from the source's fetch to the encode, as in imgproxy)"
        ),
        .read("requestsQueueSize", \.requestsQueueSize, .int(), "requests waiting for a worker (one more: 429); 0: no bound"),
        .read("timeout", \.timeout, .seconds, aliases: ["writeTimeout"], "seconds a request may take (more: 503)"),
        .read("downloadTimeout", \.downloadTimeout, .seconds, "seconds a source may take to arrive (more: 504)"),
        .read("ttl", \.ttl, .int(), "`max-age` of results, seconds"),
        .read("cacheControlPassthrough", \.cacheControlPassthrough, .bool, "send the source's `Cache-Control` / `Expires` instead"),
        .read("useEtag", \.usesETag, .bool, aliases: ["etagEnabled"], "`ETag` on results, 304 to `If-None-Match`"),
        .read("prometheusBind", \.prometheusBind, .optional(.address), "`HOST:PORT` of `/metrics`, not `BIND`'s; none: not served"),
        .read(
            "openTelemetryEnable", \.exportsTraces, .bool,
            "`webimage serve` exports traces over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT` (default http://localhost:4318); on too when that is set (docs/server-operations.md, Traces)"
        ),
        .read(
            "openTelemetryPropagateExternal", \.propagatesTraceContext, .bool, imgproxyDefault: "`false`",
            "a traced request's context (`traceparent`) is sent on to its origins and S3"
        ),
        .read("cacheDir", \.cacheDirectory, .text, defaultDescription: "the library's cache folder", "where `results` and `sources` live"),
        .read("resultCacheSize", \.resultCacheSize, .int(), "bytes of results on disk; over it, the oldest go"),
        .read("sourceCacheSize", \.sourceCacheSize, .int(), "bytes of sources on disk; over it, the oldest go"),
        .read("memoryCacheSize", \.memoryCacheSize, .int(), "bytes of results kept in memory"),
        .read(
            "sourceMemoryCacheSize", \.sourceMemoryCacheSize, .int(),
            "bytes of sources fetched lately kept in memory; a source is written to disk on its second use (0: on its first)"
        ),
        .read("resultCacheFsync", \.resultCacheSyncsWrites, .bool, "flush each result to the device before it is renamed into place"),
        .read(
            "shutdownTimeout", \.shutdownTimeout, .seconds, aliases: ["gracefulStopTimeout"],
            "seconds requests in flight get after SIGTERM or SIGINT"
        ),
        .read(
            "logLevel", \.logLevel, .named("a log level", aliases: ["warn": .warning]),
            "the log's level: trace, debug, info, notice, warning (or warn), error or critical; each image request's access line is `info`"
        ),
        .read(
            "logFormat", \.logFormat, .named("a log format"),
            "each log line's form: structured (`key=\"value\"`), pretty, json or gcp (JSON with `severity` and `message`); UTC times, to standard error"
        ),
        .read(
            "maxClients", \.maxClients, .int(),
            "client connections served at once; past it, new ones wait in the listen queue until one closes; 0: no limit"
        ),
        .read(
            "readRequestTimeout", \.readRequestTimeout, .seconds, aliases: ["readTimeout"],
            "seconds a client may take to send a request, from its first byte (the first request: from connecting) to its end; past it, the connection is closed (408 first when part of a head came)"
        ),
        .read(
            "writeResponseTimeout", \.writeResponseTimeout, .seconds,
            "seconds a response may take to reach the network, from its head to its last byte; past it (a client that does not read), the connection is closed"
        ),
        .read(
            "keepAliveTimeout", \.keepAliveTimeout, .secondsOrZero,
            "seconds a connection may wait idle for its next request; 0: no keep-alive (`Connection: close` on every response)"
        ),
        .read(
            "maxHeaderFieldSize", \.maxHeaderFieldSize, .int(in: 1...Int.max),
            "bytes of a request's URL or of one header field (more: 431, connection closed)"
        ),
        .read("maxHeadersSize", \.maxHeadersSize, .int(in: 1...Int.max), "bytes of a request's URL and header fields together (more: 431, connection closed)"),
        .read("maxHeaderCount", \.maxHeaderCount, .int(in: 1...Int.max), "header fields a request may have (more: 431, connection closed)"),
        .read(
            "playground", \.playground, .optional(.bool),
            "the playground page at `/`, its signer at `/playground/sign` and its placeholder painter at `/playground/placeholder`; none: on for a loopback `BIND`, else off"
        ),
        .read("quality", \.processing.quality, .int(in: 1...100), "quality of lossy results, 1 to 100, when neither `q` nor `FORMAT_QUALITY` sets one"),
        .read("formatQuality", \.processing.formatQuality, .formatQuality, "quality by output format"),
        .read(
            "preferredFormats", \.processing.preferredFormats, .formats,
            "formats a source keeps; otherwise the first of these that carries its alpha or animation"
        ),
        .read(
            "autoWebp", \.processing.autoWebP, .bool, aliases: ["enableWebpDetection"],
            "WebP when `Accept` takes it and the URL names no format; `Vary: Accept` (a cache in front must key on it)"
        ),
        .read(
            "autoAvif", \.processing.autoAVIF, .bool, aliases: ["enableAvifDetection"],
            "the same for AVIF, preferred over WebP; not for animations"
        ),
        .read("enforceWebp", \.processing.enforceWebP, .bool, "WebP when `Accept` takes it, even over the URL's format"),
        .read("enforceAvif", \.processing.enforceAVIF, .bool, "the same for AVIF"),
        .read("presets", \.processing.presets, .list, "`name=options` entries, comma-separated; `default` applies to every request"),
        .read("onlyPresets", \.processing.onlyPresets, .bool, "the options part of a URL holds preset names only"),
        .read(
            "allowSecurityOptions", \.processing.allowSecurityOptions, .bool,
            "URLs may set `max_src_resolution` and the other limits (else 403)"
        ),
        .read(
            "maxSrcResolution", \.processing.maxSourceResolution, .megapixels,
            "megapixels a source may have (frames × canvas), read from its header (more: 422)"
        ),
        .read(
            "maxAnimationFrames", \.processing.maxAnimationFrames, .int(in: 1...Int.max), imgproxyDefault: "1",
            "frames of an animation processed, its first ones, the others dropped (as imgproxy); 1: the first frame only (imgproxy's default: here animations stay animated)"
        ),
        .read(
            "maxAnimationFrameResolution", \.processing.maxAnimationFrameResolution, .megapixels,
            "megapixels a frame may have, in place of the whole animation's count; 0: off"
        ),
        .read(
            "maxResultDimension", \.processing.maxResultDimension, .int(),
            "pixels a result may have on a side: a larger one is scaled down to fit, padding and extend counted; 0: no limit"
        ),
        .read(
            "stripMetadata", \.processing.stripMetadata, .bool,
            "results carry no EXIF, XMP or IPTC but their copyright (`KEEP_COPYRIGHT`); `false` (or `sm:0`) keeps them (docs/cli.md: what each format keeps); the ICC profile: `STRIP_COLOR_PROFILE`"
        ),
        .read("autoRotate", \.processing.autoRotate, .bool, "turn sources upright by their EXIF orientation"),
        // MARK: Output: compression, colour profile, copyright, thumbnail
        .read("jpegProgressive", \.processing.jpegProgressive, .bool, "JPEG results progressive"),
        .read("pngInterlaced", \.processing.pngInterlaced, .bool, "PNG results interlaced (Adam7)"),
        .read(
            "pngQuantize", \.processing.pngQuantize, .bool,
            "PNG results with a palette (libimagequant) of `PNG_QUANTIZATION_COLORS` colours"
        ),
        .read(
            "pngQuantizationColors", \.processing.pngQuantizationColors, .int(in: 2...256),
            "the palette's colours, 2 to 256; rounded up to 2, 4, 16 or 256, as imgproxy's libvips call does"
        ),
        .read("webpPreset", \.processing.webPPreset, .named("a WebP preset"), "libwebp's preset: default, photo, picture, drawing, icon or text"),
        .read("webpEffort", \.processing.webPEffort, .int(in: 1...6), "WebP encoder effort, 1 to 6"),
        .read("avifSpeed", \.processing.avifSpeed, .int(in: 0...9), "AVIF encoder speed, 0 (slowest, smallest) to 9"),
        .read("jxlEffort", \.processing.jxlEffort, .int(in: 1...9), "JPEG XL encoder effort, 1 to 9"),
        .read(
            "stripColorProfile", \.processing.stripColorProfile, .bool,
            "results carry no ICC profile (`scp:0` keeps the sRGB pixels' profile: imgproxy keeps an RGB source's own)"
        ),
        .read(
            "keepCopyright", \.processing.keepCopyright, .bool,
            "stripping metadata keeps the EXIF's Copyright and Artist, IPTC's By-line, Credit and Copyright Notice (`kcr`; imgproxy also XMP's)"
        ),
        .read("enforceThumbnail", \.processing.enforceThumbnail, .bool, "a HEIC or AVIF source's embedded thumbnail is processed in its place (`eth`)"),
        .read(
            "skipProcessingFormats", \.processing.skipProcessingFormats, .formats,
            "source formats sent as they are when no other format is asked for (`skp` adds to them); SVG never is"
        ),
        .read(
            "sanitizeSvg", \.processing.sanitizeSVG, .onlyTrue("SVG sources are always rasterised here, never served as SVG, sanitised or not"),
            "`true` only: SVG sources are rasterised, never served as SVG (imgproxy passes them through, without scripts and event handlers)"
        ),
        .read(
            "alwaysRasterizeSvg", \.processing.alwaysRasterizeSVG, .onlyTrue("SVG is not an output format here: SVG sources are always rasterised"),
            "`true` only: SVG sources are rasterised even when SVG could be sent (imgproxy's default false sends an SVG source as SVG)"
        ),
        .read(
            "preserveHdr", \.processing.preserveHDR, .bool,
            "HDR sources (10-bit PQ/HLG AVIF, HEIC, JPEG XL) stay HDR in AVIF, HEIC, JPEG XL and 16-bit PNG results (`ph:1`); false: tone mapped to SDR"
        ),
        .read(
            "faceDetectionCascades", \.processing.faceDetector, .faceCascades,
            "OpenCV's cascade files faces are found with (`g:obj:face`, `blur_detections`, `draw_detections`, /info's `detect_objects`; docs/faces.md): the frontal one, then optionally the profile one, comma-separated, checked at start; not in the result key"
        ),
    ] + s3 + resultCache

    /// imgproxy's S3 group, as far as it is built (docs/server-options.md, "S3 sources").
    static let s3: [ImageServerSetting] = [
        .read(
            "useS3", \.usesS3, .bool,
            "`s3://bucket/key` sources (`?versionId=ID`, or imgproxy's `?ID`), signed with the AWS credentials of the environment or the shared credentials file"
        ),
        .read(
            "s3.region", \.s3.region, .optional(.text), defaultDescription: "`AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-west-1`",
            "the region requests are signed for (one region for every bucket)"
        ),
        .read(
            "s3.endpoint", \.s3.endpoint, .optional(.text),
            "an S3-compatible store (`http://` when no scheme), trusted whatever its address; none: AWS"
        ),
        .read(
            "s3.endpointUsePathStyle", \.s3.endpointUsesPathStyle, .bool,
            "`ENDPOINT/bucket/key` rather than `bucket.ENDPOINT/key` (with `S3_ENDPOINT` only)"
        ),
        .read("s3.allowedBuckets", \.s3.allowedBuckets, .list, "buckets `s3://` may read (else 404); none: any"),
        .read("s3.deniedBuckets", \.s3.deniedBuckets, .list, "buckets `s3://` may not read (404), whatever `S3_ALLOWED_BUCKETS` says"),
    ]

    /// The URL and HTTP settings: how a URL is read (`ARGUMENTS_SEPARATOR`, the source URL's
    /// rewrites), what a request must carry (`SECRET`), what a response carries (CORS, debug
    /// headers), the routes (`PATH_PREFIX`, `HEALTH_CHECK_PATH`), cookies, the fallback image.
    static let requestSurface: [ImageServerSetting] = [
        .read("pathPrefix", \.pathPrefix, .urlPath, "a path every route is under, `/health` too (`/images`)"),
        .read("healthCheckPath", \.healthCheckPath, .optional(.urlPath), "another path answering as `/health` does (under `PATH_PREFIX`)"),
        .read(
            "secret", \.secret, .optional(.text),
            "image requests must carry `Authorization: Bearer {SECRET}` (compared in constant time; else 403); none: not checked"
        ),
        .read(
            "allowOrigin", \.allowOrigin, .optional(.text),
            "CORS: `Access-Control-Allow-Origin` with it and `-Methods: GET, OPTIONS` on image responses and `OPTIONS`"
        ),
        .read(
            "enableDebugHeaders", \.enableDebugHeaders, .bool,
            "`X-Origin-Content-Length`, `X-Origin-Width`, `-Height`, `X-Result-Width`, `-Height` on images"
        ),
        .read(
            "allowedProcessingOptions", \.processing.allowedProcessingOptions, .list,
            "option names a URL may write, as written (`rs` and `resize` apart; presets' contents exempt; else 404); none: any"
        ),
        .read(
            "allowedInfoOptions", \.processing.allowedInfoOptions, .list,
            "info option names an `/info` URL may write, as written (`dc` and `dominant_colors` apart; else 404); none: any"
        ),
        .read("argumentsSeparator", \.processing.argumentsSeparator, .argumentsSeparator, "separates an option's name and arguments in URLs and presets"),
        .read(
            "urlReplacements", \.processing.urlReplacements, .urlReplacements,
            "`pattern=replacement;...`: a source URL starting with a pattern (`*`: any run without `/`) has that start replaced (`$1`: a run)"
        ),
        .read("baseUrl", \.processing.baseURL, .prefix, "put before source URLs that do not start with it, after `URL_REPLACEMENTS`"),
        .read(
            "base64.urlIncludesFilename", \.processing.base64URLIncludesFilename, .bool,
            "a base64 source's last `/` segment is a file name, not part of the URL"
        ),
        .read(
            "sourceUrlQuerySeparator", \.processing.sourceURLQuerySeparator, .text, readsEmpty: true,
            "what ends a `local://` or `s3://` URL's path and starts its query (an S3 version); empty: nothing does"
        ),
        .read("cookiePassthrough", \.cookiePassthrough, .bool, "the request's cookies go with the source's fetch when their scope covers it"),
        .read("cookiePassthroughAll", \.cookiePassthroughAll, .bool, "with `COOKIE_PASSTHROUGH`, all of them, whatever the source"),
        .read(
            "cookieBaseUrl", \.cookieBaseURL, .optional(.text),
            "the URL the request's cookies are taken as set for; none: the request's own (`X-Forwarded-Proto`, `X-Forwarded-Host` or `Host`)"
        ),
        .read(
            "fallbackImageData", \.fallbackImageData, .optional(.base64),
            "an image (base64) answered, processed with the request's options, when the source cannot be had or read"
        ),
        .read("fallbackImagePath", \.fallbackImagePath, .optional(.text), "the same from a file, when no data is set; read at start"),
        .read(
            "fallbackImageUrl", \.fallbackImageURL, .optional(.text),
            "the same from a URL, when neither is set; fetched when first needed (imgproxy: at start)"
        ),
        .read("fallbackImageHttpCode", \.fallbackImageHTTPCode, .statusOrZero, "the fallback's status; 0: the failure's own"),
        .read(
            "fallbackImageTtl", \.fallbackImageTTL, .int(),
            "the fallback's `max-age`; 0: `TTL` below status 400, else `no-store` (imgproxy: no `Cache-Control`)"
        ),
    ]

    /// The mark the `watermark` option draws (docs/server-options.md, "Watermarks").
    static let watermark: [ImageServerSetting] = [
        .read("watermarkData", \.watermarkData, .optional(.base64), "the mark `watermark` draws, an image (base64); none: `watermark` draws nothing"),
        .read("watermarkPath", \.watermarkPath, .optional(.text), "the same from a file, when no data is set; read at start"),
        .read(
            "watermarkUrl", \.watermarkURL, .optional(.text),
            "the same from a URL, when neither is set; fetched once, at start (a mount: before the first request that needs it)"
        ),
        .read("watermarkOpacity", \.watermarkOpacity, .opacity, "multiplies the `watermark` option's opacity; above 0, up to 1"),
    ]

    /// `WEBIMAGE_KEY (--key)` for `\.keys`: the setting of `property` as a user writes it.
    static func names(of property: PartialKeyPath<ImageServerConfiguration>) -> String {
        key(of: property).map(ImageServerSetting.names(of:)) ?? "\(property)"
    }

    /// `WEBIMAGE_KEY` for `\.keys`: the environment variable of `property`'s setting, as an error
    /// names it.
    static func environmentName(of property: PartialKeyPath<ImageServerConfiguration>) -> String {
        key(of: property).map(ImageServerSetting.environmentName(of:)) ?? "\(property)"
    }

    /// `["WEBIMAGE_KEY", "IMGPROXY_KEY"]` for `\.keys`: the environment variables the setting of
    /// `property` is read from, in the order they are read (a tool's help names them so).
    public static func environmentNames(of property: PartialKeyPath<ImageServerConfiguration>) -> [String] {
        guard let key = key(of: property) else { return [] }
        return ImageServerSetting.environmentPrefixes.map { $0 + ImageServerSetting.unprefixedEnvironmentName(of: key) }
    }

    /// The key of the setting read into `property`.
    private static func key(of property: PartialKeyPath<ImageServerConfiguration>) -> String? {
        settings.first { setting in
            if case .read(let binding) = setting.state { binding.property == property } else { false }
        }?.key
    }
}
