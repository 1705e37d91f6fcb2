import Foundation
import WebImage

/// One page of a bucket's keys, as ListObjectsV2 answers it (`ListBucketResult`): each key with
/// its size, and the token of the next page when the listing was cut short.
struct S3ObjectListing: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var key: String
        var size: Int
    }

    /// An answer that is no listing: not XML, or a `Contents` without its key or size.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    var entries: [Entry] = []
    /// `NextContinuationToken`, when `IsTruncated` says there is more.
    var nextContinuationToken: String?

    init(entries: [Entry], nextContinuationToken: String?) {
        (self.entries, self.nextContinuationToken) = (entries, nextContinuationToken)
    }

    /// The listing in `xml`; throws `Malformed` for anything else.
    init(xml: Data) throws {
        guard let document = BoundedXMLElement.parse(String(decoding: xml, as: UTF8.self)),
              let listing = document.children.first(where: { $0.name == "ListBucketResult" })
        else {
            throw Malformed(description: "not a ListBucketResult")
        }
        // Only the listing's own elements: a `Key` inside `Owner` or `CommonPrefixes` is no object's.
        let child = { (element: BoundedXMLElement, name: String) in element.children.first { $0.name == name }?.text }
        for contents in listing.children where contents.name == "Contents" {
            guard let key = child(contents, "Key"),
                  let size = child(contents, "Size").flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), size >= 0
            else {
                throw Malformed(description: "an object without its key or size")
            }
            entries.append(Entry(key: key, size: size))
        }
        if child(listing, "IsTruncated")?.trimmingCharacters(in: .whitespacesAndNewlines) == "true" {
            guard let token = child(listing, "NextContinuationToken"), !token.isEmpty else {
                throw Malformed(description: "a truncated listing without a continuation token")
            }
            nextContinuationToken = token
        }
    }
}
