import Foundation

/// Loads `data:` URLs (RFC 2397): base64 or percent-encoded payloads. A MIME type that is not
/// an image type (`image/...`; an empty one counts as `text/plain`) fails with
/// `.invalidDownloadContentType`, a malformed URL with `.invalidURL`.
public struct DataURLImageLoader: ImageLoader {
    /// The loader.
    public init() {}

    public func canRequestImage(for url: URL?) -> Bool {
        url?.scheme?.lowercased() == "data"
    }

    @discardableResult
    public func requestImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext?,
        progress: ImageLoaderProgress?, completed: ImageLoaderCompletion?
    ) -> (any WebImageOperation)? {
        guard let url, canRequestImage(for: url) else {
            completed?(nil, nil, WebImageError.invalidURL, true)
            return nil
        }
        return LocalLoadOperation.start(url: url, options: options, context: context, progress: progress, completed: completed) {
            try Self.payload(of: url.absoluteString)
        }
    }

    /// The bytes of a `data:` URL whose MIME type is an image type.
    static func payload(of string: String) throws -> Data {
        guard string.count > 5, string.prefix(5).lowercased() == "data:", let comma = string.firstIndex(of: ",") else {
            throw WebImageError.invalidURL
        }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let parameters = header.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let mimeType = parameters.first?.lowercased() ?? ""
        guard mimeType.hasPrefix("image/") else {
            throw WebImageError.invalidDownloadContentType(mimeType: mimeType.isEmpty ? "text/plain" : mimeType, response: nil)
        }
        let body = String(string[string.index(after: comma)...])
        if parameters.dropFirst().contains(where: { $0.lowercased() == "base64" }) {
            let text = body.removingPercentEncoding ?? body
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { throw WebImageError.badImageData }
            return data
        }
        return try percentDecoded(body)
    }

    /// The bytes of a percent-encoded payload (binary bytes included, which `removingPercentEncoding` refuses).
    private static func percentDecoded(_ text: String) throws -> Data {
        var bytes = Data()
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard input.count >= 2, let high = hexValue(input.removeFirst()), let low = hexValue(input.removeFirst()) else {
                throw WebImageError.badImageData
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The same URL always holds the same bytes: only cancellations do not block.
    public func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool {
        (error as? WebImageError) != .cancelled
    }
}
