import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What a request comes to, before it is written as a response.
enum Answer: Sendable {
    /// A result; `cache` says where it came from (memory, disk, miss). 304 when `ifNoneMatch`
    /// matches its entity tag.
    case result(ServedResult, request: ImageRequest, cache: String, ifNoneMatch: String?)
    /// 304 from the cached source's version, before any fetch.
    case notModified(entityTag: String, request: ImageRequest)
    case failure(ImageServerError)

    /// The result's format for the counters, "none" for anything else.
    var format: String {
        if case .result(let result, _, _, _) = self { return result.metadata.fileExtension }
        return "none"
    }

    var cache: String {
        switch self {
        case .result(_, _, let cache, _): cache
        case .notModified: "source"
        case .failure: "none"
        }
    }

    static let cacheField = HTTPField.Name("X-Cache")!

    func response(configuration: ImageServerConfiguration, requestID: String) -> Response {
        var headers: HTTPFields = [ImageServer.requestIDField: requestID]
        switch self {
        case .failure(let error):
            let body = ByteBuffer(string: error.publicMessage + "\n")
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.cacheControl] = "no-store"
            headers[.contentLength] = String(body.readableBytes)
            // A full queue frees within a processing time: ask to come back in a second.
            if error.status == 429 { headers[.retryAfter] = "1" }
            return Response(status: .init(code: error.status), headers: headers, body: ResponseBody(byteBuffer: body))
        case .notModified(let entityTag, let request):
            headers[.eTag] = entityTag
            headers[.cacheControl] = Self.cacheControl(request: request, metadata: nil, configuration: configuration)
            if request.variesWithAccept { headers[.vary] = "Accept" }
            return Response(status: .notModified, headers: headers)
        case .result(let result, let request, let cache, let ifNoneMatch):
            let metadata = result.metadata
            if configuration.usesETag { headers[.eTag] = metadata.entityTag }
            headers[.cacheControl] = Self.cacheControl(request: request, metadata: metadata, configuration: configuration)
            if configuration.cacheControlPassthrough, let expires = metadata.sourceExpires, metadata.sourceCacheControl == nil {
                headers[.expires] = expires
            }
            if let lastModified = metadata.lastModified { headers[.lastModified] = lastModified }
            if request.variesWithAccept { headers[.vary] = "Accept" }
            headers[Self.cacheField] = cache
            if configuration.usesETag, let ifNoneMatch, EntityTag.matches(ifNoneMatch: ifNoneMatch, metadata.entityTag) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = metadata.contentType
            headers[.contentLength] = String(result.body.readableBytes)
            headers[.contentDisposition] = Self.contentDisposition(request: request, fileExtension: metadata.fileExtension)
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: result.body))
        }
    }

    /// The source's own `Cache-Control` under `CACHE_CONTROL_PASSTHROUGH`, else
    /// `public, max-age=TTL`, capped by the URL's expiry.
    private static func cacheControl(request: ImageRequest, metadata: ResultMetadata?, configuration: ImageServerConfiguration) -> String {
        if configuration.cacheControlPassthrough, let passed = metadata?.sourceCacheControl { return passed }
        var maxAge = configuration.ttl
        if let expires = request.expires {
            maxAge = min(maxAge, max(0, Int(expires.timeIntervalSinceNow.rounded(.down))))
        }
        return "public, max-age=\(maxAge)"
    }

    /// `inline` (or `attachment`) with the file name the URL gave, else the source's, and the
    /// output's extension; characters outside printable ASCII and quotes are replaced.
    private static func contentDisposition(request: ImageRequest, fileExtension: String) -> String {
        var name = request.filename ?? ""
        if name.isEmpty {
            switch request.source {
            case .remote(let url): name = url.deletingPathExtension().lastPathComponent
            case .local(let path): name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            }
        }
        if name.isEmpty || name == "/" { name = "image" }
        let safe = String(name.unicodeScalars.map { (32..<127).contains($0.value) && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        return "\(request.isAttachment ? "attachment" : "inline"); filename=\"\(safe).\(fileExtension)\""
    }
}
