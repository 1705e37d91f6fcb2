import Crypto
import Foundation
import WebImage

/// Entity tags of results, and the 304 decision: one result of one version of its source. A new
/// source version (a new ETag or Last-Modified at the origin, or other bytes when it sends
/// neither) or other processing gives another tag; the signature, which can change with key
/// rotation, takes no part.
enum EntityTag {
    /// What identifies a source's version: its strong validator, else its Last-Modified, else a
    /// digest of its bytes, taken on the blocking pool (it reads every byte of the source).
    static func sourceVersion(_ source: SourceImage) async throws -> String {
        if let version = sourceVersion(validators: source.validators) { return version }
        return try await BlockingPool.run { digestVersion(of: source.data) }
    }

    /// The version of a source whose origin sent no validators: a digest of its bytes.
    static func digestVersion(of data: Data) -> String {
        BlockingCheck.note("\(data.count) bytes")
        return "sha256:" + Data(SHA256.hash(data: data)).base64EncodedString()
    }

    /// The version the validators name; nil when the origin sent none.
    static func sourceVersion(validators: HTTPValidators?) -> String? {
        if let tag = validators?.entityTag { return "etag:" + tag }
        return validators?.lastModified.map { "date:" + $0 }
    }

    /// A strong entity tag, quoted, for `version` of a source and the result `key`.
    static func make(sourceVersion version: String, key: ResultKey) -> String {
        let digest = SHA256.hash(data: Data((version + "\n" + key.text).utf8))
        let text = Data(digest.prefix(18)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "\"" + text + "\""
    }

    /// Whether a request with `ifNoneMatch` (its `If-None-Match`, nil when absent) is answered
    /// 304 for `tag`: a list, `*`, weak forms compared weakly, as RFC 9110 asks of If-None-Match.
    static func notModified(ifNoneMatch header: String?, _ tag: String) -> Bool {
        guard let header else { return false }
        let bare = tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
        for candidate in header.split(separator: ",") {
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            if trimmed == "*" { return true }
            let candidateBare = trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
            if candidateBare == bare { return true }
        }
        return false
    }
}
