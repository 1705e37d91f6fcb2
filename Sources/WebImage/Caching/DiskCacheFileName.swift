
/// File names of disk cache entries: the MD5 of the key in hex, plus the path extension of the
/// key read as a URL (query and fragment ignored). An extension is kept only when it is 1 to 222
/// ASCII letters and digits, so no key can produce a name with `/`, `..`, NUL or a hidden file.
enum DiskCacheFileName {
    /// Longest extension kept: a file name is at most 255 bytes, 32 of them hash and 1 the dot.
    static let maxExtensionLength = 222

    static func forKey(_ key: String) -> String {
        let digest = MD5.digest(key.utf8)
        let digits = Array("0123456789abcdef".utf8)
        var name: [UInt8] = []
        name.reserveCapacity(32)
        for byte in digest {
            name.append(digits[Int(byte >> 4)])
            name.append(digits[Int(byte & 0x0f)])
        }
        if let ext = pathExtension(ofKey: key) {
            name.append(UInt8(ascii: "."))
            name.append(contentsOf: ext.utf8)
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The extension of the key's path, or nil when absent or unsafe. Works on UTF-8 bytes:
    /// every byte it looks for is ASCII.
    static func pathExtension(ofKey key: String) -> Substring? {
        let bytes = key.utf8
        let pathEnd = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let path = bytes[..<pathEnd]
        let nameStart = path.lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? path.startIndex
        guard let dot = path[nameStart...].lastIndex(of: UInt8(ascii: ".")), dot != nameStart else { return nil }
        let ext = path[bytes.index(after: dot)...]
        guard !ext.isEmpty, ext.count <= maxExtensionLength,
              ext.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) })
        else { return nil }
        return Substring(ext)
    }
}
