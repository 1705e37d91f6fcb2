import Foundation
import WebImage

/// Source images, fetched once and kept on disk (an `ImageCache`'s disk tier, namespace
/// `sources`) with what HTTP said of them, so that another size of a known source is made
/// without fetching it again. Remote sources come through the server's `ImageDownloader`
/// (shared requests, its source guard and limits); local ones from under the configured root.
final class SourceStore: Sendable {
    /// What the disk entry's extended data holds besides the bytes.
    private struct Metadata: Codable {
        var validators: HTTPValidators?
        var cacheControl: String?
        var expires: String?
    }

    private let disk: ImageCache
    private let downloader: ImageDownloader
    private let localRoot: LocalSourceRoot?
    private let allowedSources: AllowedSources
    private let maximumBytes: Int

    init(disk: ImageCache, downloader: ImageDownloader, localRoot: LocalSourceRoot?, allowedSources: AllowedSources, maximumBytes: Int) {
        self.disk = disk
        self.downloader = downloader
        self.localRoot = localRoot
        self.allowedSources = allowedSources
        self.maximumBytes = maximumBytes
    }

    /// The version of `source` the store holds (`EntityTag.sourceVersion`), without fetching:
    /// lets a request answer 304 before any fetch.
    func cachedVersion(of source: ImageSource) async -> String? {
        guard case .remote = source else { return nil }
        let disk = self.disk
        let key = source.description
        return try? await CacheIO.run { () -> String? in
            guard let extended = disk.diskCache.extendedData(forKey: key),
                  let metadata = try? JSONDecoder().decode(Metadata.self, from: extended),
                  let validators = metadata.validators
            else { return nil }
            if let tag = validators.entityTag { return "etag:" + tag }
            return validators.lastModified.map { "date:" + $0 }
        }
    }

    /// The bytes of `source`: from the store, else fetched (remote) or read (local). At most
    /// `maximumBytes` (or the request's own lower limit). Fetched bytes are stored by `storing`,
    /// which runs beside the caller's work (a store waits on the disk's flush).
    func source(_ source: ImageSource, maximumBytes requestLimit: Int?) async throws -> (image: SourceImage, storing: Task<Void, Never>?) {
        let limit = min(maximumBytes, requestLimit ?? .max)
        switch source {
        case .local(let path):
            guard let localRoot else { throw ImageServerError.unsupportedSourceScheme("local (no WEBIMAGE_LOCAL_FILESYSTEM_ROOT)") }
            let data = try await localRoot.read(path, maximumBytes: limit)
            return (SourceImage(data: data), nil)
        case .remote(let url):
            guard allowedSources.allows(url) else { throw ImageServerError.sourceRefused("\(url.absoluteString) is not in WEBIMAGE_ALLOWED_SOURCES") }
            if let stored = await stored(source) {
                guard stored.data.count <= limit else { throw ImageServerError.sourceTooLarge("\(stored.data.count) bytes, limit \(limit)") }
                return (stored, nil)
            }
            let fetched = try await fetch(url, maximumBytes: limit)
            return (fetched, Task { await self.keep(fetched, for: source) })
        }
    }

    private func stored(_ source: ImageSource) async -> SourceImage? {
        let disk = self.disk
        let key = source.description
        return try? await CacheIO.run { () -> SourceImage? in
            guard let data = disk.diskCache.data(forKey: key) else { return nil }
            let metadata = disk.diskCache.extendedData(forKey: key).flatMap { try? JSONDecoder().decode(Metadata.self, from: $0) }
            return SourceImage(data: data, validators: metadata?.validators, cacheControl: metadata?.cacheControl, expires: metadata?.expires)
        }
    }

    private func keep(_ source: SourceImage, for key: ImageSource) async {
        let disk = self.disk
        let name = key.description
        let metadata = Metadata(validators: source.validators, cacheControl: source.cacheControl, expires: source.expires)
        do {
            let extended = try JSONEncoder().encode(metadata)
            try await CacheIO.run {
                try disk.diskCache.setData(source.data, forKey: name)
                try disk.diskCache.setExtendedData(extended, forKey: name)
            }
        } catch {
            ImageServerLog.logger.warning("source not stored on disk", metadata: ["error": "\(error)"])
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
}
