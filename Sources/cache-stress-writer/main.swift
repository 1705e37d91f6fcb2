import Foundation
import WebImage

// Stores entries into a disk cache folder, for the cache's multi-process test:
// cache-stress-writer <folder> <prefix> <count>
// Writes <count> keys "<prefix>-<i>" plus, every tenth, a key "shared-<i>" that the other
// writer stores too; each key's data is `payload(for:)`, so a reader can check every byte.

func payload(for key: String) -> Data {
    Data(String(repeating: key + ";", count: 8 + key.utf8.count % 50).utf8)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: cache-stress-writer <folder> <prefix> <count>\n".utf8))
    exit(2)
}
let cache = DiskCache(cachePath: arguments[1], config: ImageCacheConfig())
do {
    for index in 0..<count {
        let key = "\(arguments[2])-\(index)"
        try cache.setData(payload(for: key), forKey: key)
        if index % 10 == 0 {
            let shared = "shared-\(index)"
            try cache.setData(payload(for: shared), forKey: shared)
        }
    }
} catch {
    FileHandle.standardError.write(Data("cache-stress-writer: \(error)\n".utf8))
    exit(1)
}
