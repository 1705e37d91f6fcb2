/// The `X-Request-ID` of a request: the client's when it is a plausible ID (1 – 64 characters of
/// `A-Z a-z 0-9 _ -`, as imgproxy accepts), else a new random one. Every response carries it,
/// and the access log line names it.
enum RequestID {
    /// 64 characters, so that each takes 6 random bits.
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_".utf8)

    static func take(_ header: String?) -> String {
        if let header, (1...64).contains(header.utf8.count),
           header.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 }) {
            return header
        }
        // 20 characters from 2 draws (120 of 128 bits): each draw is a getrandom call.
        var generator = SystemRandomNumberGenerator()
        let draws: [UInt64] = [generator.next(), generator.next()]
        let characters = (0..<20).map { index in alphabet[Int((draws[index / 10] >> (6 * UInt64(index % 10))) & 63)] }
        return String(decoding: characters, as: UTF8.self)
    }
}
