/// Why a request got no image, with the status it answers and the short public text of its body.
/// The text never carries internal paths, addresses or library messages: those go to the log.
public struct ImageServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status code.
    public let status: Int
    /// The response body: a short sentence for the client.
    public let publicMessage: String
    /// What the log says: the reason, with details the client must not see.
    public let logMessage: String

    public init(status: Int, _ publicMessage: String, log logMessage: String? = nil) {
        self.status = status
        self.publicMessage = publicMessage
        self.logMessage = logMessage ?? publicMessage
    }

    public var description: String { "\(status) \(logMessage)" }

    /// 400: an option or its argument is wrong; `option` is named as written in the URL.
    public static func badOption(_ option: String, _ reason: String) -> ImageServerError {
        ImageServerError(status: 400, "Invalid option \(option): \(reason)")
    }

    /// 400: the path is not an image URL.
    public static func badPath(_ reason: String) -> ImageServerError {
        ImageServerError(status: 400, "Invalid URL: \(reason)")
    }

    /// 403: the signature does not match, or a signed URL has expired.
    public static func forbidden(_ reason: String) -> ImageServerError {
        ImageServerError(status: 403, "Forbidden", log: reason)
    }

    /// 404: the source is malformed, refused by policy, or not found.
    public static func invalidSource(log reason: String) -> ImageServerError {
        ImageServerError(status: 404, "Invalid source URL", log: reason)
    }

    /// 404: the source could not be fetched (the origin answered an error, or redirected too often).
    public static func sourceUnreachable(log reason: String) -> ImageServerError {
        ImageServerError(status: 404, "Source is unreachable", log: reason)
    }

    /// 422: the source is too large or cannot be read as an image.
    public static func unprocessable(_ publicMessage: String = "Invalid source image", log reason: String) -> ImageServerError {
        ImageServerError(status: 422, publicMessage, log: reason)
    }

    /// 429: every worker is busy and the queue is full.
    public static let tooManyRequests = ImageServerError(status: 429, "Too many requests")

    /// 503: processing (or waiting for a worker) took longer than the request timeout.
    public static let timeout = ImageServerError(status: 503, "Timeout")

    /// 504: the source did not arrive within the download timeout.
    public static func sourceTimeout(log reason: String) -> ImageServerError {
        ImageServerError(status: 504, "Source timeout", log: reason)
    }

    /// 500: anything else (a bug, or a resource the server lacks).
    public static func internalError(log reason: String) -> ImageServerError {
        ImageServerError(status: 500, "Internal error", log: reason)
    }
}
