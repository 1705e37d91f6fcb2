import Foundation
import Logging
import NIOPosix
import WebImage
import WebImageSupport

/// Entries on the disk tier of an `ImageCache` (the library's: atomic writes, size limit,
/// expiry): each entry's bytes are its data, and its `Metadata` is JSON in its extended data.
/// The source store and the result store both keep theirs here. Writes run behind the requests
/// that make them (a response never waits on the disk); `finishWrites()` awaits those begun.
final class EntryStore<Metadata: Codable & Sendable>: Sendable {
    private let cache: ImageCache
    /// Writes begun and not yet ended, by number.
    private let writes = Locked<(next: Int, running: [Int: Task<Void, Never>])>((0, [:]))

    /// A store in `namespace` under `directory`, with the disk tier's settings from `config`.
    init(namespace: String, directory: String, config: ImageCacheConfig) {
        var config = config
        config.shouldCacheImagesInMemory = false
        cache = ImageCache(namespace: namespace, diskCacheDirectory: directory, config: config)
    }

    /// The entry under `key`: its bytes, and its metadata when readable (the bytes are renamed
    /// into place before the metadata is written beside them, so a reader in between sees none).
    func entry(forKey key: String) async -> (data: Data, metadata: Metadata?)? {
        let disk = cache.diskCache
        return try? await StoreThreads.run { () -> (data: Data, metadata: Metadata?)? in
            guard let data = disk.data(forKey: key) else { return nil }
            return (data, Self.metadata(disk.extendedData(forKey: key)))
        }
    }

    /// The metadata of the entry under `key`, without reading its bytes.
    func metadata(forKey key: String) async -> Metadata? {
        let disk = cache.diskCache
        return try? await StoreThreads.run { Self.metadata(disk.extendedData(forKey: key)) }
    }

    /// Begins writing `data` and `metadata` under `key`, behind the caller: a failed write is
    /// logged and leaves no entry (the disk tier writes aside and renames); what is stored can be
    /// fetched or made again.
    func storeBehind(_ data: Data, metadata: Metadata, forKey key: String, logger: Logger) {
        writes.withLock { writes in
            let number = writes.next
            writes.next += 1
            writes.running[number] = Task {
                await self.store(data, metadata: metadata, forKey: key, logger: logger)
                _ = self.writes.withLock { $0.running.removeValue(forKey: number) }
            }
        }
    }

    /// Returns once every write begun before the call has ended.
    func finishWrites() async {
        for write in writes.withLock({ Array($0.running.values) }) { await write.value }
    }

    private func store(_ data: Data, metadata: Metadata, forKey key: String, logger: Logger) async {
        let disk = cache.diskCache
        do {
            let extended = try JSONEncoder().encode(metadata)
            try await StoreThreads.run {
                try disk.setData(data, forKey: key)
                try disk.setExtendedData(extended, forKey: key)
            }
        } catch {
            logger.warning("entry not stored on disk", metadata: ["error": "\(error)"])
        }
    }

    private static func metadata(_ extended: Data?) -> Metadata? {
        extended.flatMap { try? JSONDecoder().decode(Metadata.self, from: $0) }
    }
}

/// The threads the stores read and write the disk on, apart from `BlockingPool`, whose threads
/// (as many as the cores) process images: a store waits on the disk (a source is flushed to the
/// device), and made in a `BlockingPool` thread, that wait left a core idle while images queued
/// for a thread.
enum StoreThreads {
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()

    /// Runs `body` on the stores' threads and returns its result to the awaiting task.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }
}
