import HTTPTypes
import Logging

/// One image request's access line, on the request's logger (level info): its ID (in the
/// logger's metadata), status, the path without its signature, bytes, duration, where the result
/// came from (`X-Cache`: memory, disk, miss, source), and for a failure its reason, which the
/// client does not see.
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
