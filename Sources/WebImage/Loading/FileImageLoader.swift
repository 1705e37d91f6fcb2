import Foundation

/// Loads `file://` URLs: reads the file on the blocking pool and decodes it like a download.
/// A missing or unreadable file fails with `URLError(.fileDoesNotExist)` /
/// `URLError(.noPermissionsToReadFile)`, an empty or undecodable one with `.badImageData`.
public struct FileImageLoader: ImageLoader {
    /// The loader.
    public init() {}

    public func canRequestImage(for url: URL?) -> Bool {
        url?.isFileURL == true
    }

    @discardableResult
    public func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext?,
        progress: ImageLoaderProgress?, completed: ImageLoaderCompletion?
    ) -> (any WebImageOperation)? {
        guard let url, url.isFileURL else {
            completed?(nil, nil, WebImageError.invalidURL, true)
            return nil
        }
        return LocalLoadOperation.start(url: url, options: options, context: context, progress: progress, completed: completed) {
            do {
                return try Data(contentsOf: url)
            } catch let error as CocoaError {
                let code: URLError.Code = error.code == .fileReadNoPermission ? .noPermissionsToReadFile : .fileDoesNotExist
                throw URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: url, NSUnderlyingErrorKey: error as NSError])
            }
        }
    }

    /// A file that is missing or not an image stays so until it changes: only cancellations do not block.
    public func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool {
        (error as? WebImageError) != .cancelled
    }
}
