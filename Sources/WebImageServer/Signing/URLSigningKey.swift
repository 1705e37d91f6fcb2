import Foundation

/// One key and salt that sign image URLs: imgproxy's `KEY` and `SALT` pair.
public struct URLSigningKey: Sendable, Hashable {
    /// The HMAC key.
    public var key: [UInt8]
    /// Bytes signed before the path.
    public var salt: [UInt8]

    /// A pair from raw bytes.
    public init(key: [UInt8], salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }

    /// A pair given in hex, as imgproxy's settings give it.
    public init(hexKey: String, hexSalt: String) throws(ImageServerConfigurationError) {
        guard let key = Self.bytes(hex: hexKey), !key.isEmpty else { throw .invalidSigningKey("the key is not hex") }
        guard let salt = Self.bytes(hex: hexSalt) else { throw .invalidSigningKey("the salt is not hex") }
        self.init(key: key, salt: salt)
    }

    /// The pairs of comma-separated keys and salts (`KEY`, `SALT`: `k1,k2` and `s1,s2`), for
    /// rotation; both empty gives none (signing off).
    public static func pairs(hexKeys: String, hexSalts: String) throws(ImageServerConfigurationError) -> [URLSigningKey] {
        let keys = hexKeys.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        let salts = hexSalts.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        guard keys.count == salts.count else {
            throw .invalidSigningKey("\(keys.count) keys and \(salts.count) salts: they go in pairs")
        }
        var pairs: [URLSigningKey] = []
        for (key, salt) in zip(keys, salts) { pairs.append(try URLSigningKey(hexKey: key, hexSalt: salt)) }
        return pairs
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = HexDigits.value(of: digits[index]), let low = HexDigits.value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
