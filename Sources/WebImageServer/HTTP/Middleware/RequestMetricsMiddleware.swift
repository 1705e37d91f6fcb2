import Hummingbird
import WebImage

/// Counts each image request in the server's metrics: requests in flight, requests by status
/// and output format (`none` for anything but an image), their duration and bytes sent.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        metrics.requestStarted()
        defer { metrics.requestEnded() }
        do {
            let response = try await next(request, context)
            let format = response.headers[.contentType].map { ImageFormat(mimeType: $0) } ?? .undefined
            record(status: Int(response.status.code), format: format == .undefined ? "none" : format.fileExtension,
                   bytes: response.body.contentLength ?? 0, started: started)
            return response
        } catch let failure as ImageRequestFailure {
            record(status: failure.error.status, format: "none", bytes: failure.response.body.contentLength ?? 0, started: started)
            throw failure
        }
    }

    private func record(status: Int, format: String, bytes: Int, started: ContinuousClock.Instant) {
        metrics.requests(status: status, format: format)
        metrics.requestDuration.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
        metrics.responseBytes.increment(by: bytes)
    }
}
