import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Changes a download's request before it is sent: SDWebImage's `SDWebImageDownloaderRequestModifier`.
/// Returning nil fails the download with `WebImageError.invalidDownloadOperation`.
public protocol DownloaderRequestModifierProtocol: Sendable {
    /// The request to send instead of `request`, or nil to send nothing.
    func modifiedRequest(with request: URLRequest) -> URLRequest?
}

/// Changes a download's response before it is checked: SDWebImage's `SDWebImageDownloaderResponseModifier`.
/// Returning nil fails the download with `WebImageError.invalidDownloadResponse`.
public protocol DownloaderResponseModifierProtocol: Sendable {
    /// The response to use instead of `response`, or nil to refuse it.
    func modifiedResponse(with response: HTTPURLResponse) -> HTTPURLResponse?
}

/// Turns a downloaded body into image data: SDWebImage's `SDWebImageDownloaderDecryptor`.
/// Returning nil fails the download with `WebImageError.badImageData`. A decryptor turns
/// progressive decoding off (partial bodies cannot be decrypted).
public protocol DownloaderDecryptorProtocol: Sendable {
    /// The image data within `data`, or nil.
    func decryptedData(with data: Data, response: HTTPURLResponse?) -> Data?
}

/// A request modifier from a closure.
public struct DownloaderRequestModifier: DownloaderRequestModifierProtocol {
    private let body: @Sendable (URLRequest) -> URLRequest?

    /// A modifier that runs `body`.
    public init(_ body: @escaping @Sendable (URLRequest) -> URLRequest?) {
        self.body = body
    }

    /// A modifier that sets `headers` on every request, replacing values already there.
    public init(headers: [String: String]) {
        self.init { request in
            var request = request
            for (field, value) in headers { request.setValue(value, forHTTPHeaderField: field) }
            return request
        }
    }

    /// A modifier that sets the method and body of every request.
    public init(method: String? = nil, body: Data? = nil) {
        self.init { request in
            var request = request
            if let method { request.httpMethod = method }
            if let body { request.httpBody = body }
            return request
        }
    }

    public func modifiedRequest(with request: URLRequest) -> URLRequest? {
        body(request)
    }
}

/// A response modifier from a closure.
public struct DownloaderResponseModifier: DownloaderResponseModifierProtocol {
    private let body: @Sendable (HTTPURLResponse) -> HTTPURLResponse?

    /// A modifier that runs `body`.
    public init(_ body: @escaping @Sendable (HTTPURLResponse) -> HTTPURLResponse?) {
        self.body = body
    }

    /// A modifier that answers a response with `statusCode` (default 200), HTTP/1.1 and exactly `headers`.
    public init(statusCode: Int = 200, version: String = "HTTP/1.1", headers: [String: String]) {
        self.init { response in
            response.url.flatMap { HTTPURLResponse(url: $0, statusCode: statusCode, httpVersion: version, headerFields: headers) }
        }
    }

    public func modifiedResponse(with response: HTTPURLResponse) -> HTTPURLResponse? {
        body(response)
    }
}

/// A decryptor from a closure.
public struct DownloaderDecryptor: DownloaderDecryptorProtocol {
    private let body: @Sendable (Data, HTTPURLResponse?) -> Data?

    /// A decryptor that runs `body`.
    public init(_ body: @escaping @Sendable (Data, HTTPURLResponse?) -> Data?) {
        self.body = body
    }

    /// Decodes a Base64 body; characters outside the alphabet (line breaks) are ignored, as in SDWebImage.
    public static let base64 = DownloaderDecryptor { data, _ in
        Data(base64Encoded: data, options: .ignoreUnknownCharacters).flatMap { $0.isEmpty ? nil : $0 }
    }

    public func decryptedData(with data: Data, response: HTTPURLResponse?) -> Data? {
        body(data, response)
    }
}
