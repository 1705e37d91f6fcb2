import Dispatch
import Foundation
internal import ImageEngine
import Synchronization

/// The operation of one cache query: SDWebImage's `SDImageCacheToken`. Its completion runs exactly
/// once: with the result, or with nothing found when cancelled first.
final class CacheQueryOperation: WebImageOperation {
    private let completion: Locked<ImageCacheQueryCompletion?>
    private let callbackQueue: DispatchQueue?
    private let cancelled = Atomic(false)

    init(callbackQueue: DispatchQueue?, completion: ImageCacheQueryCompletion?) {
        self.completion = Locked(completion)
        self.callbackQueue = callbackQueue
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        deliver(nil, nil, .none, synchronously: false)
    }

    /// Completes with a result unless already completed; `synchronously` runs the completion on
    /// this thread even when a callback queue is set.
    func finish(_ image: Image?, _ data: Data?, _ cacheType: ImageCacheType, synchronously: Bool) {
        deliver(image, data, cacheType, synchronously: synchronously)
    }

    private func deliver(_ image: Image?, _ data: Data?, _ cacheType: ImageCacheType, synchronously: Bool) {
        guard let completion = completion.withLock({ stored in defer { stored = nil }; return stored }) else { return }
        if let callbackQueue, !synchronously {
            callbackQueue.async { completion(image, data, cacheType) }
        } else {
            completion(image, data, cacheType)
        }
    }
}
