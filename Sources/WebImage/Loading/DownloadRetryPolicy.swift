import Foundation

/// When and how long to wait before trying a failed download again. Transient failures are
/// retried: a dropped or reset connection, a timeout, 408, 429 and 5xx. Other 4xx, TLS failures,
/// refused connections and unknown hosts are not.
public struct DownloadRetryPolicy: Sendable, Equatable {
    /// Attempts after the first (default 2; 0 turns retries off).
    public var maxRetryCount: Int
    /// The wait before the first retry; each further retry doubles it (default 0.5 s).
    public var baseDelay: TimeInterval
    /// No wait is longer than this, `Retry-After` included (default 30 s).
    public var maxDelay: TimeInterval
    /// Each wait is drawn from `(1 - jitter) * delay ... delay` so that many clients do not retry
    /// in step (default 0.5; 0 for exact waits).
    public var jitter: Double

    /// A policy; the defaults retry twice after 0.5 s and 1 s (minus jitter).
    public init(maxRetryCount: Int = 2, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 30, jitter: Double = 0.5) {
        self.maxRetryCount = max(0, maxRetryCount)
        self.baseDelay = baseDelay.isFinite ? max(0, baseDelay) : 0
        self.maxDelay = maxDelay.isFinite ? max(0, maxDelay) : 30
        self.jitter = jitter.isFinite ? min(1, max(0, jitter)) : 0
    }

    /// No retries.
    public static let none = DownloadRetryPolicy(maxRetryCount: 0)

    /// True for statuses worth another attempt: 408, 429 and 5xx.
    static func isTransient(statusCode: Int) -> Bool {
        statusCode == 408 || statusCode == 429 || (500..<600).contains(statusCode)
    }

    /// The wait before retry number `retry` (0 for the first): the server's `Retry-After` when it
    /// sent one, else exponential backoff with jitter; capped at `maxDelay`.
    func delay(beforeRetry retry: Int, retryAfter: TimeInterval?) -> TimeInterval {
        if let retryAfter { return min(maxDelay, max(0, retryAfter)) }
        let exponential = baseDelay * pow(2, Double(min(retry, 30)))
        let capped = min(maxDelay, exponential)
        return capped * (1 - jitter * Double.random(in: 0...1))
    }

    /// A `Retry-After` value in seconds: delta-seconds, or an HTTP date relative to `now`.
    static func retryAfterSeconds(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? TimeInterval(seconds) : nil }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// HTTP dates (RFC 9110: IMF-fixdate, and the obsolete RFC 850 and asctime forms).
enum HTTPDate {
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    static func parse(_ text: String) -> Date? {
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
