import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

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
        let reader = Reader()
        let parser = XMLParser(data: xml)
        parser.delegate = reader
        // Ended too: libxml2 may take a document cut short for a whole one.
        guard parser.parse(), reader.sawListing else {
            throw Malformed(description: "not a ListBucketResult: \(parser.parserError.map { "\($0)" } ?? "no such element")")
        }
        if let problem = reader.problem { throw Malformed(description: problem) }
        entries = reader.entries
        nextContinuationToken = reader.isTruncated ? reader.nextContinuationToken : nil
        if reader.isTruncated, nextContinuationToken?.isEmpty ?? true {
            throw Malformed(description: "a truncated listing without a continuation token")
        }
    }

    /// Collects the elements a listing needs, at their depth (a `Key` inside `Owner` or
    /// `CommonPrefixes` is no object's).
    private final class Reader: NSObject, XMLParserDelegate {
        var entries: [Entry] = []
        var isTruncated = false
        var nextContinuationToken: String?
        /// Whether `ListBucketResult` ended.
        var sawListing = false
        var problem: String?
        private var path: [String] = []
        private var text = ""
        private var key: String?
        private var size: Int?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            path.append(name)
            text = ""
            if path == ["ListBucketResult", "Contents"] { (key, size) = (nil, nil) }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch path {
            case ["ListBucketResult", "Contents", "Key"]: key = text
            case ["ListBucketResult", "Contents", "Size"]: size = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            case ["ListBucketResult", "Contents"]:
                if let key, let size, size >= 0 {
                    entries.append(Entry(key: key, size: size))
                } else if problem == nil {
                    problem = "an object without its key or size"
                }
            case ["ListBucketResult", "IsTruncated"]: isTruncated = text.trimmingCharacters(in: .whitespacesAndNewlines) == "true"
            case ["ListBucketResult", "NextContinuationToken"]: nextContinuationToken = text
            case ["ListBucketResult"]: sawListing = true            default: break
            }
            path.removeLast()
            text = ""
        }
    }
}
