import Foundation
import Glibc
import WebImage

// Helper process for the cache tests:
//   cache-stress-writer <folder> <prefix> <count>
//     stores <count> keys "<prefix>-<i>" plus, every tenth, a key "shared-<i>" that the other
//     writer stores too; each key's data is `payload(for:)`, so a reader can check every byte.
//   cache-stress-writer --until-killed <folder>
//     stores keys "killed-<i>" (i = 0, 1, ...) with `largePayload(for:)`, one after another,
//     until killed; prints "ready" once 20 are stored, so the test kills it mid-write.
//   cache-stress-writer --overwrite-until-killed <folder>
//     stores the keys "crash-0" ... "crash-49" with `largePayload(for:)`, over and over from a
//     random one, until killed (the crash-safety test kills it at random moments); prints
//     "ready" once its cache has started.
//   cache-stress-writer --file-size-limit <folder>
//     stores "small", then limits this process's file size (RLIMIT_FSIZE, the same EFBIG a full
//     disk gives as ENOSPC) and checks that larger stores fail with an error and leave "small"
//     as it was; then that an ImageCache in <folder>/image-cache fails its disk stores, keeps
//     answering from memory and misses once memory is cleared. Exits 0 when all of that holds.
//   cache-stress-writer --full-disk <folder>
//     <folder> is a small file system of its own (the test mounts a tmpfs): fills it from two
//     threads and a second process (--fill), reading every entry meanwhile, then checks the
//     entries, the size accounting and that stores succeed once space returns (FullDisk.swift).
//     Prints a summary line and exits 0 when all of that holds.
//   cache-stress-writer --fill <folder> <prefix>
//     stores entries until the disk is full; prints the keys stored (FullDisk.swift).
//   cache-stress-writer --read-only <folder>
//     stores "kept", makes <folder> read-only (mode 555) and, when running as root (who writes
//     into read-only folders anyway), becomes user nobody; then checks that a store fails with
//     an error, "kept" still reads back, and cleanup neither fails nor loses it. Exits 0 when all
//     of that holds.

func payload(for key: String) -> Data {
    Data(String(repeating: key + ";", count: 8 + key.utf8.count % 50).utf8)
}

/// 256 KiB and more, so that a write takes long enough for a kill to land inside it.
func largePayload(for key: String) -> Data {
    Data(String(repeating: key + ";", count: 262_144 / (key.utf8.count + 1) + 1).utf8)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("cache-stress-writer: \(message)\n".utf8))
    exit(1)
}

func writeEntries(folder: String, prefix: String, count: Int) throws {
    let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
    for index in 0..<count {
        let key = "\(prefix)-\(index)"
        try cache.setData(payload(for: key), forKey: key)
        if index % 10 == 0 {
            let shared = "shared-\(index)"
            try cache.setData(payload(for: shared), forKey: shared)
        }
    }
}

func writeUntilKilled(folder: String) throws -> Never {
    let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
    for index in 0... {
        let key = "killed-\(index)"
        try cache.setData(largePayload(for: key), forKey: key)
        if index == 19 {
            FileHandle.standardOutput.write(Data("ready\n".utf8))
        }
    }
    fail("unreachable")
}

func overwriteUntilKilled(folder: String) throws -> Never {
    let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    for index in Int.random(in: 0..<50)... {
        let key = "crash-\(index % 50)"
        try cache.setData(largePayload(for: key), forKey: key)
    }
    fail("unreachable")
}

func fillDisk(folder: String) async throws {
    let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
    let small = Data(repeating: 1, count: 500)
    try cache.setData(small, forKey: "small")
    let imageCache = ImageCache(namespace: "image-cache", diskCacheDirectory: folder)
    guard let image = Image(rgba8Pixels: [UInt8](repeating: 90, count: 64 * 64 * 4), width: 64, height: 64) else {
        fail("cannot make an image")
    }
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: 1_024, rlim_max: 1_024)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("setrlimit failed") }
    for key in ["big", "small"] {
        do {
            try cache.setData(Data(repeating: 2, count: 5_000), forKey: key)
            fail("storing 5,000 bytes under \(key) succeeded past the file size limit")
        } catch {
            print("store of \(key) failed as expected: \(error)")
        }
    }
    guard cache.data(forKey: "small") == small else { fail("the old entry changed") }
    guard !cache.containsData(forKey: "big") else { fail("a partial entry was left") }

    // The ImageCache: the disk store fails (logged), the memory tier keeps the image.
    let imageData = Data(repeating: 3, count: 5_000)
    await imageCache.store(image, imageData: imageData, forKey: "image")
    guard await imageCache.queryImage(forKey: "image").cacheType == .memory else { fail("the memory tier lost the image") }
    do {
        try imageCache.storeImageDataToDisk(imageData, forKey: "image")
        fail("storeImageDataToDisk succeeded past the file size limit")
    } catch {
        print("storeImageDataToDisk failed as expected: \(error)")
    }
    imageCache.clearMemory()
    guard await imageCache.queryImage(forKey: "image").cacheType == .none else { fail("a query found a failed store") }
    guard imageCache.totalDiskCount() == 0 else { fail("the image cache has a partial entry") }
}

func readOnlyFolder(folder: String) throws {
    let kept = Data("kept".utf8)
    try DiskCache(cachePath: folder, config: ImageCacheConfig()).setData(kept, forKey: "kept")
    guard chmod(folder, 0o555) == 0 else { fail("chmod failed") }
    if geteuid() == 0 {
        // nobody (65534): group first, while still allowed to change it.
        guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot become nobody") }
    }
    let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
    do {
        try cache.setData(Data("new".utf8), forKey: "new")
        fail("a store into a read-only folder succeeded")
    } catch is DiskCacheError {
        print("store failed as expected")
    }
    guard cache.data(forKey: "kept") == kept else { fail("the kept entry cannot be read") }
    guard !cache.containsData(forKey: "new") else { fail("the failed store left an entry") }
    cache.removeExpiredData()
    guard cache.totalCount == 1 else { fail("cleanup lost the kept entry") }
}

let arguments = CommandLine.arguments
do {
    if arguments.count == 3, arguments[1] == "--full-disk" {
        try await fullDiskScenario(folder: arguments[2])
    } else if arguments.count == 4, arguments[1] == "--fill" {
        fillFromAnotherProcess(folder: arguments[2], prefix: arguments[3])
    } else if arguments.count == 3, arguments[1] == "--file-size-limit" {
        try await fillDisk(folder: arguments[2])
    } else if arguments.count == 3, arguments[1] == "--read-only" {
        try readOnlyFolder(folder: arguments[2])
    } else if arguments.count == 3, arguments[1] == "--overwrite-until-killed" {
        try overwriteUntilKilled(folder: arguments[2])
    } else if arguments.count == 3, arguments[1] == "--until-killed" {
        try writeUntilKilled(folder: arguments[2])
    } else if arguments.count == 4, let count = Int(arguments[3]) {
        try writeEntries(folder: arguments[1], prefix: arguments[2], count: count)
    } else {
        fail("usage: cache-stress-writer <folder> <prefix> <count> | --until-killed <folder> | --overwrite-until-killed <folder> | --file-size-limit <folder> | --full-disk <folder> | --fill <folder> <prefix> | --read-only <folder>")
    }
} catch {
    fail("\(error)")
}
