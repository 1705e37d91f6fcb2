import Foundation
import HTTPTypes
import NIOCore
import Tracing

/// The responses image requests get: a result (or 304 when its entity tag matches), a 304 from
/// the stored source's version, or a failure. Every header the server sends with an image is
/// written here.
enum ImageResponse {
    /// `result`, which came from `cache` (memory, disk, miss); 304 when `ifNoneMatch` (nil unless
    /// `USE_ETAG`) matches its entity tag.
    static func result(
        _ result: StoredResult, job: ImageJob, cache: String, ifNoneMatch: String?, configuration: ImageServerConfiguration
    ) -> ImageServerResponse {
        let metadata = result.metadata
        // Each field appended, not set: the fields are new, and a set searches them first.
        var headers = HTTPFields()
        headers.reserveCapacity(10)
        if configuration.usesETag { headers.append(HTTPField(name: .eTag, value: metadata.entityTag)) }
        headers.append(HTTPField(name: .cacheControl, value: cacheControl(job: job, metadata: metadata, configuration: configuration)))
        if configuration.cacheControlPassthrough, let expires = metadata.sourceExpires, metadata.sourceCacheControl == nil {
            headers.append(HTTPField(name: .expires, value: expires))
        }
        if let lastModified = metadata.lastModified { headers.append(HTTPField(name: .lastModified, value: lastModified)) }
        if job.format.variesWithAccept { headers.append(HTTPField(name: .vary, value: "Accept")) }
        headers.append(HTTPField(name: .xCache, value: cache))
        // `ifNoneMatch` is nil unless `USE_ETAG` is on (the one place that reads it: `respondToImage`).
        if EntityTag.notModified(ifNoneMatch: ifNoneMatch, metadata.entityTag) {
            return ImageServerResponse(status: .notModified, headerFields: headers)
        }
        return image(result, job: job, status: .ok, headers: headers, configuration: configuration)
    }

    /// The fallback image made for `job` in place of a source that failed with `failure`: with
    /// `FALLBACK_IMAGE_HTTP_CODE` (0: the failure's status), `max-age` `FALLBACK_IMAGE_TTL` (0: as
    /// a result's below 400, else `no-store`), no entity tag, `X-Cache: fallback`.
    static func fallback(_ result: StoredResult, job: ImageJob, failure: ImageServerError, configuration: ImageServerConfiguration) -> ImageServerResponse {
        let status = configuration.fallbackImageHTTPCode == 0 ? failure.status : configuration.fallbackImageHTTPCode
        var headers = HTTPFields()
        if configuration.fallbackImageTTL > 0 {
            headers[.cacheControl] = "public, max-age=\(maxAge(configuration.fallbackImageTTL, expires: job.request.expires))"
        } else if status >= 400 {
            headers[.cacheControl] = "no-store"
        } else {
            headers[.cacheControl] = cacheControl(job: job, metadata: nil, configuration: configuration)
        }
        if job.format.variesWithAccept { headers[.vary] = "Accept" }
        headers[.xCache] = "fallback"
        return image(result, job: job, status: .init(code: status), headers: headers, configuration: configuration)
    }

    /// The response carrying `result`'s bytes: `headers` and those of the image itself.
    private static func image(
        _ result: StoredResult, job: ImageJob, status: HTTPResponse.Status, headers: consuming HTTPFields, configuration: ImageServerConfiguration
    ) -> ImageServerResponse {
        let metadata = result.metadata
        headers.append(HTTPField(name: .contentType, value: metadata.contentType))
        headers.append(HTTPField(name: .contentLength, value: String(result.body.readableBytes)))
        let options = job.request.options
        headers.append(HTTPField(
            name: .contentDisposition,
            value: (options.filename ?? "").isEmpty && !options.returnAttachment
                ? result.inlineDisposition { contentDisposition(job: job, fileExtension: metadata.fileExtension) }
                : contentDisposition(job: job, fileExtension: metadata.fileExtension)
        ))
        if configuration.enableDebugHeaders { addDebugHeaders(metadata, to: &headers) }
        RequestSpan.annotateRequest { $0["webimage.cache"] = headers[.xCache] }
        return ImageServerResponse(status: status, headerFields: headers, body: result.body, traceContext: .current)
    }

    /// `ENABLE_DEBUG_HEADERS`' fields, as imgproxy names them: the source's bytes and size (as
    /// its header gives it), the result's size (one frame's).
    private static func addDebugHeaders(_ metadata: ResultMetadata, to headers: inout HTTPFields) {
        if let source = metadata.sourceFacts {
            headers[.xOriginContentLength] = String(source.byteCount)
            headers[.xOriginWidth] = String(source.pixelWidth)
            headers[.xOriginHeight] = String(source.pixelHeight)
        }
        if let width = metadata.pixelWidth, let height = metadata.pixelHeight {
            headers[.xResultWidth] = String(width)
            headers[.xResultHeight] = String(height)
        }
    }

    /// 304 with `entityTag`, decided before the result was looked for or made.
    static func notModified(entityTag: String, job: ImageJob, cache: String, configuration: ImageServerConfiguration) -> ImageServerResponse {
        var headers = HTTPFields()
        headers[.eTag] = entityTag
        headers[.cacheControl] = cacheControl(job: job, metadata: nil, configuration: configuration)
        if job.format.variesWithAccept { headers[.vary] = "Accept" }
        headers[.xCache] = cache
        return ImageServerResponse(status: .notModified, headerFields: headers)
    }

    /// `error`'s status with its public message, never cached.
    static func failure(_ error: ImageServerError) -> ImageServerResponse {
        var response = ImageServerResponse.text(error.publicMessage + "\n", status: .init(code: error.status))
        // A full queue frees within a processing time: ask to come back in a second.
        if error.status == 429 { response.head.headerFields[.retryAfter] = "1" }
        return response
    }

    /// The source's own `Cache-Control` under `CACHE_CONTROL_PASSTHROUGH`, else
    /// `public, max-age=TTL`, capped by the URL's expiry.
    private static func cacheControl(job: ImageJob, metadata: ResultMetadata?, configuration: ImageServerConfiguration) -> String {
        if configuration.cacheControlPassthrough, let passed = metadata?.sourceCacheControl { return passed }
        return "public, max-age=\(maxAge(configuration.ttl, expires: job.request.expires))"
    }

    /// `seconds`, capped by the URL's expiry.
    static func maxAge(_ seconds: Int, expires: Date?) -> Int {
        guard let expires else { return seconds }
        return min(seconds, max(0, Int(expires.timeIntervalSinceNow.rounded(.down))))
    }

    /// The last component of `path` without its extension, as Foundation's
    /// `deletingPathExtension().lastPathComponent` gives it (empty for `/`), without making URLs:
    /// a memory hit's Content-Disposition took a sixth of its answering that way.
    static func fileStem(_ path: String) -> Substring {
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        let component = path[..<end]
        let name = component[(component.lastIndex(of: "/").map { component.index(after: $0) } ?? component.startIndex)...]
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex { return name[..<dot] }
        return name
    }

    /// `inline` (or `attachment`) with the file name the URL gave, else the source's, and the
    /// output's extension; characters outside printable ASCII and quotes are replaced.
    private static func contentDisposition(job: ImageJob, fileExtension: String) -> String {
        let options = job.request.options
        var name = options.filename ?? ""
        if name.isEmpty {
            switch job.request.source {
            case .remote(let url):
                let stem = fileStem(url.path(percentEncoded: true))
                name = stem.removingPercentEncoding ?? String(stem)
            case .local(let path): name = String(fileStem(path))
            case .s3(let object): name = String(fileStem(object.key))
            }
        }
        if name.isEmpty { name = "image" }
        let safe = String(name.unicodeScalars.map { (32..<127).contains($0.value) && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        return "\(options.returnAttachment ? "attachment" : "inline"); filename=\"\(safe).\(fileExtension)\""
    }
}
