/// Options that steer a load through cache, loader and decoder: SDWebImage's `SDWebImageOptions`,
/// with the same bit values.
public struct WebImageOptions: OptionSet, Sendable, Hashable {
    /// The bits, as in SDWebImage.
    public let rawValue: UInt

    /// The options whose bits are set in `rawValue`.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Retry a URL that failed before instead of refusing it.
    public static let retryFailed = WebImageOptions(rawValue: 1 << 0)
    /// Download with low priority.
    public static let lowPriority = WebImageOptions(rawValue: 1 << 1)
    /// Deliver partial images while the download progresses.
    public static let progressiveLoad = WebImageOptions(rawValue: 1 << 2)
    /// Revalidate a cached image with the server even when it is cached.
    public static let refreshCached = WebImageOptions(rawValue: 1 << 3)
    /// Send and keep cookies through the downloader's `cookieStorage` (`DownloaderOptions.handleCookies`).
    public static let handleCookies = WebImageOptions(rawValue: 1 << 5)
    /// Accept TLS certificates that do not validate (testing only).
    public static let allowInvalidSSLCertificates = WebImageOptions(rawValue: 1 << 6)
    /// Download with high priority.
    public static let highPriority = WebImageOptions(rawValue: 1 << 7)
    /// Show the placeholder only after the load fails.
    public static let delayPlaceholder = WebImageOptions(rawValue: 1 << 8)
    /// Apply the transformer to animated images too.
    public static let transformAnimatedImage = WebImageOptions(rawValue: 1 << 9)
    /// Do not set the loaded image on the view; the completion does it.
    public static let avoidAutoSetImage = WebImageOptions(rawValue: 1 << 10)
    /// Decode large images scaled down to `ImageCoderOptions.defaultScaleDownLimitBytes`.
    public static let scaleDownLargeImages = WebImageOptions(rawValue: 1 << 11)
    /// Query the disk data even when the image is in memory.
    public static let queryMemoryData = WebImageOptions(rawValue: 1 << 12)
    /// With `queryMemoryData`: read that data synchronously.
    public static let queryMemoryDataSync = WebImageOptions(rawValue: 1 << 13)
    /// On a memory miss, read and decode the disk entry synchronously on the caller's thread.
    public static let queryDiskDataSync = WebImageOptions(rawValue: 1 << 14)
    /// Never download: a cache miss fails the load.
    public static let fromCacheOnly = WebImageOptions(rawValue: 1 << 15)
    /// Never read the cache: always download.
    public static let fromLoaderOnly = WebImageOptions(rawValue: 1 << 16)
    /// Run the view transition even for images from the memory cache.
    public static let forceTransition = WebImageOptions(rawValue: 1 << 17)
    /// Keep images lazy: do not decode pixels in the background.
    public static let avoidDecodeImage = WebImageOptions(rawValue: 1 << 18)
    /// Decode only the first frame of animated images.
    public static let decodeFirstFrameOnly = WebImageOptions(rawValue: 1 << 19)
    /// Decode every frame of an animation before completing, and keep them (otherwise frames
    /// are decoded when asked for): from the loader and from the disk cache.
    public static let preloadAllFrames = WebImageOptions(rawValue: 1 << 20)
    /// Use a cached image only when it is of the context's `animatedImageClass`.
    public static let matchAnimatedImageClass = WebImageOptions(rawValue: 1 << 21)
    /// Call the completion only after the image is stored in the cache.
    public static let waitStoreCache = WebImageOptions(rawValue: 1 << 22)
    /// Apply the transformer to vector images too.
    public static let transformVectorImage = WebImageOptions(rawValue: 1 << 23)
    /// Do not cancel a view's previous load when a new one starts.
    public static let avoidAutoCancelImage = WebImageOptions(rawValue: 1 << 24)
    /// Accepted for SDWebImage compatibility: a view's completion always runs after the
    /// transition's `didSet` (transitions are synchronous here), with or without it.
    public static let waitTransition = WebImageOptions(rawValue: 1 << 25)
}

extension WebImageOptions {
    /// The options that read and decode on the calling thread: dropped wherever that thread may
    /// be a cooperative-pool thread (async entry points, loads woken by another's end).
    static let synchronousQueries: WebImageOptions = [.queryDiskDataSync, .queryMemoryDataSync]
}
