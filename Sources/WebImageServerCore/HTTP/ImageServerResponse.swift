import HTTPTypes
import NIOCore
import Tracing

/// The server's answer to an `ImageServerRequest`, for the adapter to write: the head (status and
/// every field, `Content-Length` included) and the body's bytes, which `writeBody(_:)` writes in
/// the request's `streaming_image` span when it is traced. A `HEAD` request's answer has the
/// fields a `GET` would get, `Content-Length` the image's, and no body.
public struct ImageServerResponse: Sendable {
    public var head: HTTPResponse
    /// The bytes to send (empty for `HEAD`, 304 and `OPTIONS`).
    public private(set) var body: ByteBuffer
    /// The request's trace context, taken when the answer was made: the body is written after
    /// the core has returned, outside the request's task-local context.
    private let traceContext: ServiceContext?

    init(status: HTTPResponse.Status, headerFields: HTTPFields, body: ByteBuffer = ByteBuffer(), traceContext: ServiceContext? = nil) {
        head = HTTPResponse(status: status, headerFields: headerFields)
        self.body = body
        self.traceContext = traceContext
    }

    /// Whether the request is traced: its body is then written through `writeBody(_:)`, in the
    /// request's `streaming_image` span. When not, an adapter hands `body` to its framework as it
    /// is (Hummingbird and Vapor write a whole buffer with the head, a closure's after it).
    public var isTraced: Bool { traceContext != nil }

    /// Writes the body with `write` (nothing when it is empty), in the request's `streaming_image`
    /// span when the request is traced.
    public func writeBody(_ write: (ByteBuffer) async throws -> Void) async throws {
        guard body.readableBytes > 0 else { return }
        try await RequestSpan.streamingImage.run(context: traceContext) { try await write(body) }
    }

    /// This answer as a `HEAD` request gets it: every field, no body.
    var withoutBody: ImageServerResponse {
        var response = self
        response.body = ByteBuffer()
        return response
    }

    /// A short `text/plain` (or `type`) answer that no cache keeps.
    static func text(_ text: String, status: HTTPResponse.Status, type: String = "text/plain; charset=utf-8", cacheControl: String = "no-store") -> Self {
        let body = ByteBuffer(string: text)
        var fields: HTTPFields = [.contentType: type, .cacheControl: cacheControl]
        fields[.contentLength] = String(body.readableBytes)
        return Self(status: status, headerFields: fields, body: body)
    }
}
