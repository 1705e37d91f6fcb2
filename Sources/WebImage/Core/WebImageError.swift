import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a load failed: SDWebImage's `SDWebImageErrorDomain` codes. Transport failures (timeout,
/// refused or dropped connection, unknown host, TLS, redirect limits) are not among these: they
/// arrive as Foundation's `URLError`, with the HTTP client's own error as `underlyingError`.
public enum WebImageError: Error, Sendable, Equatable {
    /// The URL is nil, empty, or of a scheme no loader handles.
    case invalidURL
    /// The body is empty, does not decode, or the decryptor returned nil.
    case badImageData
    /// The server answered 304 to a request made with validators: the cached copy is current.
    case cacheNotModified
    /// The URL failed before with an error that will not go away (the manager's failed-URL list).
    case blackListed
    /// The cache had nothing and the load was kept from the loader (`.fromCacheOnly`, or
    /// `shouldDownloadImage` said no). swift-webimage's addition, thrown by the async forms only:
    /// the callback forms complete with neither image nor error, as SDWebImage does.
    case notInCache
    /// The request modifier returned nil, or the request could not be built.
    case invalidDownloadOperation
    /// The status is outside the downloader's `acceptableStatusCodes`.
    case invalidDownloadStatusCode(statusCode: Int, response: HTTPURLResponse?)
    /// The caller cancelled the load.
    case cancelled
    /// The response modifier returned nil.
    case invalidDownloadResponse
    /// The MIME type is outside the downloader's `acceptableContentTypes`.
    case invalidDownloadContentType(mimeType: String?, response: HTTPURLResponse?)
    /// The downloader's source guard refused a hop of the download (swift-webimage's addition,
    /// code 2005): its scheme, its host, or an address it resolves to. Nothing was sent there.
    case sourceRefused(SourceRefusal)

    /// SDWebImage's numeric code.
    public var code: Int {
        switch self {
        case .invalidURL: 1000
        case .badImageData: 1001
        case .cacheNotModified: 1002
        case .blackListed: 1003
        case .notInCache: 1004
        case .invalidDownloadOperation: 2000
        case .invalidDownloadStatusCode: 2001
        case .cancelled: 2002
        case .invalidDownloadResponse: 2003
        case .invalidDownloadContentType: 2004
        case .sourceRefused: 2005
        }
    }

    /// Errors are equal when their codes, status codes and MIME types are (responses are not compared).
    public static func == (lhs: WebImageError, rhs: WebImageError) -> Bool {
        switch (lhs, rhs) {
        case let (.invalidDownloadStatusCode(a, _), .invalidDownloadStatusCode(b, _)): a == b
        case let (.invalidDownloadContentType(a, _), .invalidDownloadContentType(b, _)): a == b
        default: lhs.code == rhs.code
        }
    }
}

extension WebImageError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .invalidURL: "invalid URL"
        case .badImageData: "the data is not an image"
        case .cacheNotModified: "not modified since the cached copy"
        case .blackListed: "the URL failed before"
        case .notInCache: "not in the cache, and not loaded"
        case .invalidDownloadOperation: "the request could not be made"
        case .invalidDownloadStatusCode(let status, _): "HTTP \(status)"
        case .cancelled: "cancelled"
        case .invalidDownloadResponse: "the response was refused"
        case .invalidDownloadContentType(let type, _): "unacceptable content type \(type ?? "(none)")"
        case .sourceRefused: "the source was refused"
        }
    }
}

// HTTPURLResponse is an immutable class in practice: the loaders never mutate one after making it.
extension HTTPURLResponse: @retroactive @unchecked Sendable {}
