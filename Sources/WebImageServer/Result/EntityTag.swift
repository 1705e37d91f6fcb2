import Crypto
import Foundation
import WebImage

/// Entity tags of results: one result of one version of its source. A new source version (a new
/// ETag or Last-Modified at the origin, or other bytes when it sends neither) or other options
/// give another tag; the signature, which can change with key rotation, takes no part.
enum EntityTag {
    /// What identifies the source's version: its strong validator, else its Last-Modified, else
    /// a digest of its bytes.
    static func sourceVersion(_ source: SourceImage) -> String {
        if let tag = source.validators?.entityTag { return "etag:" + tag }
        if let date = source.validators?.lastModified { return "date:" + date }
        return "sha256:" + Data(SHA256.hash(data: source.data)).base64EncodedString()
    }

    /// A strong entity tag, quoted, for `version` of a source and `resultKey`.
    static func make(sourceVersion version: String, resultKey: String) -> String {
        let digest = SHA256.hash(data: Data((version + "\n" + resultKey).utf8))
        let text = Data(digest.prefix(18)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "\"" + text + "\""
    }

    /// Whether an `If-None-Match` header value matches `tag` (a list, `*`, weak forms compared
    /// weakly, as RFC 9110 asks of If-None-Match).
    static func matches(ifNoneMatch header: String, _ tag: String) -> Bool {
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
