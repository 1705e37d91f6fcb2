import Dispatch
import Foundation

/// Per-request objects and values: SDWebImage's `SDWebImageContext`, as typed properties.
/// Every member is optional or has SDWebImage's default.
public struct WebImageContext: Sendable {
    /// The cache to use instead of the manager's.
    public var imageCache: (any ImageCacheProtocol)?
    /// The cache for original images when a transformer or thumbnail is used.
    public var originalImageCache: (any ImageCacheProtocol)?
    /// The `scale` of decoded images.
    public var imageScaleFactor: Double?
    /// With `imageThumbnailPixelSize`: keep the aspect ratio.
    public var imagePreserveAspectRatio = true
    /// Decode to at most this many pixels.
    public var imageThumbnailPixelSize: CGSize?
    /// Decode sources of more than 8 bits (HDR AVIF, HEIC, JPEG XL; 16-bit PNG) keeping their
    /// samples and colour encoding: SDWebImage's `imageDecodeToHDR`, `decodeToHDR` of the coder
    /// options.
    public var imageDecodeToHDR = false
    /// Options passed to the decoder (the values above override their fields).
    public var imageDecodeOptions: ImageCoderOptions?
    /// Options passed to the encoder when a cache stores an image without data.
    public var imageEncodeOptions: ImageCoderOptions?
    /// The tiers a load queries.
    public var queryCacheType: ImageCacheType = .all
    /// The tiers a load stores into.
    public var storeCacheType: ImageCacheType = .all
    /// The tiers queried for the original of a transformed image.
    public var originalQueryCacheType: ImageCacheType = .disk
    /// The tiers the original of a transformed image is stored into.
    public var originalStoreCacheType: ImageCacheType = .disk
    /// With `.matchAnimatedImageClass`: the animated image provider type a cached image must have.
    public var animatedImageClass: (any AnimatedImageProvider.Type)?
    /// The loader to use instead of the manager's.
    public var imageLoader: (any ImageLoader)?
    /// The transformer to apply instead of the manager's (`NoopTransformer`-like nil keeps the manager's).
    public var imageTransformer: (any ImageTransformer)?
    /// Maps a URL to its cache key instead of the manager's filter.
    public var cacheKeyFilter: (any CacheKeyFilterProtocol)?
    /// Gives the bytes to keep on disk instead of the manager's serializer.
    public var cacheSerializer: (any CacheSerializerProtocol)?
    /// The key of a view's load: a new load with the same key on the same view cancels the
    /// previous one (default: the view's type name).
    public var setImageOperationKey: String?
    /// The manager to load with (view binding uses it).
    public var customManager: WebImageManager?
    /// The coder that decodes loaded data instead of `ImageCodersManager.shared`.
    public var imageCoder: (any ImageCoder)?
    /// Changes this download's request instead of the downloader's modifier.
    public var downloadRequestModifier: (any DownloaderRequestModifierProtocol)?
    /// Changes this download's response instead of the downloader's modifier.
    public var downloadResponseModifier: (any DownloaderResponseModifierProtocol)?
    /// Turns this download's body into image data instead of the downloader's decryptor.
    public var downloadDecryptor: (any DownloaderDecryptorProtocol)?
    /// Validators of a cached copy: the download asks whether it changed (`If-None-Match`,
    /// `If-Modified-Since`) and fails with `WebImageError.cacheNotModified` on a 304.
    public var downloadValidators: HTTPValidators?
    /// Seconds from the call to the end of this download's transfer after which it fails with
    /// `URLError(.timedOut)`, instead of the downloader's `downloadDeadline` (nil: the downloader's).
    public var downloadDeadline: TimeInterval?
    /// The most body bytes this caller takes, when lower than the downloader's
    /// `maximumResponseSize`: a response that declares or sends more fails this caller alone
    /// with `URLError(.dataLengthExceedsMaximum)` as soon as it does (callers sharing the
    /// download without this limit still get the whole body), and the transfer stops once no
    /// caller is left. Nil: the downloader's limit.
    public var maximumResponseSize: Int?
    /// The queue asynchronous completions run on; when nil they run on a background thread.
    public var callbackQueue: DispatchQueue?
    /// Values for plugins.
    public var userInfo: [String: any Sendable] = [:]

    /// An empty context: every setting at its default.
    public init() {}
}

extension WebImageContext {
    /// The thumbnail a load decodes to, as `ImageDecoding.coderOptions` picks it (the context's,
    /// else its decode options'); nil for full size.
    var decodeThumbnail: (size: CGSize, preserveAspectRatio: Bool)? {
        let thumbnail = imageThumbnailPixelSize.map { ($0, imagePreserveAspectRatio) }
            ?? imageDecodeOptions.map { ($0.decodeThumbnailPixelSize, $0.decodePreserveAspectRatio) }
        guard let thumbnail, thumbnail.0.width > 0, thumbnail.0.height > 0 else { return nil }
        return thumbnail
    }

    /// True when a load keeps sources of more than 8 bits HDR (the context's switch or its decode options').
    var decodesToHDR: Bool { imageDecodeToHDR || imageDecodeOptions?.decodeToHDR == true }
}
