import Foundation

/// The `async` forms of `ImageCache`'s callback methods: each has the callback form's labels
/// without `completion:` and returns when the callback form would call it. The callback forms
/// take `completion:` with no default, so `await cache.store(image, forKey: key, toDisk: true)`
/// can only name the form below, and an `await` on a store always waits for the disk write.
extension ImageCache {
    /// Stores `image` in memory and, with `toDisk`, `imageData` (or the image encoded when nil) on
    /// disk; returns after the disk write.
    public func store(_ image: Image?, imageData: Data? = nil, forKey key: String?, toDisk: Bool) async {
        await withCheckedContinuation { continuation in
            store(image, imageData: imageData, forKey: key, toDisk: toDisk) { continuation.resume() }
        }
    }

    /// Removes `key` from the chosen tiers; returns after the disk removal.
    public func removeImage(forKey key: String?, fromMemory: Bool, fromDisk: Bool) async {
        await withCheckedContinuation { continuation in
            removeImage(forKey: key, fromMemory: fromMemory, fromDisk: fromDisk) { continuation.resume() }
        }
    }

    /// Removes every disk entry (the folder stays); returns when they are gone.
    public func clearDisk() async {
        await withCheckedContinuation { continuation in
            clearDisk { continuation.resume() }
        }
    }

    /// Removes expired disk entries, then the oldest while over `maxDiskSize`; returns when done.
    public func deleteOldFiles() async {
        await withCheckedContinuation { continuation in
            deleteOldFiles { continuation.resume() }
        }
    }
}
