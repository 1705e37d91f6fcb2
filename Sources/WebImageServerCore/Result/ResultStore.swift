import Foundation
import Logging
import NIOCore
import WebImage

/// Processed results by result key: an `ObjectMemoryCache` of `StoredResult`s in front of an
/// `EntryStore` (namespace `results`). Results can be made again, so the disk tier may skip
/// fsync (`RESULT_CACHE_FSYNC`); stores stay atomic, and a torn entry after a power loss fails
/// to read back as a whole result and is dropped.
final class ResultStore: Sendable {
    /// Where a lookup found its result.
    enum Tier: String, Sendable {
        case memory, disk
    }

    private let memory: ObjectMemoryCache<StoredResult>
    private let disk: EntryStore<ResultMetadata>

    init(memoryBytes: Int, disk: EntryStore<ResultMetadata>) {
        memory = ObjectMemoryCache(costLimit: memoryBytes)
        self.disk = disk
    }

    /// The result under `key` when memory holds it.
    func memoryResult(forKey key: ResultKey) -> StoredResult? {
        memory.object(forKey: key.text)
    }

    /// The result under `key`, from memory, else from disk (then kept in memory too).
    func result(forKey key: ResultKey) async -> (StoredResult, Tier)? {
        if let result = memoryResult(forKey: key) { return (result, .memory) }
        // A result is sent with its metadata (its content type, its tag) or not at all.
        guard let (data, metadata) = await disk.entry(forKey: key.text), let metadata else { return nil }
        let found = StoredResult(body: ByteBuffer(bytes: data), metadata: metadata)
        memory.setObject(found, forKey: key.text, cost: found.cost)
        return (found, .disk)
    }

    /// Keeps `result` in memory at once and begins writing it to disk from `data` (its bytes as
    /// the processor made them: no second copy); a failed disk write is logged and leaves the
    /// memory copy.
    func store(_ result: StoredResult, data: Data, forKey key: ResultKey, logger: Logger) {
        memory.setObject(result, forKey: key.text, cost: result.cost)
        disk.storeBehind(data, metadata: result.metadata, forKey: key.text, logger: logger)
    }

    /// Returns once every result write begun has ended.
    func finishWrites() async {
        await disk.finishWrites()
    }
}
