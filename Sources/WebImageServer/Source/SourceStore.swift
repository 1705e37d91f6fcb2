import Foundation
import Logging
import WebImage

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

/// Source images, fetched once and kept on disk (an `EntryStore`, namespace `sources`) with what
/// HTTP said of them, so that another size of a known source is made without fetching it again.
/// Remote sources come through the server's `ImageDownloader` (shared requests, its source guard
/// and limits) once `ALLOWED_SOURCES` lets them; local ones from under the configured root. The
/// one place a source's byte limit is enforced, whichever way the bytes come.
final class SourceStore: Sendable {
    /// What an entry holds besides the bytes.
    struct Metadata: Codable, Sendable {
        var validators: HTTPValidators?
        var cacheControl: String?
        var expires: String?
    }

    private let disk: EntryStore<Metadata>
    private let downloader: ImageDownloader
    private let localRoot: LocalSourceRoot?
    private let allowedSources: AllowedSources

    init(disk: EntryStore<Metadata>, downloader: ImageDownloader, localRoot: LocalSourceRoot?, allowedSources: AllowedSources) {
        self.disk = disk
        self.downloader = downloader
        self.localRoot = localRoot
        self.allowedSources = allowedSources
    }

    /// The validators of the version of `source` the store holds, without fetching: lets a
    /// request answer 304 before any fetch.
    func storedValidators(of source: SourceURL) async -> HTTPValidators? {
        guard case .remote = source else { return nil }
        return await disk.metadata(forKey: source.description)?.validators
    }

    /// The bytes of `source`: from the store, else fetched (remote) or read (local). At most
    /// `maximumBytes` (the request's `max_src_file_size`), or the downloader's limit when 0.
    /// Fetched bytes are written to the store behind the caller.
    func source(_ source: SourceURL, maximumBytes: Int, logger: Logger) async throws -> SourceImage {
        let limit = maximumBytes > 0 ? maximumBytes : downloader.config.maximumResponseSize
        switch source {
        case .local(let path):
            guard let localRoot else { throw ImageServerError.unsupportedSourceScheme("local (no WEBIMAGE_LOCAL_FILESYSTEM_ROOT)") }
            return SourceImage(data: try await localRoot.read(path, maximumBytes: limit))
        case .remote(let url):
            guard allowedSources.allows(url) else { throw ImageServerError.sourceRefused("\(url.absoluteString) is not in WEBIMAGE_ALLOWED_SOURCES") }
            let key = source.description
            if let (data, metadata) = await disk.entry(forKey: key) {
                guard data.count <= limit else { throw ImageServerError.sourceTooLarge("\(data.count) bytes, limit \(limit)") }
                return SourceImage(data: data, validators: metadata?.validators, cacheControl: metadata?.cacheControl, expires: metadata?.expires)
            }
            let fetched = try await fetch(url, maximumBytes: limit)
            let metadata = Metadata(validators: fetched.validators, cacheControl: fetched.cacheControl, expires: fetched.expires)
            disk.storeBehind(fetched.data, metadata: metadata, forKey: key, logger: logger)
            return fetched
        }
    }

    private func fetch(_ url: URL, maximumBytes: Int) async throws -> SourceImage {
        let result: ImageDataDownloadResult
        do {
            // The request's own limit stops its fetch as soon as the body passes it; a request
            // sharing the fetch without one still gets the whole body.
            var context = WebImageContext()
            context.maximumResponseSize = maximumBytes
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
