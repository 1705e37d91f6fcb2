/// The `X-Request-ID` of a request: the client's when it is a plausible ID (1 – 64 characters of
/// `A-Z a-z 0-9 _ -`, as imgproxy accepts), else a new random one. Every response carries it,
/// and the access log line names it.
enum RequestID {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    static func take(_ header: String?) -> String {
        if let header, (1...64).contains(header.utf8.count),
           header.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 }) {
            return header
        }
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
