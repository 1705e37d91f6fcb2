import Foundation
import Logging
import NIOPosix
import WebImage
import WebImageSupport

/// Entries on the disk tier of an `ImageCache` (the library's: atomic writes, size limit,
/// expiry): each entry's bytes are its data, and its `Metadata` is JSON in its extended data.
/// The source store and the result store both keep theirs here. Writes run behind the requests
/// that make them (a response never waits on the disk), at most `maxPendingWrites` at a time:
/// past that a write is dropped (what is stored can be fetched or made again), so that a disk
/// slower than the requests holds a bounded amount of memory. `finishWrites()` awaits those begun.
final class EntryStore<Metadata: Codable & Sendable>: Sendable {
    private let cache: ImageCache
    private let threads: DiskThreads
    let maxPendingWrites: Int
    /// Writes begun and not yet ended, by number, and those dropped.
    private let writes = Locked<(next: Int, running: [Int: Task<Void, Never>], dropped: Int)>((0, [:], 0))

    /// A store in `namespace` under `directory`, with the disk tier's settings from `config`,
    /// reading and writing on `threads`.
    init(namespace: String, directory: String, config: ImageCacheConfig, threads: DiskThreads, maxPendingWrites: Int = 256) {
        var config = config
        config.shouldCacheImagesInMemory = false
        cache = ImageCache(namespace: namespace, diskCacheDirectory: directory, config: config)
        self.threads = threads
        self.maxPendingWrites = max(1, maxPendingWrites)
    }

    /// Writes dropped because `maxPendingWrites` were waiting.
    var droppedWrites: Int { writes.withLock { $0.dropped } }

    /// The entry under `key`: its bytes, and its metadata when readable (the bytes are renamed
    /// into place before the metadata is written beside them, so a reader in between sees none).
    func entry(forKey key: String) async -> (data: Data, metadata: Metadata?)? {
        let disk = cache.diskCache
        return try? await threads.run { () -> (data: Data, metadata: Metadata?)? in
            guard let data = disk.data(forKey: key) else { return nil }
            return (data, Self.metadata(disk.extendedData(forKey: key)))
        }
    }

    /// The metadata of the entry under `key`, without reading its bytes.
    func metadata(forKey key: String) async -> Metadata? {
        let disk = cache.diskCache
        return try? await threads.run { Self.metadata(disk.extendedData(forKey: key)) }
    }

    /// Begins writing `data` and `metadata` under `key`, behind the caller: a failed write is
    /// logged and leaves no entry (the disk tier writes aside and renames); what is stored can be
    /// fetched or made again.
    func storeBehind(_ data: Data, metadata: Metadata, forKey key: String, logger: Logger) {
        let dropped = writes.withLock { writes -> Bool in
            guard writes.running.count < maxPendingWrites else {
                writes.dropped += 1
                return true
            }
            let number = writes.next
            writes.next += 1
            writes.running[number] = Task {
                await self.store(data, metadata: metadata, forKey: key, logger: logger)
                _ = self.writes.withLock { $0.running.removeValue(forKey: number) }
            }
            return false
        }
        if dropped { logger.debug("entry not stored on disk: \(maxPendingWrites) writes already waiting", metadata: ["key": "\(key)"]) }
    }

    /// Returns once every write begun before the call has ended.
    func finishWrites() async {
        for write in writes.withLock({ Array($0.running.values) }) { await write.value }
    }

    private func store(_ data: Data, metadata: Metadata, forKey key: String, logger: Logger) async {
        let disk = cache.diskCache
        do {
            let extended = try JSONEncoder().encode(metadata)
            try await threads.run {
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
