import Tracing

/// The spans of an image request's work, named as imgproxy names its OpenTelemetry spans
/// (lowercase, its New Relic segments' names: "Queue", "Downloading image", …), children of the
/// request's span. Without a trace context in the task (no tracing middleware, no tracer) the
/// work runs as is, at no cost.
enum RequestSpan: String, Sendable {
    /// The wait for a worker slot (`WORKERS`, `REQUESTS_QUEUE_SIZE`).
    case queue = "queue"
    /// The source's fetch or read, from memory, disk, an origin or S3.
    case downloadingImage = "downloading_image"
    /// The processing of the source into the result.
    case processingImage = "processing_image"
    /// The response body's write to the client.
    case streamingImage = "streaming_image"

    /// Runs `body` in this span, a child of `context` (the task's by default), its attributes
    /// set by `attributes` first; an error `body` throws is recorded on the span.
    func run<T>(
        context: ServiceContext? = .current, attributes: (inout SpanAttributes) -> Void = { _ in },
        _ body: () async throws -> T
    ) async throws -> T {
        guard let context else { return try await body() }
        return try await withSpan(rawValue, context: context, ofKind: .internal) { span in
            span.updateAttributes(attributes)
            return try await body()
        }
    }

    /// Sets attributes of the request's span (the task's active span): imgproxy's
    /// `imgproxy.source_image_url` and the like.
    static func annotateRequest(_ attributes: (inout SpanAttributes) -> Void) {
        guard let context = ServiceContext.current, let span = InstrumentationSystem.tracer.activeSpan(identifiedBy: context) else { return }
        span.updateAttributes(attributes)
    }
}
