import Foundation
import Logging
import WebImage
import WebImageSupport

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

/// Source images, fetched once and kept with what HTTP said of them, so that another size of a
/// known source is made without fetching it again: in memory while recent
/// (`SOURCE_MEMORY_CACHE_SIZE`), on disk (an `EntryStore`, namespace `sources`) from their second
/// use. A source asked for once, the usual case of a one-off image, never costs a disk write
/// (nginx's `proxy_cache_min_uses 2`); with no memory tier, every source is written at once.
/// Remote sources come through the server's `ImageDownloader` (shared requests, its source guard
/// and limits; `ALLOWED_SOURCES` is the server's, checked before it asks); S3 objects through
/// `S3Source` (signed, on a downloader of the same settings), kept and revalidated alike; local
/// ones from under the configured root. With `CACHE_SOURCES` a fetched source is kept in the
/// shared store too, and looked for there when memory and disk miss. The one place a source's byte limit is decided (the
/// request's `max_src_file_size`, else the downloader's): each way of reading is handed it, and
/// a stored source is checked against it.
final class SourceStore: Sendable {
    /// What an entry holds besides the bytes.
    struct Metadata: Codable, Sendable {
        var validators: HTTPValidators?
        var cacheControl: String?
        var expires: String?
    }

    /// A source in the memory tier, and whether it went to the disk store yet.
    final class Recent: Sendable {
        let image: SourceImage
        private let onDisk: Locked<Bool>

        init(_ image: SourceImage, onDisk: Bool) {
            self.image = image
            self.onDisk = Locked(onDisk)
        }

        /// True once: for the use that sends it to disk.
        func takeWrite() -> Bool {
            onDisk.withLock { written in
                defer { written = true }
                return !written
            }
        }
    }

    private let disk: EntryStore<Metadata>
    /// Sources fetched or read lately; nil: none kept in memory.
    private let recent: ObjectMemoryCache<Recent>?
    /// A source larger than this goes to disk at once: held in memory it would push out the rest.
    private let largestRecent: Int
    private let downloader: ImageDownloader
    private let localRoot: LocalSourceRoot?
    private let s3: S3Source?
    /// The shared store sources are kept in too (`CACHE_SOURCES`); nil: none.
    private let shared: (any SharedSourceStorage)?

    init(
        disk: EntryStore<Metadata>, memoryBytes: Int = 0, downloader: ImageDownloader, localRoot: LocalSourceRoot?, s3: S3Source? = nil,
        shared: (any SharedSourceStorage)? = nil
    ) {
        self.disk = disk
        self.shared = shared
        recent = memoryBytes > 0 ? ObjectMemoryCache(costLimit: memoryBytes) : nil
        largestRecent = memoryBytes / 4
        self.downloader = downloader
        self.localRoot = localRoot
        self.s3 = s3
    }

    /// The validators of the version of `source` the store holds, without fetching: lets a
    /// request answer 304 before any fetch.
    func storedValidators(of source: SourceURL) async -> HTTPValidators? {
        if case .local = source { return nil }
        if let recent = recent?.object(forKey: source.description) { return recent.image.validators }
        return await disk.metadata(forKey: source.description)?.validators
    }

    /// The bytes of `source`: from the store, else fetched (remote) or read (local). At most
    /// `maximumBytes` (the request's `max_src_file_size`), or the downloader's limit when 0.
    /// Fetched bytes are written to the store behind the caller. A remote source fetched with
    /// `cookie` (`COOKIE_PASSTHROUGH`) is one client's: fetched on its own, never stored.
    func source(_ source: SourceURL, maximumBytes: Int, cookie: String? = nil, logger: Logger) async throws -> SourceImage {
        let limit = maximumBytes > 0 ? maximumBytes : downloader.config.maximumResponseSize
        switch source {
        case .local(let path):
            guard let localRoot else { throw ImageServerError.unsupportedSourceScheme("local (no \(ImageServerConfiguration.environmentName(of: \.localFilesystemRoot)))") }
            return try await localRoot.read(path, maximumBytes: limit)
        case .remote(let url):
            if let cookie { return try await fetch(url, maximumBytes: limit, cookie: cookie) }
            return try await stored(source, limit: limit, logger: logger) { try await self.fetch(url, maximumBytes: $0) }
        case .s3(let object):
            guard let s3 else { throw ImageServerError.unsupportedSourceScheme("s3 (no \(ImageServerConfiguration.environmentName(of: \.usesS3)))") }
            return try await stored(source, limit: limit, logger: logger) { try await s3.fetch(object, maximumBytes: $0) }
        }
    }

    /// The stored bytes of `source` (from memory, else disk), else what `fetch` brings (at most
    /// `limit` bytes). A fetched source is kept in memory, and written to disk behind the caller
    /// on its second use (at once when there is no memory tier or it is too large for it).
    private func stored(
        _ source: SourceURL, limit: Int, logger: Logger, fetch: (Int) async throws -> SourceImage
    ) async throws -> SourceImage {
        let key = source.description
        if let recent = recent?.object(forKey: key) {
            try Self.check(recent.image.data.count, limit: limit)
            if recent.takeWrite() { store(recent.image, forKey: key, logger: logger) }
            return recent.image
        }
        if let (data, metadata) = await disk.entry(forKey: key) {
            try Self.check(data.count, limit: limit)
            let image = SourceImage(data: data, validators: metadata?.validators, cacheControl: metadata?.cacheControl, expires: metadata?.expires)
            keep(image, forKey: key, onDisk: true)
            return image
        }
        if let shared, let (body, metadata) = await shared.source(key, Metadata.self, logger: logger) {
            try Self.check(body.readableBytes, limit: limit)
            let image = SourceImage(data: Data(body.readableBytesView), validators: metadata.validators, cacheControl: metadata.cacheControl, expires: metadata.expires)
            if !keep(image, forKey: key, onDisk: false) { store(image, forKey: key, logger: logger) }
            return image
        }
        let fetched = try await fetch(limit)
        if !keep(fetched, forKey: key, onDisk: false) { store(fetched, forKey: key, logger: logger) }
        shared?.storeSource(fetched.data, metadata: Self.metadata(of: fetched), forSource: key, logger: logger)
        return fetched
    }

    private static func metadata(of image: SourceImage) -> Metadata {
        Metadata(validators: image.validators, cacheControl: image.cacheControl, expires: image.expires)
    }

    private static func check(_ count: Int, limit: Int) throws {
        guard count <= limit else { throw ImageServerError.sourceTooLarge("\(count) bytes, limit \(limit)") }
    }

    /// Keeps `image` in the memory tier; false when it has none or `image` is too large for it.
    @discardableResult
    private func keep(_ image: SourceImage, forKey key: String, onDisk: Bool) -> Bool {
        guard let recent, image.data.count <= largestRecent else { return false }
        recent.setObject(Recent(image, onDisk: onDisk), forKey: key, cost: image.data.count)
        return true
    }

    private func store(_ image: SourceImage, forKey key: String, logger: Logger) {
        disk.storeBehind(image.data, metadata: Self.metadata(of: image), forKey: key, logger: logger)
    }

    private func fetch(_ url: URL, maximumBytes: Int, cookie: String? = nil) async throws -> SourceImage {
        try await Self.download(url, with: downloader, maximumBytes: maximumBytes, cookie: cookie)
    }

    /// `url`'s bytes (at most `maximumBytes`) and what its response said of them, through
    /// `downloader` (with `cookie`, a fetch of its own); a failure as the client sees it
    /// (`serverError`).
    static func download(_ url: URL, with downloader: ImageDownloader, maximumBytes: Int, cookie: String? = nil) async throws -> SourceImage {
        let result: ImageDataDownloadResult
        do {
            // The request's own limit stops its fetch as soon as the body passes it; a request
            // sharing the fetch without one still gets the whole body.
            var context = WebImageContext()
            context.maximumResponseSize = maximumBytes
            // A fetch with a modifier of its own is shared with no other caller.
            if let cookie { context.downloadRequestModifier = DownloaderRequestModifier(headers: ["Cookie": cookie]) }
            result = try await downloader.downloadData(with: url, context: context)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw Self.serverError(for: error, url: url)
        }
        return SourceImage(
            data: result.data, validators: result.validators,
            cacheControl: result.response?.value(forHTTPHeaderField: "Cache-Control"),
            expires: result.response?.value(forHTTPHeaderField: "Expires")
        )
    }

    /// A download failure as the client sees it: the reason stays in the log.
    static func serverError(for error: any Error, url: URL) -> ImageServerError {
        let log = "\(url.absoluteString): \(error)"
        if let error = error as? WebImageError {
            switch error {
            case .cancelled: return .clientClosed
            case .sourceRefused: return .sourceRefused(log)
            case .badImageData: return .unreadableSource(log)
            default: return .sourceUnreachable(log)
            }
        }
        if let error = error as? URLError {
            switch error.code {
            case .timedOut: return .sourceTimeout(log)
            case .dataLengthExceedsMaximum: return .sourceTooLarge(log)
            default: return .sourceUnreachable(log)
            }
        }
        return .sourceUnreachable(log)
    }

    /// Returns once every source write begun has ended.
    func finishWrites() async {
        await disk.finishWrites()
    }
}
