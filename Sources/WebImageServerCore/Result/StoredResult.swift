import Foundation
import NIOCore
import WebImage
import WebImageSupport

/// A result as the result store keeps it: its bytes and what the response says of them. Held in
/// memory as it is; on disk as the bytes plus `ResultMetadata` in the entry's extended data.
final class StoredResult: Sendable {
    /// The encoded image, in the buffer the response sends (a memory hit copies nothing).
    let body: ByteBuffer
    let metadata: ResultMetadata
    /// The `Content-Disposition` of requests that name no file and want no attachment (the
    /// name then comes from the source, which the key holds), made by the first of them.
    private let inlineDisposition = Locked<String?>(nil)

    init(body: ByteBuffer, metadata: ResultMetadata) {
        self.body = body
        self.metadata = metadata
    }

    /// The inline `Content-Disposition`: `make`'s, the first time.
    func inlineDisposition(_ make: () -> String) -> String {
        if let made = inlineDisposition.withLock({ $0 }) { return made }
        let made = make()
        inlineDisposition.withLock { $0 = made }
        return made
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
    /// The result's size, and what the source's limits were checked against when it was made;
    /// nil in entries written before they were kept, and `sourceFacts` nil for `raw`.
    var pixelWidth: Int?
    var pixelHeight: Int?
    var sourceFacts: SourceFacts?

    /// Throws what making the result under `options` would have: 422 when the source is over
    /// one of their source limits. Those limits are not in the result's key, so a result made
    /// under looser ones is checked here (`max_result_dimension` is in the key: it shrinks the
    /// result rather than refusing it).
    func check(_ options: ProcessingOptions) throws(ImageServerError) {
        guard !options.raw else { return }
        try sourceFacts?.check(options)
    }
}
