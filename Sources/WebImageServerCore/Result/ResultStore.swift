import Foundation
import Logging
import NIOCore
import WebImage

/// Processed results by result key: an `ObjectMemoryCache` of `StoredResult`s in front of an
/// `EntryStore` (namespace `results`), in front of the shared store when one is configured
/// (`CACHE_USE=s3`: `SharedResultStorage`). Results can be made again, so the disk tier may skip
/// fsync (`RESULT_CACHE_FSYNC`); stores stay atomic, and a torn entry after a power loss fails
/// to read back as a whole result and is dropped.
final class ResultStore: Sendable {
    /// Where a lookup found its result.
    enum Tier: String, Sendable {
        case memory, disk, storage
    }

    private let memory: ObjectMemoryCache<StoredResult>
    private let disk: EntryStore<ResultMetadata>
    let shared: SharedResultStorage?

    init(memoryBytes: Int, disk: EntryStore<ResultMetadata>, shared: SharedResultStorage? = nil) {
        memory = ObjectMemoryCache(costLimit: memoryBytes)
        self.disk = disk
        self.shared = shared
    }

    /// The result under `key` when memory holds it.
    func memoryResult(forKey key: ResultKey) -> StoredResult? {
        memory.object(forKey: key.text)
    }

    /// The result under `key`, from memory, else from disk (then kept in memory too).
    func localResult(forKey key: ResultKey) async -> (StoredResult, Tier)? {
        if let result = memoryResult(forKey: key) { return (result, .memory) }
        // A result is sent with its metadata (its content type, its tag) or not at all.
        guard let (data, metadata) = await disk.entry(forKey: key.text), let metadata else { return nil }
        let found = StoredResult(body: ByteBuffer(bytes: data), metadata: metadata)
        memory.setObject(found, forKey: key.text, cost: found.cost)
        return (found, .disk)
    }

    /// The result under `key` in the shared store, when one is configured (then kept in memory,
    /// and on disk behind the caller): asked once the local tiers missed, by the one request
    /// that makes the result when the store has none. Throws only a store's failure with
    /// `CACHE_REPORT_ERRORS`.
    func sharedResult(forKey key: ResultKey, logger: Logger) async throws -> StoredResult? {
        guard let shared, let found = try await shared.result(forKey: key, logger: logger) else { return nil }
        memory.setObject(found, forKey: key.text, cost: found.cost)
        disk.storeBehind(Data(found.body.readableBytesView), metadata: found.metadata, forKey: key.text, logger: logger)
        return found
    }

    /// Keeps `result` in memory at once and begins writing it to disk from `data` (its bytes as
    /// the processor made them: no second copy); a failed disk write is logged and leaves the
    /// memory copy.
    func store(_ result: StoredResult, data: Data, forKey key: ResultKey, logger: Logger) {
        memory.setObject(result, forKey: key.text, cost: result.cost)
        disk.storeBehind(data, metadata: result.metadata, forKey: key.text, logger: logger)
    }

    /// Writes `result` to the shared store, when one is configured: behind the caller, or with
    /// `CACHE_REPORT_ERRORS` awaited, its failure thrown (call it outside a worker slot).
    func share(_ result: StoredResult, data: Data, forKey key: ResultKey, logger: Logger) async throws {
        try await shared?.store(result, data: data, forKey: key, logger: logger)
    }

    /// Returns once every result write begun has ended.
    func finishWrites() async {
        await disk.finishWrites()
        await shared?.finishWrites()
    }

    /// Ends the shared store's connections: call after `finishWrites()`.
    func shutdown() async {
        await shared?.client.shutdown()
    }
}
