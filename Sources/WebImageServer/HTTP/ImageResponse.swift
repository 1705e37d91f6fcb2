import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The responses image requests get: a result (or 304 when its entity tag matches), a 304 from
/// the stored source's version, or a failure. Every header the server sends with an image is
/// written here.
enum ImageResponse {
    /// `result`, which came from `cache` (memory, disk, miss); 304 when `ifNoneMatch` matches
    /// its entity tag.
    static func result(
        _ result: StoredResult, job: ImageJob, cache: String, ifNoneMatch: String?, configuration: ImageServerConfiguration
    ) -> Response {
        let metadata = result.metadata
        var headers = HTTPFields()
        if configuration.usesETag { headers[.eTag] = metadata.entityTag }
        headers[.cacheControl] = cacheControl(job: job, metadata: metadata, configuration: configuration)
        if configuration.cacheControlPassthrough, let expires = metadata.sourceExpires, metadata.sourceCacheControl == nil {
            headers[.expires] = expires
        }
        if let lastModified = metadata.lastModified { headers[.lastModified] = lastModified }
        if job.format.variesWithAccept { headers[.vary] = "Accept" }
        headers[ImageServer.cacheField] = cache
        if configuration.usesETag, EntityTag.notModified(ifNoneMatch: ifNoneMatch, metadata.entityTag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = metadata.contentType
        headers[.contentLength] = String(result.body.readableBytes)
        headers[.contentDisposition] = contentDisposition(job: job, fileExtension: metadata.fileExtension)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: result.body))
    }

    /// 304 with `entityTag`, decided before the result was looked for or made.
    static func notModified(entityTag: String, job: ImageJob, cache: String, configuration: ImageServerConfiguration) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = entityTag
        headers[.cacheControl] = cacheControl(job: job, metadata: nil, configuration: configuration)
        if job.format.variesWithAccept { headers[.vary] = "Accept" }
        headers[ImageServer.cacheField] = cache
        return Response(status: .notModified, headers: headers)
    }

    /// `error`'s status with its public message, never cached.
    static func failure(_ error: ImageServerError) -> Response {
        let body = ByteBuffer(string: error.publicMessage + "\n")
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
        headers[.contentLength] = String(body.readableBytes)
        // A full queue frees within a processing time: ask to come back in a second.
        if error.status == 429 { headers[.retryAfter] = "1" }
        return Response(status: .init(code: error.status), headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// The source's own `Cache-Control` under `CACHE_CONTROL_PASSTHROUGH`, else
    /// `public, max-age=TTL`, capped by the URL's expiry.
    private static func cacheControl(job: ImageJob, metadata: ResultMetadata?, configuration: ImageServerConfiguration) -> String {
        if configuration.cacheControlPassthrough, let passed = metadata?.sourceCacheControl { return passed }
        var maxAge = configuration.ttl
        if let expires = job.request.expires {
            maxAge = min(maxAge, max(0, Int(expires.timeIntervalSinceNow.rounded(.down))))
        }
        return "public, max-age=\(maxAge)"
    }

    /// `inline` (or `attachment`) with the file name the URL gave, else the source's, and the
    /// output's extension; characters outside printable ASCII and quotes are replaced.
    private static func contentDisposition(job: ImageJob, fileExtension: String) -> String {
        let options = job.request.options
        var name = options.filename ?? ""
        if name.isEmpty {
            switch job.request.source {
            case .remote(let url): name = url.deletingPathExtension().lastPathComponent
            case .local(let path): name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            case .s3(let object): name = URL(fileURLWithPath: object.key).deletingPathExtension().lastPathComponent
            }
        }
        if name.isEmpty || name == "/" { name = "image" }
        let safe = String(name.unicodeScalars.map { (32..<127).contains($0.value) && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        return "\(options.returnAttachment ? "attachment" : "inline"); filename=\"\(safe).\(fileExtension)\""
    }
}
