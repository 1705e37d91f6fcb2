import Foundation
import Glibc

/// The POSIX file operations the disk cache is made of. All of them block: callers run them on
/// the cache's I/O queue or another thread reserved for blocking work, never on the Swift
/// cooperative pool.
enum CacheFile {
    /// Prefix of temporary files; they are renamed over their entry when complete.
    static let temporaryPrefix = ".tmp-"
    /// Linux's `UTIME_NOW` and `UTIME_OMIT` (macros Swift does not import): set a time to now, leave it.
    private static let utimeNow = (1 << 30) - 1
    private static let utimeOmit = (1 << 30) - 2
    /// Seconds an access time may lag behind the last read.
    static let accessDateGranularity: TimeInterval = 60

    /// The whole file at `path`, or nil when it cannot be opened or read.
    /// With `touchAccessDate` the file's access time is set to now when it is over a minute old
    /// (explicitly, since `noatime` and `relatime` mounts do not keep it; at most once a minute,
    /// since each update is a metadata write).
    static func read(_ path: String, touchAccessDate: Bool = false) -> Data? {
        BlockingCheck.note(path)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        // Uninitialized memory handed to Data: no zero-filling of bytes about to be read.
        guard let buffer = malloc(max(size, 1)) else { return nil }
        var offset = 0
        while offset < size {
            let count = Glibc.read(fd, buffer + offset, size - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                free(buffer)
                return nil
            }
            offset += count
        }
        if touchAccessDate, Date(timespec: info.st_atim).timeIntervalSinceNow < -accessDateGranularity {
            var times = [timespec(tv_sec: 0, tv_nsec: utimeNow), timespec(tv_sec: 0, tv_nsec: utimeOmit)]
            _ = futimens(fd, &times)
        }
        return Data(bytesNoCopy: buffer, count: size, deallocator: .free)
    }

    /// The bytes of a small special file (`/proc`, cgroup files), read until end of file: such
    /// files report a size of 0, so `read(_:)` cannot size its buffer from `fstat`.
    static func readToEnd(_ path: String, limit: Int = 65_536) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while data.count < limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            data.append(contentsOf: chunk[..<count])
        }
        return data
    }

    /// Writes `data` to `path` atomically: a temporary file in the same folder, written, fsynced
    /// (unless `sync` is false) and renamed over `path`. Readers (in any process) see the old file or the new one, never
    /// a part; a crash leaves at most a temporary file, which no process holds locked: the next
    /// cleanup or cache start removes it (`removeAbandonedTemporary`).
    static func writeAtomically(_ data: Data, to path: String, in folder: String, sync: Bool = true) throws(DiskCacheError) {
        BlockingCheck.note(path)
        let (fd, temporary) = try createLockedTemporary(in: folder)
        var failure: DiskCacheError?
        let written = data.withUnsafeBytes { buffer -> Int32 in
            var offset = 0
            while offset < buffer.count {
                let count = write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return count < 0 ? errno : ENOSPC }
                offset += count
            }
            return 0
        }
        if written != 0 {
            failure = DiskCacheError(operation: "write", path: temporary, code: written)
        } else if sync, fsync(fd) != 0 {
            failure = DiskCacheError(operation: "fsync", path: temporary, code: errno)
        }
        // Renamed before the close, which drops the lock: until then cleanup leaves the file alone.
        if failure == nil, rename(temporary, path) != 0 {
            failure = DiskCacheError(operation: "rename", path: path, code: errno)
        }
        if let failure {
            unlink(temporary)
            close(fd)
            throw failure
        }
        if close(fd) != 0 {
            throw DiskCacheError(operation: "close", path: path, code: errno)
        }
    }

    /// A new temporary file in `folder`, open for writing and locked (`flock`) while it is open,
    /// so that cleanup in any process tells it from the leftover of a writer that died.
    private static func createLockedTemporary(in folder: String) throws(DiskCacheError) -> (fd: Int32, path: String) {
        while true {
            let temporary = folder + "/" + temporaryPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw DiskCacheError(operation: "create", path: temporary, code: errno) }
            var locked: Int32
            repeat { locked = flock(fd, LOCK_EX) } while locked != 0 && errno == EINTR
            // A file system without flock: cleanup falls back to the file's age.
            if locked != 0 { return (fd, temporary) }
            // Between the open and the lock a cleanup may have taken the file for a leftover and
            // removed it (it does so holding the lock): then it has no name, and we start again.
            var info = stat()
            if fstat(fd, &info) == 0, info.st_nlink > 0 { return (fd, temporary) }
            close(fd)
        }
    }

    /// Removes the temporary file at `path` unless a writer holds its lock (on a file system
    /// without flock: unless it is younger than `staleAge`). True when it was removed.
    @discardableResult
    static func removeAbandonedTemporary(_ path: String, staleAge: TimeInterval) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            // Removed holding the lock, so a writer that has just created it sees it gone.
            return remove(path)
        }
        var info = stat()
        guard errno != EWOULDBLOCK, fstat(fd, &info) == 0,
              Date(timespec: info.st_mtim).addingTimeInterval(staleAge) < Date()
        else { return false }
        return remove(path)
    }

    /// Deletes the file at `path`; true unless it existed and could not be deleted.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        unlink(path) == 0 || errno == ENOENT
    }

    /// The status of the file at `path`, or nil when there is none.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }

    /// The names in `folder` (nil when it cannot be listed).
    static func names(in folder: String) -> [String]? {
        BlockingCheck.note(folder)
        return try? FileManager.default.contentsOfDirectory(atPath: folder)
    }

    /// Creates `folder` and its parents if missing; fails when a file stands in the way.
    static func createFolder(_ folder: String) throws(DiskCacheError) {
        if mkdir(folder, 0o755) == 0 { return }
        let code = errno
        if code == EEXIST {
            guard let info = status(folder), (info.st_mode & S_IFMT) == S_IFDIR else {
                throw DiskCacheError(operation: "create folder", path: folder, code: ENOTDIR)
            }
            return
        }
        let parent = (folder as NSString).deletingLastPathComponent
        guard code == ENOENT, !parent.isEmpty, parent != folder else {
            throw DiskCacheError(operation: "create folder", path: folder, code: code)
        }
        try createFolder(parent)
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else {
            throw DiskCacheError(operation: "create folder", path: folder, code: errno)
        }
    }
}
