import Foundation
import Hummingbird
import WebImage

/// Processed results by result key: an `ObjectMemoryCache` of `ServedResult`s in front of an
/// `ImageCache`'s disk tier (namespace `results`), whose extended data holds each entry's
/// `ResultMetadata`. Results can be made again, so the disk tier may skip fsync
/// (`ImageCacheConfig.diskCacheSyncsWrites`); stores stay atomic, and a torn entry after a power
/// loss fails to read back as a whole result and is dropped.
final class ResultStore: Sendable {
    /// Where a lookup found its result.
    enum Tier: String, Sendable {
        case memory, disk
    }

    private let memory: ObjectMemoryCache<ServedResult>
    private let disk: ImageCache
    private let encoder = JSONEncoder()

    init(memoryBytes: Int, disk: ImageCache) {
        memory = ObjectMemoryCache(costLimit: memoryBytes)
        self.disk = disk
    }

    /// The result under `key` when memory holds it.
    func memoryResult(forKey key: String) -> ServedResult? {
        memory.object(forKey: key)
    }

    /// The result under `key`, from memory, else from disk (then kept in memory too).
    func result(forKey key: String) async -> (ServedResult, Tier)? {
        if let result = memoryResult(forKey: key) { return (result, .memory) }
        let disk = self.disk
        let found = try? await CacheIO.run { () -> ServedResult? in
            guard let data = disk.diskCache.data(forKey: key), let extended = disk.diskCache.extendedData(forKey: key),
                  let metadata = try? JSONDecoder().decode(ResultMetadata.self, from: extended)
            else { return nil }
            return ServedResult(body: ByteBuffer(bytes: data), metadata: metadata)
        }
        guard let found else { return nil }
        memory.setObject(found, forKey: key, cost: found.cost)
        return (found, .disk)
    }

    /// Keeps `result` in memory at once and writes it to disk; a failed disk write is logged
    /// and leaves the memory copy (the result can be made again).
    func store(_ result: ServedResult, forKey key: String) async {
        memory.setObject(result, forKey: key, cost: result.cost)
        let disk = self.disk
        guard let extended = try? encoder.encode(result.metadata) else { return }
        let bytes = Data(result.body.readableBytesView)
        do {
            try await CacheIO.run {
                try disk.diskCache.setData(bytes, forKey: key)
                try disk.diskCache.setExtendedData(extended, forKey: key)
            }
        } catch {
            ImageServerLog.logger.warning("result not stored on disk", metadata: ["error": "\(error)"])
        }
    }
}
