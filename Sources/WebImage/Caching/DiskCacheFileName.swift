import Crypto
import Foundation

/// File names of disk cache entries: the MD5 of the key in hex, plus the path extension of the
/// key read as a URL (query and fragment ignored). An extension is kept only when it is 1 to 222
/// ASCII letters and digits, so no key can produce a name with `/`, `..`, NUL or a hidden file.
enum DiskCacheFileName {
    /// Longest extension kept: a file name is at most 255 bytes, 32 of them hash and 1 the dot.
    static let maxExtensionLength = 222

    static func forKey(_ key: String) -> String {
        let digest = Insecure.MD5.hash(data: Data(key.utf8))
        let hex = digest.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
        guard let ext = pathExtension(ofKey: key) else { return hex }
        return hex + "." + ext
    }

    /// The extension of the key's path, or nil when absent or unsafe.
    static func pathExtension(ofKey key: String) -> Substring? {
        let path = key.prefix { $0 != "?" && $0 != "#" }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        guard !ext.isEmpty, ext.utf8.count <= maxExtensionLength,
              ext.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) })
        else { return nil }
        return ext
    }
}
