/// BlurHash's base 83 digits.
enum Base83 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// Each ASCII byte's digit value, or -1 for bytes outside the alphabet.
    private static let values: [Int] = {
        var table = [Int](repeating: -1, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = index }
        return table
    }()

    /// `value` as `length` digits, most significant first (`value` must fit in them).
    static func encode(_ value: Int, length: Int, into output: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(1, length) { divisor *= 83 }
        for _ in 0..<length {
            output.append(alphabet[(value / divisor) % 83])
            divisor /= 83
        }
    }

    /// The number the digits spell, or nil when a byte is not a base 83 digit.
    static func decode(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            let digit = values[Int(byte)]
            guard digit >= 0 else { return nil }
            value = value * 83 + digit
        }
        return value
    }
}
