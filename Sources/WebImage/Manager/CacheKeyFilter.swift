import Foundation

/// Maps a URL to the key its image is cached under: SDWebImage's `SDWebImageCacheKeyFilter`.
/// Use it to drop parts that change without changing the image (signed or expiring query
/// parameters such as `X-Amz-Signature` or `Expires`) while the fetch URL keeps them.
public protocol CacheKeyFilterProtocol: Sendable {
    /// The cache key for `url`, or nil to not cache it.
    func cacheKey(for url: URL) -> String?
}

/// A cache key filter from a closure.
public struct CacheKeyFilter: CacheKeyFilterProtocol {
    private let body: @Sendable (URL) -> String?

    /// A filter that runs `body`.
    public init(_ body: @escaping @Sendable (URL) -> String?) {
        self.body = body
    }

    /// A filter that removes the query parameters named in `names` (case-sensitive).
    public init(removingQueryItems names: Set<String>) {
        self.init { url in
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
            let kept = components.queryItems?.filter { !names.contains($0.name) }
            components.queryItems = kept?.isEmpty == true ? nil : kept
            return components.string ?? url.absoluteString
        }
    }

    public func cacheKey(for url: URL) -> String? {
        body(url)
    }
}

/// Gives the bytes a cache keeps on disk for an image: SDWebImage's `SDWebImageCacheSerializer`.
public protocol CacheSerializerProtocol: Sendable {
    /// The bytes to store for `image` (whose original bytes are `data`, nil for a transformed
    /// image), or nil to store nothing on disk.
    func cacheData(with image: Image, originalData data: Data?, imageURL: URL?) -> Data?
}

/// A cache serializer from a closure.
public struct CacheSerializer: CacheSerializerProtocol {
    private let body: @Sendable (Image, Data?, URL?) -> Data?

    /// A serializer that runs `body`.
    public init(_ body: @escaping @Sendable (Image, Data?, URL?) -> Data?) {
        self.body = body
    }

    public func cacheData(with image: Image, originalData data: Data?, imageURL: URL?) -> Data? {
        body(image, data, imageURL)
    }
}

/// Changes a load's options and context before it starts: SDWebImage's `SDWebImageOptionsProcessor`.
public struct WebImageOptionsProcessor: Sendable {
    private let body: @Sendable (URL?, WebImageOptions, WebImageContext?) -> (WebImageOptions, WebImageContext?)

    /// A processor that runs `body`.
    public init(_ body: @escaping @Sendable (URL?, WebImageOptions, WebImageContext?) -> (WebImageOptions, WebImageContext?)) {
        self.body = body
    }

    /// The options and context to load `url` with.
    public func processed(url: URL?, options: WebImageOptions, context: WebImageContext?) -> (WebImageOptions, WebImageContext?) {
        body(url, options, context)
    }
}
