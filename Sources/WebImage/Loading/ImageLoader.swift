import Foundation

/// Called as bytes arrive: received bytes, expected bytes (0 when unknown), and the URL.
public typealias ImageLoaderProgress = @Sendable (_ receivedSize: Int, _ expectedSize: Int, _ url: URL?) -> Void
/// Called with the image and its data, or an error; `finished` is false only for partial images
/// of a progressive load.
public typealias ImageLoaderCompletion = @Sendable (_ image: Image?, _ data: Data?, _ error: (any Error)?, _ finished: Bool) -> Void

/// Loads images from some kind of URL: SDWebImage's `SDImageLoader`. `ImageLoadersManager`
/// composes several; `ImageDownloader` (http, https), `FileImageLoader` (file) and
/// `DataURLImageLoader` (data) are built in.
public protocol ImageLoader: Sendable {
    /// True when this loader handles `url`.
    func canRequestImage(for url: URL?) -> Bool

    /// Starts loading `url`; `completed` runs once with `finished == true` (a progressive load
    /// calls it before that with partial images), also when the returned operation is cancelled
    /// (with `WebImageError.cancelled`). Returns nil when it completed at once.
    @discardableResult
    func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext?,
        progress: ImageLoaderProgress?, completed: ImageLoaderCompletion?
    ) -> (any WebImageOperation)?

    /// True when a load of `url` that failed with `error` will fail again, so the manager may
    /// refuse the URL from then on.
    func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool

    /// The HTTP validators of the response an operation this loader returned received, which
    /// the manager keeps with the cached image; a later `.refreshCached` load hands them back
    /// in the context's `downloadValidators`, to be sent (`If-None-Match`,
    /// `If-Modified-Since`). The default answers nil: no validators are kept.
    func responseValidators(of operation: any WebImageOperation) -> HTTPValidators?
}

/// What a load found.
public struct ImageLoaderResult: Sendable {
    /// The decoded image (lazy with `.avoidDecodeImage`).
    public var image: Image
    /// The image's bytes, as received (after the decryptor).
    public var data: Data?
}

extension ImageLoader {
    /// Loads `url` and returns the final image; cancelling the task cancels the load, which then
    /// throws `WebImageError.cancelled`. Partial images of a progressive load are not returned.
    public func requestImage(
        with url: URL?, options: WebImageOptions = [], context: WebImageContext? = nil,
        progress: ImageLoaderProgress? = nil
    ) async throws -> ImageLoaderResult {
        let operation = OperationHolder()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = requestImage(with: url, options: options, context: context, progress: progress) { image, data, error, finished in
                    guard finished else { return }
                    if let image {
                        continuation.resume(returning: ImageLoaderResult(image: image, data: data))
                    } else {
                        continuation.resume(throwing: error ?? WebImageError.badImageData)
                    }
                }
                operation.set(started)
            }
        } onCancel: {
            operation.cancel()
        }
    }

    /// The rule of SDWebImage's loaders: a URL that is malformed or whose data is not an image
    /// will fail again, and so will a 4xx other than 408 and 429; cancellations, transport
    /// failures (timeouts, unreachable or unknown hosts, dropped connections), 5xx, 408 and 429
    /// may not.
    public func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool {
        WebImageError.isPermanent(error)
    }

    public func responseValidators(of operation: any WebImageOperation) -> HTTPValidators? {
        nil
    }
}

extension WebImageError {
    /// True for failures that a retry of the same URL will meet again (see `ImageLoader.shouldBlockFailedURL`).
    static func isPermanent(_ error: any Error) -> Bool {
        if let error = error as? WebImageError {
            switch error {
            case .invalidURL, .badImageData: return true
            case .invalidDownloadStatusCode(let status, _): return !DownloadRetryPolicy.isTransient(statusCode: status)
            default: return false
            }
        }
        if let error = error as? URLError {
            let transient: Set<URLError.Code> = [
                .notConnectedToInternet, .cancelled, .timedOut, .internationalRoamingOff, .dataNotAllowed,
                .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
            ]
            return !transient.contains(error.code)
        }
        return false
    }
}
