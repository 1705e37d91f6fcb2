import Foundation
import Glibc
import WebImage

// Helper process for the cache tests:
//   cache-stress-writer <folder> <prefix> <count>
//     stores <count> keys "<prefix>-<i>" plus, every tenth, a key "shared-<i>" that the other
//     writer stores too; each key's data is `payload(for:)`, so a reader can check every byte.
//   cache-stress-writer --disk-full <folder>
//     stores "small", then limits this process's file size (RLIMIT_FSIZE, the same EFBIG a full
//     disk gives as ENOSPC) and checks that larger stores fail with an error and leave "small"
//     as it was. Exits 0 when they do.

func payload(for key: String) -> Data {
    Data(String(repeating: key + ";", count: 8 + key.utf8.count % 50).utf8)
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

func fillDisk(folder: String) throws {
    let cache = DiskCache(cachePath: folder, config: ImageCacheConfig())
    let small = Data(repeating: 1, count: 500)
    try cache.setData(small, forKey: "small")
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
}

let arguments = CommandLine.arguments
do {
    if arguments.count == 3, arguments[1] == "--disk-full" {
        try fillDisk(folder: arguments[2])
    } else if arguments.count == 4, let count = Int(arguments[3]) {
        try writeEntries(folder: arguments[1], prefix: arguments[2], count: count)
    } else {
        fail("usage: cache-stress-writer <folder> <prefix> <count> | --disk-full <folder>")
    }
} catch {
    fail("\(error)")
}
