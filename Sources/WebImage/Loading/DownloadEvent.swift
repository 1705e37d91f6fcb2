import Foundation
internal import ImageEngine
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A step of a download, as SDWebImage posts them as notifications (`SDWebImageDownloadStart`, ...).
public enum DownloadEvent: Sendable {
    /// The request was sent (after waiting in the queue).
    case start(url: URL, request: URLRequest)
    /// A response head arrived and was accepted.
    case receiveResponse(url: URL, response: HTTPURLResponse)
    /// The transfer ended: finished, failed or cancelled.
    case stop(url: URL)
    /// The transfer finished with a body.
    case finish(url: URL)

    /// The URL the event is about.
    public var url: URL {
        switch self {
        case .start(let url, _), .receiveResponse(let url, _), .stop(let url), .finish(let url): url
        }
    }
}

/// Hands each event to every stream made by `makeStream()` while it is listened to.
final class DownloadEventBroadcaster: Sendable {
    private let continuations = Locked<[UInt64: AsyncStream<DownloadEvent>.Continuation]>([:])
    private let nextID = Atomic<UInt64>(0)

    func makeStream() -> AsyncStream<DownloadEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: DownloadEvent.self, bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: id) }
        }
        continuations.withLock { $0[id] = continuation }
        return stream
    }

    func post(_ event: DownloadEvent) {
        let listeners = continuations.withLock { Array($0.values) }
        for listener in listeners { listener.yield(event) }
    }
}
