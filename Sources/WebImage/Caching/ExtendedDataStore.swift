import Foundation
import CXattr
import Glibc

/// Extended data of disk cache entries: a `user.` extended attribute on the entry's file where the
/// file system takes one, else a hidden sidecar file beside it (tmpfs, overlay and some network
/// file systems refuse user xattrs). Blocking, like `CacheFile`.
struct ExtendedDataStore {
    static let attributeName = "user.swift-webimage.extended"
    static let sidecarPrefix = ".xattr-"

    /// False forces sidecar files (tests use it to exercise the fallback).
    let usesAttributes: Bool

    /// The sidecar path of the entry at `folder/name`.
    static func sidecarPath(folder: String, name: String) -> String {
        folder + "/" + sidecarPrefix + name
    }

    func read(entry path: String, sidecar: String) -> Data? {
        if usesAttributes, let data = Self.attribute(of: path) { return data }
        return CacheFile.read(sidecar)
    }

    /// Stores `data` for the entry at `path`, which must exist.
    func write(_ data: Data, entry path: String, sidecar: String, folder: String) throws(DiskCacheError) {
        guard CacheFile.status(path) != nil else {
            throw DiskCacheError(operation: "set extended data", path: path, code: ENOENT)
        }
        if usesAttributes {
            let result = data.withUnsafeBytes { setxattr(path, Self.attributeName, $0.baseAddress, $0.count, 0) }
            if result == 0 {
                CacheFile.remove(sidecar)
                return
            }
        }
        try CacheFile.writeAtomically(data, to: sidecar, in: folder)
    }

    /// Removes the extended data of the entry at `path` (the attribute goes with the file itself).
    func remove(entry path: String, sidecar: String) {
        if usesAttributes { removexattr(path, Self.attributeName) }
        CacheFile.remove(sidecar)
    }

    private static func attribute(of path: String) -> Data? {
        let size = getxattr(path, attributeName, nil, 0)
        guard size >= 0 else { return nil }
        var data = Data(count: size)
        let read = data.withUnsafeMutableBytes { getxattr(path, attributeName, $0.baseAddress, $0.count) }
        guard read >= 0 else { return nil }
        return data.prefix(read)
    }
}
