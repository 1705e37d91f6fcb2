import Foundation
import Hummingbird
import WebImage

/// A result ready to send: its bytes and what the response says of them. Held in memory by the
/// result store; on disk as the bytes plus `ResultMetadata` in the entry's extended data.
public final class ServedResult: Sendable {
    /// The encoded image, in the buffer the response sends (a memory hit copies nothing).
    public let body: ByteBuffer
    public let metadata: ResultMetadata

    public init(body: ByteBuffer, metadata: ResultMetadata) {
        self.body = body
        self.metadata = metadata
    }

    /// Bytes held in memory: the cost in the result store's memory tier.
    var cost: Int { body.readableBytes + 256 }
}

/// What a result's response says besides its bytes.
public struct ResultMetadata: Sendable, Codable, Equatable {
    /// The output format's MIME type (`Content-Type`).
    public var contentType: String
    /// The output format's file extension, for `Content-Disposition`.
    public var fileExtension: String
    /// The entity tag: from the source's validator (or its bytes) and the result key.
    public var entityTag: String
    /// The source's `Last-Modified`, passed through.
    public var lastModified: String?
    /// The source's `Cache-Control` and `Expires`, for `CACHE_CONTROL_PASSTHROUGH`.
    public var sourceCacheControl: String?
    public var sourceExpires: String?

    public init(
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
