/// The memory tier of an `ImageCache`: SDWebImage's `SDMemoryCacheProtocol`. Implementations are thread-safe.
public protocol MemoryCacheProtocol: AnyObject, Sendable {
    /// A cache with the memory limits of `config`.
    init(config: ImageCacheConfig)
    /// The image under `key`, or nil.
    func object(forKey key: String) -> Image?
    /// Stores `object` under `key` with `cost` (bytes), evicting as the limits require.
    func setObject(_ object: Image, forKey key: String, cost: Int)
    /// Removes the image under `key`.
    func removeObject(forKey key: String)
    /// Removes every image.
    func removeAllObjects()
    /// The sum of the costs of the images held.
    var totalCost: Int { get }
    /// The number of images held.
    var count: Int { get }
}
