import Dispatch
import Foundation
import Synchronization

/// A load that reads and decodes local bytes (a file, a `data:` URL) on the blocking pool,
/// cancellable until it delivers; its completion runs once.
final class LocalLoadOperation: WebImageOperation {
    private let callbacks: DownloadCallbacks
    private let cancelled = Atomic(false)

    init(completion: ImageLoaderCompletion?, callbackQueue: DispatchQueue?) {
        callbacks = DownloadCallbacks(progress: nil, completion: completion, callbackQueue: callbackQueue)
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        callbacks.finish(nil, nil, WebImageError.cancelled)
    }

    /// Reads the bytes with `read` and decodes them for `url`, off the cooperative pool.
    static func start(
        url: URL, options: WebImageOptions, context: WebImageContext?, progress: ImageLoaderProgress?,
        completed: ImageLoaderCompletion?, read: @escaping @Sendable () throws -> Data
    ) -> LocalLoadOperation {
        let operation = LocalLoadOperation(completion: completed, callbackQueue: context?.callbackQueue)
        let coderOptions = ImageDecoding.coderOptions(forName: url.absoluteString, options: options, context: context)
        Task {
            let result: Result<(Image, Data), any Error>
            do {
                result = .success(try await BlockingPool.run {
                    let data = try read()
                    progress?(data.count, data.count, url)
                    if let decryptor = context?.downloadDecryptor {
                        guard let decrypted = decryptor.decryptedData(with: data, response: nil) else { throw WebImageError.badImageData }
                        return (try ImageDecoding.decode(decrypted, name: url.absoluteString, options: coderOptions, context: context), decrypted)
                    }
                    return (try ImageDecoding.decode(data, name: url.absoluteString, options: coderOptions, context: context), data)
                })
            } catch {
                result = .failure(error)
            }
            guard !operation.isCancelled else { return }
            switch result {
            case .success(let (image, data)): operation.callbacks.finish(image, data, nil)
            case .failure(let error): operation.callbacks.finish(nil, nil, error)
            }
        }
        return operation
    }
}
