import Foundation

/// The disk tier of an `ImageCache`: SDWebImage's `SDDiskCacheProtocol`. Every method blocks on
/// file I/O: call it from a thread reserved for blocking work, never from the Swift cooperative pool.
public protocol DiskCacheProtocol: AnyObject, Sendable {
    /// A cache over the folder `cachePath`, with `config`'s disk limits.
    init?(cachePath: String, config: ImageCacheConfig)
    /// True when an entry exists for `key`.
    func containsData(forKey key: String) -> Bool
    /// The data stored for `key`, or nil.
    func data(forKey key: String) -> Data?
    /// Stores `data` for `key`, replacing any entry.
    func setData(_ data: Data, forKey key: String) throws
    /// The extended data stored with the entry for `key`, or nil.
    func extendedData(forKey key: String) -> Data?
    /// Stores extended data with the existing entry for `key`; nil removes it.
    func setExtendedData(_ data: Data?, forKey key: String) throws
    /// Removes the entry for `key` and its extended data.
    func removeData(forKey key: String)
    /// Removes every entry; the folder stays.
    func removeAllData()
    /// Removes expired entries, then the oldest until under the size limit.
    func removeExpiredData()
    /// The file the entry for `key` is stored in.
    func cachePath(forKey key: String) -> String?
    /// The number of entries.
    var totalCount: Int { get }
    /// The bytes of all entries.
    var totalSize: Int { get }
}
