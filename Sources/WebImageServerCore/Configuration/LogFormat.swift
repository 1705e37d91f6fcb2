/// The forms of a log line, imgproxy's `LOG_FORMAT`s (`ImageServerLogHandler` writes them).
public enum LogFormat: String, CaseIterable, Sendable {
    /// `time="2026-11-28 07:55:32" level="INFO" msg="GET /… 200" status=200 …`: imgproxy's default.
    case structured
    /// `2026-11-28 07:55:32 INFO GET /… 200 status=200 …`, for a person at a terminal.
    case pretty
    /// `{"time":"2026-11-28T07:55:32Z","level":"INFO","msg":"GET /… 200","status":200,…}`.
    case json
    /// JSON with Google Cloud Logging's names: `severity` and `message`.
    case gcp
}
