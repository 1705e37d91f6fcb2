import Foundation
internal import ImageEngine
import Logging

/// Called with the image (or the error), its data, where it came from, whether it is final
/// (false for partial images of a progressive load) and the URL.
public typealias WebImageCompletion = @Sendable (
    _ image: Image?, _ data: Data?, _ error: (any Error)?, _ cacheType: ImageCacheType, _ finished: Bool, _ imageURL: URL?
) -> Void

/// What an async load found.
public struct ImageLoadResult: Sendable {
    /// The image.
    public var image: Image
    /// Its bytes, when read from disk or downloaded (nil for a memory hit or a transformed image).
    public var data: Data?
    /// Where it came from: `.memory`, `.disk`, or `.none` for the network.
    public var cacheType: ImageCacheType
    /// The URL loaded.
    public var url: URL
}

/// Loads images from memory, disk or the network, transformed and cached: SDWebImage's
/// `SDWebImageManager`.
///
/// A load validates the URL, refuses one that failed before for good (unless `.retryFailed`),
/// queries the cache for the final key, on a transformed or thumbnail miss queries the original
/// key and transforms that, else asks the loader; then transforms, stores the original and the
/// result, and completes.
public final class WebImageManager: Sendable {
    /// The manager with `ImageCache.shared` and `ImageLoadersManager.shared`.
    public static let shared = WebImageManager(cache: ImageCache.shared, loader: ImageLoadersManager.shared)

    /// Where images are cached.
    public let imageCache: any ImageCacheProtocol
    /// Where images are loaded from.
    public let imageLoader: any ImageLoader

    private struct Settings {
        var transformer: (any ImageTransformer)?
        var cacheKeyFilter: (any CacheKeyFilterProtocol)?
        var cacheSerializer: (any CacheSerializerProtocol)?
        var optionsProcessor: WebImageOptionsProcessor?
        var shouldDownloadImage: (@Sendable (URL) -> Bool)?
        var shouldBlockFailedURL: (@Sendable (URL, any Error) -> Bool)?
    }

    private let settings = Locked(Settings())
    private let failedURLs = Locked(Set<URL>())
    private let running = Locked([ObjectIdentifier: CombinedOperation]())
    /// Final keys being loaded, with the loads waiting for them: an identical load that misses
    /// the cache while another is loading waits and queries again, instead of loading twice.
    private let loading = Locked([String: [@Sendable () -> Void]]())
    static let logger = Logger(label: "swift-webimage.manager")

    /// A manager over `cache` and `loader`.
    public init(cache: any ImageCacheProtocol, loader: any ImageLoader) {
        imageCache = cache
        imageLoader = loader
    }

    /// Applied to every loaded image unless the context names another (default none).
    public var transformer: (any ImageTransformer)? {
        get { settings.withLock { $0.transformer } }
        set { settings.withLock { $0.transformer = newValue } }
    }

    /// Maps URLs to cache keys unless the context names another (default: the absolute URL).
    public var cacheKeyFilter: (any CacheKeyFilterProtocol)? {
        get { settings.withLock { $0.cacheKeyFilter } }
        set { settings.withLock { $0.cacheKeyFilter = newValue } }
    }

    /// Gives the bytes stored on disk unless the context names another (default: the downloaded
    /// bytes, or the image encoded when transformed).
    public var cacheSerializer: (any CacheSerializerProtocol)? {
        get { settings.withLock { $0.cacheSerializer } }
        set { settings.withLock { $0.cacheSerializer = newValue } }
    }

    /// Changes every load's options and context before it starts.
    public var optionsProcessor: WebImageOptionsProcessor? {
        get { settings.withLock { $0.optionsProcessor } }
        set { settings.withLock { $0.optionsProcessor = newValue } }
    }

    /// Asked before downloading a URL missing from the cache; false completes with no image
    /// (SDWebImage's delegate method).
    public var shouldDownloadImage: (@Sendable (URL) -> Bool)? {
        get { settings.withLock { $0.shouldDownloadImage } }
        set { settings.withLock { $0.shouldDownloadImage = newValue } }
    }

    /// Asked whether a failed URL goes on the failed list, instead of the loader.
    public var shouldBlockFailedURL: (@Sendable (URL, any Error) -> Bool)? {
        get { settings.withLock { $0.shouldBlockFailedURL } }
        set { settings.withLock { $0.shouldBlockFailedURL = newValue } }
    }

    /// True while a load runs.
    public var isRunning: Bool { running.withLock { !$0.isEmpty } }

    /// Cancels every running load.
    public func cancelAll() {
        let operations = running.withLock { Array($0.values) }
        for operation in operations { operation.cancel() }
    }

    /// Takes `url` off the failed list.
    public func removeFailedURL(_ url: URL) {
        _ = failedURLs.withLock { $0.remove(url) }
    }

    /// Empties the failed list.
    public func removeAllFailedURLs() {
        failedURLs.withLock { $0.removeAll() }
    }

    /// True when `url` is on the failed list.
    public func isFailedURL(_ url: URL) -> Bool {
        failedURLs.withLock { $0.isEmpty ? false : $0.contains(url) }
    }

    /// The cache key of `url` with this context: the key filter's (context first), with what
    /// changes the decoded pixels appended by SDWebImage's rules: the thumbnail (the context's,
    /// else its decode options'), `DecodeToHDR` when the load decodes to HDR, then the
    /// transformer (context first, then the manager's). An HDR and an SDR load of one URL so
    /// keep two entries.
    public func cacheKey(for url: URL?, context: WebImageContext? = nil) -> String {
        cacheKey(for: url, context: context, transformer: context?.imageTransformer ?? transformer)
    }

    func cacheKey(for url: URL?, context: WebImageContext?, transformer: (any ImageTransformer)?) -> String {
        var key = originalCacheKey(for: url, context: context)
        if let thumbnail = context?.decodeThumbnail {
            key = thumbnailedKey(forKey: key, thumbnailPixelSize: thumbnail.size, preserveAspectRatio: thumbnail.preserveAspectRatio)
        }
        if context?.decodesToHDR == true { key = transformedKey(forKey: key, transformerKey: "DecodeToHDR") }
        if let transformer { key = transformedKey(forKey: key, transformerKey: transformer.transformerKey) }
        return key
    }

    /// The key of the image as loaded, before thumbnail and transformer.
    func originalCacheKey(for url: URL?, context: WebImageContext?) -> String {
        guard let url else { return "" }
        let filter = context?.cacheKeyFilter ?? cacheKeyFilter
        return filter.map { $0.cacheKey(for: url) ?? "" } ?? url.absoluteString
    }

    // MARK: Bookkeeping used by the load

    var currentSettings: (transformer: (any ImageTransformer)?, serializer: (any CacheSerializerProtocol)?,
                          processor: WebImageOptionsProcessor?, shouldDownload: (@Sendable (URL) -> Bool)?,
                          shouldBlock: (@Sendable (URL, any Error) -> Bool)?) {
        settings.withLock { ($0.transformer, $0.cacheSerializer, $0.optionsProcessor, $0.shouldDownloadImage, $0.shouldBlockFailedURL) }
    }

    func register(_ operation: CombinedOperation) {
        running.withLock { $0[ObjectIdentifier(operation)] = operation }
    }

    func unregister(_ operation: CombinedOperation) {
        _ = running.withLock { $0.removeValue(forKey: ObjectIdentifier(operation)) }
    }

    /// True when the caller leads the load of `key`; otherwise `wake` runs when the leader ends.
    func leadOrWait(forKey key: String, wake: @escaping @Sendable () -> Void) -> Bool {
        loading.withLock { loading in
            if loading[key] != nil {
                loading[key]?.append(wake)
                return false
            }
            loading[key] = []
            return true
        }
    }

    /// The leader of `key` ended (loaded, failed or cancelled): the waiting loads go on.
    func endLead(forKey key: String) {
        let waiting = loading.withLock { $0.removeValue(forKey: key) } ?? []
        for wake in waiting { wake() }
    }

    func recordFailure(_ url: URL, error: any Error, loader: any ImageLoader, options: WebImageOptions) {
        let shouldBlock = currentSettings.shouldBlock?(url, error) ?? loader.shouldBlockFailedURL(url, error: error)
        guard shouldBlock else { return }
        _ = failedURLs.withLock { $0.insert(url) }
    }
}
