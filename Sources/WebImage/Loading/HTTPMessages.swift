import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Conversions between Foundation's request and response types, which users see, and
/// AsyncHTTPClient's, which do the work.
enum HTTPMessages {
    /// The client request for `request`, plus extra headers (range, validators).
    static func clientRequest(for request: URLRequest, extraHeaders: [(String, String)] = []) -> HTTPClientRequest? {
        guard let url = request.url?.absoluteString else { return nil }
        var clientRequest = HTTPClientRequest(url: url)
        clientRequest.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (field, value) in request.allHTTPHeaderFields ?? [:] {
            clientRequest.headers.replaceOrAdd(name: field, value: value)
        }
        for (field, value) in extraHeaders {
            clientRequest.headers.replaceOrAdd(name: field, value: value)
        }
        if let body = request.httpBody {
            clientRequest.body = .bytes(ByteBuffer(data: body))
        }
        return clientRequest
    }

    /// `request` with the cookies `storage` holds for `url` added to its `Cookie` header (after
    /// any the caller set), as `URLSession` sends them under `httpShouldHandleCookies`. Blocks:
    /// the storage's lock is held while it writes its file.
    static func adding(cookiesFrom storage: HTTPCookieStorage, for url: URL, to request: HTTPClientRequest) -> HTTPClientRequest {
        BlockingCheck.note(url.absoluteString)
        guard let stored = storage.cookies(for: url), !stored.isEmpty,
              let header = HTTPCookie.requestHeaderFields(with: stored)["Cookie"]
        else { return request }
        var request = request
        let own = request.headers["Cookie"].joined(separator: "; ")
        request.headers.replaceOrAdd(name: "Cookie", value: own.isEmpty ? header : own + "; " + header)
        return request
    }

    /// Keeps the cookies a response sets (its `Set-Cookie` fields) in `storage`, under its
    /// accept policy, as `URLSession` does. Blocks: the shared storage writes its file.
    static func storeCookies(_ setCookieFields: [String], from url: URL, in storage: HTTPCookieStorage) {
        BlockingCheck.note(url.absoluteString)
        let cookies = setCookieFields.flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url) }
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }

    /// The Foundation response for a client response from `url` (the last URL after redirects).
    static func urlResponse(for response: HTTPClientResponse, url: URL) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        for (name, value) in response.headers {
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        let version = response.version.major >= 2 ? "HTTP/2" : "HTTP/\(response.version.major).\(response.version.minor)"
        return HTTPURLResponse(url: url, statusCode: Int(response.status.code), httpVersion: version, headerFields: fields)
    }

    /// The `Content-Length` of `response`, when it states one.
    static func contentLength(of response: HTTPURLResponse) -> Int? {
        response.value(forHTTPHeaderField: "Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The MIME type of `response` without parameters, lower-cased.
    static func mimeType(of response: HTTPURLResponse) -> String? {
        response.value(forHTTPHeaderField: "Content-Type")?
            .split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// The first byte of a `Content-Range: bytes FIRST-LAST/TOTAL` header.
    static func contentRangeStart(of response: HTTPURLResponse) -> Int? {
        guard let value = response.value(forHTTPHeaderField: "Content-Range"),
              value.lowercased().hasPrefix("bytes ")
        else { return nil }
        let range = value.dropFirst(6).prefix { $0 != "/" }
        return range.split(separator: "-").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The client's failure as the `URLError` a Foundation user expects, with the client's own
    /// error as `underlyingError`.
    static func urlError(for error: any Error, url: URL?) -> URLError {
        var userInfo: [String: Any] = [NSUnderlyingErrorKey: error as NSError, NSLocalizedDescriptionKey: "\(error)"]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(code(for: error), userInfo: userInfo)
    }

    private static func code(for error: any Error) -> URLError.Code {
        switch error {
        case let error as URLError:
            return error.code
        case let error as HTTPClientError:
            switch error {
            case .readTimeout, .connectTimeout, .deadlineExceeded, .writeTimeout, .getConnectionFromPoolTimeout:
                return .timedOut
            case .tlsHandshakeTimeout:
                return .secureConnectionFailed
            case .remoteConnectionClosed, .uncleanShutdown, .bodyLengthMismatch:
                return .networkConnectionLost
            case .redirectLimitReached, .redirectCycleDetected:
                return .httpTooManyRedirects
            case .invalidURL, .emptyHost, .emptyScheme:
                return .unsupportedURL
            case .cancelled:
                return .cancelled
            default:
                return .badServerResponse
            }
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil { return .cannotFindHost }
            if let first = error.connectionErrors.first { return code(for: first.error) }
            return .cannotConnectToHost
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: return .cannotConnectToHost
            case ECONNRESET, EPIPE: return .networkConnectionLost
            case ETIMEDOUT: return .timedOut
            default: return .cannotConnectToHost
            }
        case is ChannelError:
            return .networkConnectionLost
        case let error as HTTPParserError:
            // A connection closed in the middle of a body ends the parse early.
            return error == .invalidEOFState ? .networkConnectionLost : .badServerResponse
        case is NIOSSLError, is BoringSSLError:
            return .secureConnectionFailed
        case is SocketAddressError:
            return .cannotFindHost
        default:
            return .unknown
        }
    }
}
