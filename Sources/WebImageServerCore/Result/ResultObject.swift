import Crypto
import Foundation
import NIOCore
import HTTPTypes

/// A result as an object in the shared store: its bytes as the body, `Content-Type` its
/// format's, and as user metadata (`x-amz-meta-*`) the `ResultMetadata` a hit answers with
/// (JSON, base64) and the SHA-256 of the bytes. A put carries `Content-MD5`, so that the store
/// refuses a body that arrived other than sent; a get is checked against the digest (and
/// `Content-Length`) before it is answered: an object cut short or altered is no result.
enum ResultObject {
    static let metadataField = "x-amz-meta-webimage-result"
    static let digestField = "x-amz-meta-webimage-sha256"

    /// The headers a put of `body` for a result with `metadata` carries.
    static func headers(metadata: ResultMetadata, body: Data) throws -> [(name: String, value: String)] {
        try headers(metadata: metadata, contentType: metadata.contentType, body: body)
    }

    /// The same for any object with metadata (a source's: `SourceStore.Metadata`).
    static func headers(metadata: some Encodable, contentType: String, body: Data) throws -> [(name: String, value: String)] {
        let json = try JSONEncoder().encode(metadata)
        return [
            ("Content-Type", contentType),
            ("Content-MD5", Data(Insecure.MD5.hash(data: body)).base64EncodedString()),
            (metadataField, json.base64EncodedString()),
            (digestField, SignatureV4.hex(SHA256.hash(data: body))),
        ]
    }

    /// Why an object read back is no result.
    enum Defect: Error, CustomStringConvertible {
        case noMetadata, lengthMismatch(expected: Int, got: Int), digestMismatch

        var description: String {
            switch self {
            case .noMetadata: "the object has no readable result metadata"
            case .lengthMismatch(let expected, let got): "the object has \(got) bytes for a Content-Length of \(expected)"
            case .digestMismatch: "the object's bytes do not match their SHA-256"
            }
        }
    }

    /// The result `body` and `headers` hold, checked whole.
    static func result(body: ByteBuffer, headers: HTTPFields) throws(Defect) -> StoredResult {
        StoredResult(body: body, metadata: try metadata(ResultMetadata.self, body: body, headers: headers))
    }

    /// The metadata of the object `body` and `headers` hold, once its bytes are checked whole.
    static func metadata<Metadata: Decodable>(_ type: Metadata.Type, body: ByteBuffer, headers: HTTPFields) throws(Defect) -> Metadata {
        let field = { (name: String) in HTTPField.Name(name).flatMap { headers[$0] } }
        guard let encoded = field(metadataField), let json = Data(base64Encoded: encoded),
              let metadata = try? JSONDecoder().decode(Metadata.self, from: json), let digest = field(digestField)
        else { throw .noMetadata }
        if let length = headers[.contentLength].flatMap(Int.init), length != body.readableBytes {
            throw .lengthMismatch(expected: length, got: body.readableBytes)
        }
        let actual = body.withUnsafeReadableBytes { SignatureV4.hex(SHA256.hash(data: $0)) }
        guard actual == digest.lowercased() else { throw .digestMismatch }
        return metadata
    }
}
