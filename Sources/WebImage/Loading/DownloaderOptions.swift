/// Options of one download: SDWebImage's `SDWebImageDownloaderOptions`, with the same bit values.
public struct DownloaderOptions: OptionSet, Sendable, Hashable {
    /// The bits, as in SDWebImage.
    public let rawValue: UInt

    /// The options whose bits are set in `rawValue`.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Wait behind normal and high priority downloads.
    public static let lowPriority = DownloaderOptions(rawValue: 1 << 0)
    /// Deliver partial images while bytes arrive.
    public static let progressiveLoad = DownloaderOptions(rawValue: 1 << 1)
    /// Accepted for SDWebImage compatibility; image bytes are cached by `ImageCache`, not an HTTP cache.
    public static let useURLCache = DownloaderOptions(rawValue: 1 << 2)
    /// Accepted for SDWebImage compatibility (no HTTP cache is consulted).
    public static let ignoreCachedResponse = DownloaderOptions(rawValue: 1 << 3)
    /// Send the cookies `ImageDownloaderConfig.cookieStorage` holds for the URL (and for each
    /// redirect) and keep the ones the server sets; without it, cookies are neither sent nor kept.
    public static let handleCookies = DownloaderOptions(rawValue: 1 << 5)
    /// Accept TLS certificates that do not validate, for this download only (testing only).
    public static let allowInvalidSSLCertificates = DownloaderOptions(rawValue: 1 << 6)
    /// Start before normal and low priority downloads.
    public static let highPriority = DownloaderOptions(rawValue: 1 << 7)
    /// Decode large images scaled down to `ImageCoderOptions.defaultScaleDownLimitBytes`.
    public static let scaleDownLargeImages = DownloaderOptions(rawValue: 1 << 8)
    /// Keep the image lazy (a libvips pipeline over the bytes) instead of decoding pixels.
    public static let avoidDecodeImage = DownloaderOptions(rawValue: 1 << 9)
    /// Decode only the first frame of animated images.
    public static let decodeFirstFrameOnly = DownloaderOptions(rawValue: 1 << 10)
    /// Decode every frame of an animation before completing, and keep them (otherwise frames
    /// are decoded when asked for).
    public static let preloadAllFrames = DownloaderOptions(rawValue: 1 << 11)
    /// With the context's `animatedImageClass`: decode into that class.
    public static let matchAnimatedImageClass = DownloaderOptions(rawValue: 1 << 12)

    /// The downloader options that the manager options ask for (SDWebImage's mapping).
    public init(_ options: WebImageOptions) {
        var result: DownloaderOptions = []
        let pairs: [(WebImageOptions, DownloaderOptions)] = [
            (.lowPriority, .lowPriority), (.progressiveLoad, .progressiveLoad), (.handleCookies, .handleCookies),
            (.allowInvalidSSLCertificates, .allowInvalidSSLCertificates), (.highPriority, .highPriority),
            (.scaleDownLargeImages, .scaleDownLargeImages), (.avoidDecodeImage, .avoidDecodeImage),
            (.decodeFirstFrameOnly, .decodeFirstFrameOnly), (.preloadAllFrames, .preloadAllFrames),
            (.matchAnimatedImageClass, .matchAnimatedImageClass),
        ]
        for (option, downloaderOption) in pairs where options.contains(option) { result.insert(downloaderOption) }
        self = result
    }
}

extension WebImageOptions {
    /// The decoding switches of downloader options, for `ImageDecoding.coderOptions`.
    init(decodingSwitchesOf options: DownloaderOptions) {
        self = []
        let pairs: [(DownloaderOptions, WebImageOptions)] = [
            (.decodeFirstFrameOnly, .decodeFirstFrameOnly), (.scaleDownLargeImages, .scaleDownLargeImages),
            (.avoidDecodeImage, .avoidDecodeImage), (.preloadAllFrames, .preloadAllFrames),
        ]
        for (downloaderOption, option) in pairs where options.contains(downloaderOption) { insert(option) }
    }
}

/// Which waiting download starts next when a slot frees: SDWebImage's `SDWebImageDownloaderExecutionOrder`.
public enum DownloadExecutionOrder: Sendable {
    /// First queued, first started.
    case fifo
    /// Last queued, first started.
    case lifo
}

/// How urgent a download is; the highest priority among a download's callers counts.
public enum DownloadPriority: Int, Sendable, Comparable {
    case low = 0, normal = 1, high = 2

    public static func < (lhs: DownloadPriority, rhs: DownloadPriority) -> Bool { lhs.rawValue < rhs.rawValue }

    init(_ options: DownloaderOptions) {
        self = options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
    }
}
