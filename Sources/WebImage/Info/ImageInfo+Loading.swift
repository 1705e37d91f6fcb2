import Foundation

extension ImageInfo {
    /// Reads the info of the image at `url`: an http(s) URL downloaded by `downloader` (its
    /// limits, redirects and source guard; the bytes are not decoded), a file URL read from
    /// disk; then read as `init(data:options:coderOptions:)` reads, on the blocking pool.
    public init(
        url: URL, options: InfoOptions = InfoOptions(), coderOptions: ImageCoderOptions = ImageCoderOptions(),
        downloader: ImageDownloader = .shared
    ) async throws {
        let data: Data
        if url.isFileURL {
            data = try await BlockingPool.run { try Data(contentsOf: url) }
        } else {
            data = try await downloader.downloadData(with: url).data
        }
        self = try await BlockingPool.run { try ImageInfo(data: data, options: options, coderOptions: coderOptions) }
    }
}
