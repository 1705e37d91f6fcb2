import HTTPTypes
import Hummingbird
import Logging

/// One line a request, on the request's logger (`context.logger`, level info): the request's ID
/// (in its metadata, from `RequestIDMiddleware`), status, the path without its signature, bytes,
/// duration, where the result came from (`X-Cache`: memory, disk, miss, source), and for a
/// failure its reason, which the client does not see.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Nothing is formatted when the line would not be written (`LOG_LEVEL` above `info`,
        // or a host's logger at a higher level).
        guard context.logger.logLevel <= .info else { return try await next(request, context) }
        let started = ContinuousClock.now
        let logger = context.logger
        let path = ImagePath.logged(request, context: context)
        do {
            let response = try await next(request, context)
            let bytes = response.body.contentLength ?? 0
            let cache = response.headers[.xCache] ?? "none"
            AccessLine(method: request.method, status: Int(response.status.code), path: path, bytes: bytes, cache: cache, duration: ContinuousClock.now - started)
                .write(to: logger)
            return response
        } catch let failure as ImageRequestFailure {
            let bytes = failure.response.body.contentLength ?? 0
            AccessLine(
                method: request.method, status: failure.error.status, path: path, bytes: bytes, cache: "none",
                duration: ContinuousClock.now - started, reason: failure.error.description
            ).write(to: logger)
            throw failure
        }
    }
}

/// One request's access line.
struct AccessLine {
    var method: HTTPRequest.Method
    var status: Int
    var path: Substring
    var bytes: Int
    var cache: String
    var duration: Duration
    var reason: String? = nil

    /// `GET /rs:fit:300:200/plain/... 200`
    var message: String { "\(method.rawValue) \(path) \(status)" }

    /// The line's own fields, in key order.
    var fields: [LogField] {
        var fields = [
            LogField("bytes", String(bytes)), LogField("cache", cache), LogField("duration_ms", Self.milliseconds(duration)),
            LogField("path", String(path)),
        ]
        if let reason { fields.append(LogField("reason", reason)) }
        fields.append(LogField("status", String(status)))
        return fields
    }

    /// Logs the line at `info` on `logger`: the server's own handler takes the fields as they are
    /// (no metadata dictionary made and hashed a request); any other gets them as metadata.
    func write(to logger: Logger) {
        if let handler = logger.handler as? ImageServerLogHandler, handler.logLevel <= .info {
            handler.log(level: .info, message: message, fields: fields)
        } else {
            logger.info("\(message)", metadata: Logger.Metadata(uniqueKeysWithValues: fields.map { ($0.key, .string($0.text)) }))
        }
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
