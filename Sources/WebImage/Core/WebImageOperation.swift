/// A running piece of work that can be cancelled: SDWebImage's `SDWebImageOperation`.
public protocol WebImageOperation: AnyObject, Sendable {
    /// Stops the work; its completion reports nothing found (or a cancellation) at most once.
    func cancel()
    /// True once `cancel()` has been called.
    var isCancelled: Bool { get }
}
