import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response's validators, kept with a cached copy so a later request can ask "changed since?"
/// (`If-None-Match` / `If-Modified-Since`); a 304 answer then means the copy is current.
public struct HTTPValidators: Sendable, Hashable, Codable {
    /// The `ETag` header, quotes and `W/` prefix included.
    public var entityTag: String?
    /// The `Last-Modified` header, as sent.
    public var lastModified: String?

    /// Validators with the given header values.
    public init(entityTag: String? = nil, lastModified: String? = nil) {
        self.entityTag = entityTag
        self.lastModified = lastModified
    }

    /// The validators of `response`, or nil when it has none.
    public init?(response: HTTPURLResponse) {
        let entityTag = response.value(forHTTPHeaderField: "ETag")
        let lastModified = response.value(forHTTPHeaderField: "Last-Modified")
        guard entityTag != nil || lastModified != nil else { return nil }
        self.init(entityTag: entityTag, lastModified: lastModified)
    }

    /// True when the entity tag is strong (no `W/`): only then may a dropped body be resumed
    /// with `If-Range` and a byte range.
    public var hasStrongEntityTag: Bool {
        guard let entityTag else { return false }
        return !entityTag.hasPrefix("W/")
    }

    /// The conditional headers that ask the server whether this copy is still current.
    var conditionalHeaders: [(String, String)] {
        var headers: [(String, String)] = []
        if let entityTag { headers.append(("If-None-Match", entityTag)) }
        if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
        return headers
    }

    /// The validators as the disk cache's extended data (JSON).
    public var extendedData: Data? {
        try? JSONEncoder().encode(self)
    }

    /// Validators read back from a disk cache entry's extended data.
    public init?(extendedData: Data) {
        guard let decoded = try? JSONDecoder().decode(HTTPValidators.self, from: extendedData) else { return nil }
        self = decoded
    }
}
