import Dispatch
import Foundation
import Glibc
internal import ImageEngine

/// The default disk tier: one file per key in one folder, named by `DiskCacheFileName`.
///
/// Writes are atomic (temporary file, fsync, rename), so a crash or a kill never leaves a partial
/// entry, and several processes can share the folder: each sees whole files only, and cleanup
/// leaves other processes' in-flight temporary files alone. Extended data lives in a `user.`
/// xattr, or a sidecar file where the file system refuses xattrs. On a background queue of this
/// cache, the size limit is enforced after writes, and expired entries are removed when the cache
/// is made and after writes, at most once per `expiredDataRemovalInterval`. All methods block
/// on file I/O.
public final class DiskCache: DiskCacheProtocol {
    /// The folder of the entries.
    public let cachePath: String
    /// Seconds an entry lives; negative = forever.
    public let maxDiskAge: TimeInterval
    /// Bytes the folder may hold; 0 = unlimited.
    public let maxDiskSize: Int
    /// The date expiry and trims go by.
    public let expireType: DiskCacheExpireType
    /// Whether each store is flushed to the device before it replaces the old entry
    /// (`ImageCacheConfig.diskCacheSyncsWrites`).
    public let syncsWrites: Bool
    /// Seconds between two background runs of `removeExpiredData()`; 0 = none.
    public let expiredDataRemovalInterval: TimeInterval

    let extendedDataStore: ExtendedDataStore
    private let maintenance = Locked(MaintenanceState())
    /// Size enforcement and expiry in the background: a dedicated serial DispatchQueue (file I/O,
    /// off the Swift cooperative pool), so at most one of them runs at a time.
    private let maintenanceQueue = DispatchQueue(label: "swift-webimage.disk-cache.maintenance", qos: .utility)
    /// One cleanup (expiry or trim) at a time, from the maintenance queue or a caller: two at
    /// once would each count the entries the other is deleting, and one could return before
    /// the folder is under the limit.
    private let cleanupLock = Locked(())
    /// Called after each background run of `removeExpiredData()` (tests await it).
    private let afterBackgroundExpiry: (@Sendable () -> Void)?

    /// On a file system without flock, temporary files older than this are taken for leftovers
    /// of a crash (elsewhere a leftover is one no writer holds locked, whatever its age).
    static let staleTemporaryAge: TimeInterval = 3600

    private struct MaintenanceState {
        /// Bytes in the folder as last counted plus this process's writes since; nil = not counted.
        var knownSize: Int?
        /// Bytes this cache has written, ever: a count started at `n` adds what it reaches minus `n`.
        var bytesWritten = 0
        /// `bytesWritten` at which the folder is counted again, whatever `knownSize` says.
        var recountAt = 0
        var trimScheduled = false
        /// When `removeExpiredData()` last started.
        var lastExpiry: DispatchTime?
        var expiryScheduled = false

        /// Records a count of the folder that found `total` bytes, begun when this cache had
        /// written `writtenBefore`. Other processes sharing the folder write to it unseen, so it
        /// is counted again once this cache has written a quarter of the room the count left (at
        /// least 1/64 of `limit`): up to four processes writing as fast as this one keep the
        /// folder within the limit, and one alone counts about a dozen times per half-limit written.
        mutating func counted(_ total: Int, writtenBefore: Int, limit: Int) {
            knownSize = total + bytesWritten - writtenBefore
            recountAt = writtenBefore + max((limit - total) / 4, limit / 64)
        }
    }

    /// A cache over `cachePath` (created if missing) with `config`'s disk settings.
    public convenience init(cachePath: String, config: ImageCacheConfig) {
        self.init(cachePath: cachePath, config: config, usesExtendedAttributes: true)
    }

    init(
        cachePath: String, config: ImageCacheConfig, usesExtendedAttributes: Bool,
        afterBackgroundExpiry: (@Sendable () -> Void)? = nil
    ) {
        self.cachePath = cachePath
        maxDiskAge = config.maxDiskAge
        maxDiskSize = max(0, config.maxDiskSize)
        expireType = config.diskCacheExpireType
        syncsWrites = config.diskCacheSyncsWrites
        expiredDataRemovalInterval = config.expiredDataRemovalInterval.isFinite
            ? max(0, config.expiredDataRemovalInterval) : 0
        extendedDataStore = ExtendedDataStore(usesAttributes: usesExtendedAttributes)
        self.afterBackgroundExpiry = afterBackgroundExpiry
        do {
            try CacheFile.createFolder(cachePath)
        } catch {
            CacheObservability.logger.warning("disk cache folder unavailable: \(error)")
        }
        // What writers killed since the last start left behind goes now, whatever the expiry interval.
        maintenanceQueue.async { [weak self] in
            guard let self else { return }
            cleanupLock.withLock { _ in removeLeftovers() }
        }
        scheduleExpiredDataRemoval()
    }

    public func cachePath(forKey key: String) -> String? {
        cachePath + "/" + DiskCacheFileName.forKey(key)
    }

    public func containsData(forKey key: String) -> Bool {
        CacheFile.status(entryPath(key)) != nil
    }

    public func data(forKey key: String) -> Data? {
        CacheFile.read(entryPath(key), touchAccessDate: expireType == .accessDate)
    }

    public func setData(_ data: Data, forKey key: String) throws {
        let name = DiskCacheFileName.forKey(key)
        do {
            try store(data, name: name)
        } catch where error.code == ENOENT {
            // The folder was removed while running: make it again, once.
            try CacheFile.createFolder(cachePath)
            try store(data, name: name)
        }
        noteWrite(bytes: data.count)
        scheduleExpiredDataRemoval()
    }

    public func extendedData(forKey key: String) -> Data? {
        let name = DiskCacheFileName.forKey(key)
        return extendedDataStore.read(entry: cachePath + "/" + name, sidecar: sidecarPath(name))
    }

    public func setExtendedData(_ data: Data?, forKey key: String) throws {
        let name = DiskCacheFileName.forKey(key)
        let path = cachePath + "/" + name
        guard let data else {
            extendedDataStore.remove(entry: path, sidecar: sidecarPath(name))
            return
        }
        try extendedDataStore.write(data, entry: path, sidecar: sidecarPath(name), folder: cachePath)
    }

    public func removeData(forKey key: String) {
        removeEntry(named: DiskCacheFileName.forKey(key))
    }

    public func removeAllData() {
        for name in CacheFile.names(in: cachePath) ?? [] {
            if name.hasPrefix(CacheFile.temporaryPrefix) {
                // A store in progress (in any process) keeps its file.
                CacheFile.removeAbandonedTemporary(cachePath + "/" + name, staleAge: Self.staleTemporaryAge)
            } else {
                CacheFile.remove(cachePath + "/" + name)
            }
        }
        maintenance.withLock { $0.counted(0, writtenBefore: $0.bytesWritten, limit: maxDiskSize) }
    }

    public func removeExpiredData() {
        cleanupLock.withLock { _ in removeExpiredDataAndTrim() }
    }

    private func removeExpiredDataAndTrim() {
        let writtenBefore = maintenance.withLock { state in
            state.lastExpiry = .now()
            return state.bytesWritten
        }
        let now = Date()
        var kept: [DiskCacheEntry] = []
        for entry in entries() {
            if maxDiskAge >= 0, entry.date.addingTimeInterval(maxDiskAge) < now {
                removeEntry(named: entry.name)
            } else {
                kept.append(entry)
            }
        }
        removeLeftovers()
        let total = trimToHalf(kept)
        // Writes during the count may be counted twice: an overestimate only trims sooner.
        maintenance.withLock { $0.counted(total, writtenBefore: writtenBefore, limit: maxDiskSize) }
    }

    public var totalCount: Int { entries().count }

    public var totalSize: Int { entries().reduce(0) { $0 + $1.size } }

    /// Blocks until the background work due so far has run (a later expiry run is not awaited).
    func waitForMaintenance() {
        maintenanceQueue.sync {}
    }

    // MARK: Entries

    private func entryPath(_ key: String) -> String {
        cachePath + "/" + DiskCacheFileName.forKey(key)
    }

    private func sidecarPath(_ name: String) -> String {
        ExtendedDataStore.sidecarPath(folder: cachePath, name: name)
    }

    private func store(_ data: Data, name: String) throws(DiskCacheError) {
        try CacheFile.writeAtomically(data, to: cachePath + "/" + name, in: cachePath, sync: syncsWrites)
        // Extended data belongs to the data it was set with; the xattr went with the old file.
        CacheFile.remove(sidecarPath(name))
    }

    private func removeEntry(named name: String) {
        if !CacheFile.remove(cachePath + "/" + name) {
            CacheObservability.logger.debug("cannot remove cache entry \(name): errno \(errno)")
        }
        CacheFile.remove(sidecarPath(name))
    }

    /// The entries in the folder (hidden names are temporaries and sidecars).
    func entries() -> [DiskCacheEntry] {
        (CacheFile.names(in: cachePath) ?? []).compactMap { name in
            guard !name.hasPrefix("."), let info = CacheFile.status(cachePath + "/" + name),
                  (info.st_mode & S_IFMT) == S_IFREG
            else { return nil }
            return DiskCacheEntry(name: name, size: Int(info.st_size), date: date(of: info, path: cachePath + "/" + name))
        }
    }

    private func date(of info: stat, path: String) -> Date {
        switch expireType {
        case .accessDate: return Date(timespec: info.st_atim)
        case .modificationDate: return Date(timespec: info.st_mtim)
        case .changeDate: return Date(timespec: info.st_ctim)
        case .creationDate:
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            return attributes?[.creationDate] as? Date ?? Date(timespec: info.st_mtim)
        }
    }

    /// Removes temporaries left by crashes and sidecars whose entry is gone.
    private func removeLeftovers() {
        for name in CacheFile.names(in: cachePath) ?? [] {
            if name.hasPrefix(CacheFile.temporaryPrefix) {
                CacheFile.removeAbandonedTemporary(cachePath + "/" + name, staleAge: Self.staleTemporaryAge)
            } else if name.hasPrefix(ExtendedDataStore.sidecarPrefix) {
                let entry = String(name.dropFirst(ExtendedDataStore.sidecarPrefix.count))
                if CacheFile.status(cachePath + "/" + entry) == nil { CacheFile.remove(cachePath + "/" + name) }
            }
        }
    }

    // MARK: Size limit

    /// Over `maxDiskSize`, removes the oldest of `entries` until the total is under half of it.
    /// Returns the total left.
    private func trimToHalf(_ entries: [DiskCacheEntry]) -> Int {
        var total = entries.reduce(0) { $0 + $1.size }
        guard maxDiskSize > 0, total > maxDiskSize else { return total }
        let target = maxDiskSize / 2
        for entry in entries.sorted(by: { $0.date < $1.date }) {
            if total < target { break }
            removeEntry(named: entry.name)
            total -= entry.size
        }
        CacheObservability.logger.debug("disk cache trimmed to \(total) bytes (limit \(maxDiskSize))")
        return total
    }

    private func noteWrite(bytes: Int) {
        guard maxDiskSize > 0 else { return }
        let schedule = maintenance.withLock { state -> Bool in
            if let known = state.knownSize { state.knownSize = known + bytes }
            state.bytesWritten += bytes
            let overLimit = state.knownSize.map { $0 > maxDiskSize } ?? true
            guard !state.trimScheduled, overLimit || state.bytesWritten >= state.recountAt else { return false }
            state.trimScheduled = true
            return true
        }
        guard schedule else { return }
        maintenanceQueue.async { [self] in
            cleanupLock.withLock { _ in
                let writtenBefore = maintenance.withLock { state in
                    state.trimScheduled = false
                    return state.bytesWritten
                }
                let total = trimToHalf(entries())
                // Writes during the count may be counted twice: an overestimate only trims sooner.
                maintenance.withLock { $0.counted(total, writtenBefore: writtenBefore, limit: maxDiskSize) }
            }
        }
    }

    // MARK: Expiry

    /// Runs `removeExpiredData()` on the maintenance queue unless a run is pending: at once when
    /// the last run started `expiredDataRemovalInterval` or more ago, else when it will have.
    /// A server never enters the background as an app does, so this is when entries expire
    /// without anyone calling cleanup.
    private func scheduleExpiredDataRemoval() {
        guard expiredDataRemovalInterval > 0 else { return }
        let deadline = maintenance.withLock { state -> DispatchTime? in
            guard !state.expiryScheduled else { return nil }
            state.expiryScheduled = true
            return state.lastExpiry.map { $0 + expiredDataRemovalInterval } ?? .now()
        }
        guard let deadline else { return }
        let run: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            // Both at once, so a write in between cannot schedule a second run for now.
            maintenance.withLock { state in
                state.expiryScheduled = false
                state.lastExpiry = .now()
            }
            removeExpiredData()
            afterBackgroundExpiry?()
        }
        if deadline <= .now() {
            maintenanceQueue.async(execute: run)
        } else {
            maintenanceQueue.asyncAfter(deadline: deadline, execute: run)
        }
    }
}

/// One file of a disk cache, with the date its cache's expire type goes by.
struct DiskCacheEntry {
    let name: String
    let size: Int
    let date: Date
}

extension Date {
    init(timespec time: timespec) {
        self.init(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }
}
