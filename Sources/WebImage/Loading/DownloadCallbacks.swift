import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One caller's callbacks on a shared download. The completion runs once with `finished == true`:
/// with the result, or with `.cancelled` if the caller cancelled first; partial images are never
/// delivered after it. Deliveries to one caller are serialized by a recursive lock (a callback
/// may cancel its own token from inside) or, with a callback queue, by that queue.
///
/// `@unchecked Sendable`: its mutable state (`completion`, `storedOutcome`) is read and written
/// only under `lock`; everything else is a constant.
final class DownloadCallbacks: @unchecked Sendable {
    // `completion` and `storedOutcome` are read and written only under `lock`; the other stored
    // properties are constants.
    private let lock = NSRecursiveLock()
    private var completion: ImageLoaderCompletion?
    private var storedOutcome: (response: HTTPURLResponse?, metrics: DownloadMetrics)?
    private let progress: ImageLoaderProgress?
    private let callbackQueue: DispatchQueue?

    init(progress: ImageLoaderProgress?, completion: ImageLoaderCompletion?, callbackQueue: DispatchQueue?) {
        self.progress = progress
        self.completion = completion
        self.callbackQueue = callbackQueue
    }

    /// True when the caller gave a progress handler.
    var hasProgressHandler: Bool { progress != nil }

    /// True once the final completion was delivered or claimed.
    var isCompleted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return completion == nil
    }

    /// Reports progress (on the download's thread, as SDWebImage does).
    func reportProgress(_ received: Int, _ expected: Int, _ url: URL?) {
        guard let progress, !isCompleted else { return }
        progress(received, expected, url)
    }

    /// Delivers a partial image unless the caller is done.
    func deliverPartial(_ image: Image, data: Data?) {
        run {
            self.lock.lock()
            defer { self.lock.unlock() }
            self.completion?(image, data, nil, false)
        }
    }

    /// The response and metrics of the download, kept for the completion to read.
    var outcome: (response: HTTPURLResponse?, metrics: DownloadMetrics)? {
        lock.lock()
        defer { lock.unlock() }
        return storedOutcome
    }

    /// Delivers the final result unless already done; `operation` gives the response and metrics.
    func finish(_ image: Image?, _ data: Data?, _ error: (any Error)?, operation: DownloadOperation? = nil) {
        let outcome = operation.map { ($0.response, $0.metrics) }
        run {
            self.lock.lock()
            defer { self.lock.unlock() }
            guard let completion = self.completion else { return }
            self.completion = nil
            self.storedOutcome = outcome
            completion(image, data, error, true)
        }
    }

    private func run(_ body: @escaping @Sendable () -> Void) {
        if let callbackQueue { callbackQueue.async(execute: body) } else { body() }
    }
}
