import WebImage

/// Why an image request failed, with the HTTP status it maps to (the serving side answers
/// with `status` and `publicMessage` and logs `description`). `publicMessage` is what a
/// client may see (short, no paths or addresses); `description` has the details for the log.
public enum ImageServerError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: 400

    /// A processing option the server does not know, named as written in the URL.
    case unknownOption(String)
    /// A processing option with arguments it does not take: the option as written, and why.
    case invalidOption(String, reason: String)

    // MARK: 403

    /// The signature does not match the path under any configured key.
    case invalidSignature
    /// With signing off, the signature segment holds a `:`: the URL probably lacks its
    /// signature segment (imgproxy's check).
    case signatureLooksLikeOption
    /// The URL's `expires` time has passed.
    case expired
    /// A security option (`max_src_resolution`, ...) while the configuration does not allow them.
    case securityOptionNotAllowed(String)
    /// The request lacks `Authorization: Bearer` with the configured secret (`SECRET`).
    case invalidSecret

    // MARK: 404

    /// The path is not `/{signature}/{options}/{source}`.
    case invalidPath(String)
    /// An option, named as written, that `ALLOWED_PROCESSING_OPTIONS` does not list (imgproxy's 404).
    case optionNotAllowed(String)
    /// The source cannot be decoded from the path (bad escape, bad base64, two extensions, empty).
    case invalidSource(String)
    /// The source's scheme is unknown or not enabled.
    case unsupportedSourceScheme(String)
    /// The source is refused by policy: `ALLOWED_SOURCES`, or the downloader's source guard
    /// (an address that is loopback, private, link-local, ...). The client never learns which.
    case sourceRefused(String)
    /// The origin answered an error, or redirected too often, or could not be reached.
    case sourceUnreachable(String)

    // MARK: 422

    /// The source is not an image the server reads, or it is corrupt.
    case unreadableSource(String)
    /// The source is over a limit (pixels, frames, file size), found before decoding pixels.
    case sourceTooLarge(String)
    /// The output format cannot be written (SVG, PDF, ...), or encoding failed.
    case unsupportedOutputFormat(String)
    /// The source's bytes do not have the digest the URL's `hashsum` names.
    case sourceHashsumMismatch(String)

    // MARK: 429, 499, 5xx: the serving side

    /// Every worker is busy and the queue is full.
    case tooManyRequests
    /// The client went away before the answer (logged only: nobody reads the response).
    case clientClosed
    /// Anything else: a bug, or a resource the server lacks.
    case internalError(String)
    /// Processing (or waiting for a worker) took longer than the request timeout.
    case timeout
    /// The source did not arrive within the download timeout.
    case sourceTimeout(String)

    /// The HTTP status: 400 bad options, 403 signature, expiry or security option, 404 bad or
    /// refused source, 422 an image that cannot be read, is too large or cannot be made.
    public var status: Int {
        switch self {
        case .unknownOption, .invalidOption: 400
        case .invalidSignature, .signatureLooksLikeOption, .expired, .securityOptionNotAllowed, .invalidSecret: 403
        case .invalidPath, .optionNotAllowed, .invalidSource, .unsupportedSourceScheme, .sourceRefused, .sourceUnreachable: 404
        case .unreadableSource, .sourceTooLarge, .unsupportedOutputFormat, .sourceHashsumMismatch: 422
        case .tooManyRequests: 429
        case .clientClosed: 499
        case .internalError: 500
        case .timeout: 503
        case .sourceTimeout: 504
        }
    }

    /// The response body: short, naming the option when the URL is at fault, and never a
    /// source address, a path on disk or a codec's message.
    public var publicMessage: String {
        switch self {
        case .unknownOption(let name): "Unknown processing option: \(name)"
        case let .invalidOption(name, reason): "Invalid \(name): \(reason)"
        case .invalidSignature: "Invalid signature"
        case .signatureLooksLikeOption: "Invalid signature: the signature appears to be a processing option"
        case .expired: "Expired URL"
        case .securityOptionNotAllowed(let name): "Security processing options are not allowed: \(name)"
        case .invalidSecret: "Forbidden"
        case .invalidPath: "Invalid URL"
        case .optionNotAllowed(let name): "Processing option not allowed: \(name)"
        case .invalidSource, .unsupportedSourceScheme, .sourceRefused: "Invalid source URL"
        case .sourceUnreachable: "Source is unreachable"
        case .unreadableSource: "Broken or unsupported image"
        case .sourceTooLarge: "Source image is too large"
        case .unsupportedOutputFormat: "Unsupported output format"
        case .sourceHashsumMismatch: "Source image hashsum mismatch"
        case .tooManyRequests: "Too many requests"
        case .clientClosed: "Client closed the request"
        case .internalError: "Internal error"
        case .timeout: "Timeout"
        case .sourceTimeout: "Source timeout"
        }
    }

    public var description: String {
        switch self {
        case .invalidPath(let detail), .invalidSource(let detail), .unreadableSource(let detail), .sourceTooLarge(let detail),
             .sourceRefused(let detail), .sourceUnreachable(let detail), .internalError(let detail), .sourceTimeout(let detail):
            "\(publicMessage): \(detail)"
        case .unsupportedSourceScheme(let scheme): "\(publicMessage): scheme \(scheme) is not enabled"
        case .unsupportedOutputFormat(let detail): "\(publicMessage): \(detail)"
        default: publicMessage
        }
    }
}
