import HTTPTypes

/// The header names the server reads and writes beyond HTTPTypes' own, made once: a name made
/// from text is checked and lowercased each time, and middleware runs on every request.
extension HTTPField.Name {
    /// The request's ID, taken from the client when plausible and sent back.
    static let requestID = HTTPField.Name("X-Request-ID")!
    /// Where a result came from: memory, disk, miss, source (a 304 from the stored source's
    /// version), fallback.
    static let xCache = HTTPField.Name("X-Cache")!
    static let accessControlAllowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    static let accessControlAllowMethods = HTTPField.Name("Access-Control-Allow-Methods")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
    /// `ENABLE_DEBUG_HEADERS`' fields.
    static let xOriginContentLength = HTTPField.Name("X-Origin-Content-Length")!
    static let xOriginWidth = HTTPField.Name("X-Origin-Width")!
    static let xOriginHeight = HTTPField.Name("X-Origin-Height")!
    static let xResultWidth = HTTPField.Name("X-Result-Width")!
    static let xResultHeight = HTTPField.Name("X-Result-Height")!
}
