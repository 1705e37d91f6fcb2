/// Go's `url.PathUnescape`: `%XX` escapes decoded, `+` kept, a `%` without two hex digits
/// refused; the result must be UTF-8.
enum PercentDecoding {
    static func pathUnescaped(_ text: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HexDigits.value), let low = iterator.next().flatMap(HexDigits.value) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
