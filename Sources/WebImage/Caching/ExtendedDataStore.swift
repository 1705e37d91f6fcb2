import Foundation
import Glibc
internal import ImageEngine

/// Extended data of disk cache entries: a `user.` extended attribute on the entry's file where the
/// file system takes one, else a hidden sidecar file beside it (tmpfs, overlay and some network
/// file systems refuse user xattrs, and no file system takes a value over 64 KiB). Blocking,
/// like `CacheFile`.
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
        if usesAttributes, let data = try? ExtendedAttributes.value(named: Self.attributeName, ofFileAt: path) {
            return data
        }
        return CacheFile.read(sidecar)
    }

    /// Stores `data` for the entry at `path`, which must exist.
    func write(_ data: Data, entry path: String, sidecar: String, folder: String) throws(DiskCacheError) {
        guard CacheFile.status(path) != nil else {
            throw DiskCacheError(operation: "set extended data", path: path, code: ENOENT)
        }
        if usesAttributes {
            do {
                try ExtendedAttributes.setValue(data, named: Self.attributeName, ofFileAt: path)
                CacheFile.remove(sidecar)
                return
            } catch ExtendedAttributeError.noSuchFile {
                throw DiskCacheError(operation: "set extended data", path: path, code: ENOENT)
            } catch {
                // Not supported here, or too large for an attribute: the sidecar takes it, and an
                // older value in the attribute must not shadow it.
                try? ExtendedAttributes.removeValue(named: Self.attributeName, ofFileAt: path)
            }
        }
        try CacheFile.writeAtomically(data, to: sidecar, in: folder)
    }

    /// Removes the extended data of the entry at `path` (the attribute goes with the file itself).
    func remove(entry path: String, sidecar: String) {
        if usesAttributes { try? ExtendedAttributes.removeValue(named: Self.attributeName, ofFileAt: path) }
        CacheFile.remove(sidecar)
    }
}
