import Foundation
import Hummingbird
import WebImage

/// A result as the result store keeps it: its bytes and what the response says of them. Held in
/// memory as it is; on disk as the bytes plus `ResultMetadata` in the entry's extended data.
final class StoredResult: Sendable {
    /// The encoded image, in the buffer the response sends (a memory hit copies nothing).
    let body: ByteBuffer
    let metadata: ResultMetadata

    init(body: ByteBuffer, metadata: ResultMetadata) {
        self.body = body
        self.metadata = metadata
    }

    /// Bytes held in memory: the cost in the result store's memory tier.
    var cost: Int { body.readableBytes + 256 }
}

/// What a result's response says besides its bytes.
struct ResultMetadata: Sendable, Codable, Equatable {
    /// The output format's MIME type (`Content-Type`).
    var contentType: String
    /// The output format's file extension, for `Content-Disposition`.
    var fileExtension: String
    /// The entity tag: from the source's validator (or its bytes) and the result key.
    var entityTag: String
    /// The source's `Last-Modified`, passed through.
    var lastModified: String?
    /// The source's `Cache-Control` and `Expires`, for `CACHE_CONTROL_PASSTHROUGH`.
    var sourceCacheControl: String?
    var sourceExpires: String?

    init(
        contentType: String, fileExtension: String, entityTag: String, lastModified: String? = nil,
        sourceCacheControl: String? = nil, sourceExpires: String? = nil
    ) {
        self.contentType = contentType
        self.fileExtension = fileExtension
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.sourceCacheControl = sourceCacheControl
        self.sourceExpires = sourceExpires
    }
}
