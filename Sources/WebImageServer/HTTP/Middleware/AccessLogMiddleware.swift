import HTTPTypes
import Hummingbird
import Logging

/// One line a request, on the request's logger (`context.logger`, level info): the request's ID
/// (in its metadata, from `RequestIDMiddleware`), status, the path without its signature, bytes,
/// duration, where the result came from (`X-Cache`: memory, disk, miss, source), and for a
/// failure its reason, which the client does not see.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Nothing is formatted when the line would not be written (`webimage serve` logs at
        // `error` unless told otherwise).
        guard context.logger.logLevel <= .info else { return try await next(request, context) }
        let started = ContinuousClock.now
        let logger = context.logger
        let path = ImagePath.logged(request, context: context)
        do {
            let response = try await next(request, context)
            let bytes = response.body.contentLength ?? 0
            let cache = response.headers[.xCache] ?? "none"
            log(logger, method: request.method, status: Int(response.status.code), path: path, bytes: bytes, cache: cache, started: started, reason: nil)
            return response
        } catch let failure as ImageRequestFailure {
            let bytes = failure.response.body.contentLength ?? 0
            log(
                logger, method: request.method, status: failure.error.status, path: path, bytes: bytes, cache: "none", started: started,
                reason: failure.error.description
            )
            throw failure
        }
    }

    private func log(_ logger: Logger, method: HTTPRequest.Method, status: Int, path: Substring, bytes: Int, cache: String, started: ContinuousClock.Instant, reason: String?) {
        var metadata: Logger.Metadata = [
            "status": "\(status)", "path": "\(path)", "bytes": "\(bytes)",
            "duration_ms": "\(Self.milliseconds(ContinuousClock.now - started))", "cache": "\(cache)",
        ]
        if let reason { metadata["reason"] = "\(reason)" }
        logger.info("\(method.rawValue) \(path) \(status)", metadata: metadata)
    }

    /// `duration` in milliseconds with one decimal (without `String(format:)`, which formats
    /// through CoreFoundation on Linux).
    static func milliseconds(_ duration: Duration) -> String {
        let tenths = (duration.nanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension Duration {
    /// The whole duration in nanoseconds, saturating at Int64's range.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? (whole < 0 ? .min : .max) : sum
    }
}
