// What the shared store answers, read back: a ListObjectsV2 page (`S3ObjectListing`, through
// FoundationXML's libxml2) and a result object (`ResultObject`: its metadata and digest checked
// against its bytes). The input is a listing; split at its first empty line, it is also an
// object's header fields (a line each, `name: value`) and its body. A listing read must hold
// what a listing may, and written again must read back the same; an object taken must match its
// digest, and a result put must read back as itself.
import Crypto
import Foundation
import HTTPTypes
import NIOCore
@testable import WebImageServerCore
import FuzzerMain

/// Whether every scalar of `text` is one XML 1.0 can carry.
func isXMLText(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy {
        $0 == "\t" || $0 == "\n" || $0 == "\r" || (0x20...0xD7FF).contains($0.value) || (0xE000...0xFFFD).contains($0.value) || $0.value >= 0x10000
    }
}

/// `text` as XML character data: markup escaped, a carriage return as a reference (a parser
/// reads a raw one as a line feed).
func escaped(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\r": out += "&#13;"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

func checkListing(_ data: Data) {
    guard let listing = try? S3ObjectListing(xml: data) else { return }
    precondition(listing.entries.allSatisfy { $0.size >= 0 }, "a negative size")
    precondition(listing.nextContinuationToken.map { !$0.isEmpty } ?? true, "an empty continuation token")
    let texts = listing.entries.map(\.key) + [listing.nextContinuationToken].compactMap { $0 }
    guard texts.allSatisfy(isXMLText) else { return }
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult>"
    for entry in listing.entries { xml += "<Contents><Key>\(escaped(entry.key))</Key><Size>\(entry.size)</Size></Contents>" }
    if let token = listing.nextContinuationToken {
        xml += "<IsTruncated>true</IsTruncated><NextContinuationToken>\(escaped(token))</NextContinuationToken>"
    }
    xml += "</ListBucketResult>"
    let again = try? S3ObjectListing(xml: Data(xml.utf8))
    precondition(again == listing, "\(listing) written as \(xml) reads back as \(String(describing: again))")
}

func checkObject(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let split = text.range(of: "\n\n") else { return }
    var fields = HTTPFields()
    for line in text[..<split.lowerBound].split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
        fields.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
    let body = ByteBuffer(string: String(text[split.upperBound...]))
    guard let stored = try? ResultObject.result(body: body, headers: fields) else { return }
    let digest = body.withUnsafeReadableBytes { SignatureV4.hex(SHA256.hash(data: $0)) }
    precondition(fields[HTTPField.Name(ResultObject.digestField)!]?.lowercased() == digest, "taken with another digest")
    // What a put of this result would carry reads back as the same result.
    let bodyData = Data(buffer: body)
    guard let headers = try? ResultObject.headers(metadata: stored.metadata, body: bodyData) else { return }
    var put = HTTPFields()
    for (name, value) in headers { if let name = HTTPField.Name(name) { put.append(HTTPField(name: name, value: value)) } }
    let again = try? ResultObject.result(body: body, headers: put)
    precondition(again?.metadata == stored.metadata, "a put of \(stored.metadata) reads back as \(String(describing: again?.metadata))")
}

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: bytes, count: count)
    checkListing(Data(buffer))
    checkObject(Array(buffer))
    return 0
}
