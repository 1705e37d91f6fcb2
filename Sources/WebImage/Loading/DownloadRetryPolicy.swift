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
    /// Resumes that follow progress: a body that broke off after bringing new bytes since the
    /// last attempt resumes at once, without spending a retry or waiting (default 100). Beyond
    /// this count such resumes are retries. They are bounded besides by the download's stall
    /// bound and deadline, and by its response size limit.
    public var maxResumeCount: Int

    /// A policy; the defaults retry twice after 0.5 s and 1 s (minus jitter), and resume up to
    /// 100 times a body that keeps breaking off after new bytes.
    public init(
        maxRetryCount: Int = 2, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 30, jitter: Double = 0.5,
        maxResumeCount: Int = 100
    ) {
        self.maxRetryCount = max(0, maxRetryCount)
        self.maxResumeCount = max(0, maxResumeCount)
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

/// HTTP dates (RFC 9110): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete RFC 850
/// `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994` forms. Parsed by hand:
/// Foundation's `DateFormatter` on Linux leaks a character set on every parse (found by the
/// `loading` fuzz target), and a server's header is parsed on each retry.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Date? {
        let tokens = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" })
        var day: Int?, month: Int?, year: Int?, time: [Int]?
        for token in tokens {
            if let index = months.firstIndex(of: String(token)) {
                month = index
            } else if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3 else { return nil }
                time = parts
            } else if let number = Int(token) {
                if day == nil, token.count <= 2, year == nil || month != nil {
                    day = number
                } else {
                    year = token.count == 2 ? (number < 70 ? 2000 + number : 1900 + number) : number
                }
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day), (1601...9999).contains(year),
              (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
        let y = month < 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 10) % 12) + 2) / 5 + day - 1   // March = 0
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + time[0] * 3_600 + time[1] * 60 + time[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
