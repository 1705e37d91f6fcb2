import Foundation

/// The routes every test server answers, and the query parameters that change any answer.
///
/// Routes:
/// - `/images/<path>`: a file of the repository's `Tests/Images`, with its `Content-Type`, a
///   strong `ETag`, `Last-Modified` and `Accept-Ranges: bytes`; `Range` (with `If-Range`),
///   `If-None-Match` and `If-Modified-Since` are honoured (206, 304).
/// - `/redirect/<n>/<path>`: redirects n times, then to `/<path>`.
/// - `/loop/<name>`: redirects to `/loop/<name>-` and so on, forever.
/// - `/redirect-to?url=<URL>`: redirects to that URL, wherever it is.
/// - `/status/<code>`: that status with a short text body.
/// - `/empty`: 200 with an empty body typed `image/png`.
/// - `/random/<n>`: n seeded random bytes typed `image/jpeg`.
/// - `/bytes/<n>`: n bytes of a repeating pattern typed `application/octet-stream`.
///
/// Query parameters, on any route: `delay=ms` (before the head), `parts=n` or `chunk=bytes`
/// with `chunkDelay=ms` (trickle the body), `drop=bytes` (close the connection after that many
/// body bytes, on the first request to that URL only), `dropEvery=bytes` (close the connection
/// after that many body bytes of every response, range responses included), `hold=1` with `parts` or `chunk` (send
/// the first piece, then nothing more until the client goes: the body never ends, however slow
/// the client), `chunked=1` (chunked encoding),
/// `status=code`, `type=mime`, `noValidators=1` (no ETag or Last-Modified), `failFirst=n` with
/// `retryAfter=value` (the first n requests answer 503 with that `Retry-After`),
/// `auth=user:password` (401 without those Basic credentials).
enum TestServerRoutes {
    /// The fixed `Last-Modified` of served files.
    static let lastModified = "Tue, 24 Nov 2026 00:00:00 GMT"

    static func response(for request: TestRequest, imagesFolder: URL) -> TestResponse {
        let query = request.query
        if let credentials = query["auth"] {
            let expected = "Basic " + Data(credentials.utf8).base64EncodedString()
            guard request.header("Authorization") == expected else {
                var response = TestResponse.status(401, "authorization required")
                response.setHeader("WWW-Authenticate", "Basic realm=\"test\"")
                return response
            }
        }
        if let failFirst = query["failFirst"].flatMap(Int.init), request.attempt <= failFirst {
            var response = TestResponse.status(503)
            if let retryAfter = query["retryAfter"] { response.setHeader("Retry-After", retryAfter) }
            return response
        }
        var response = builtIn(request, imagesFolder: imagesFolder)
        if let status = query["status"].flatMap(Int.init) { response.status = status }
        if let type = query["type"] { response.setHeader("Content-Type", type) }
        if query["noValidators"] == "1" {
            response.headers.removeAll { ["etag", "last-modified"].contains($0.0.lowercased()) }
        }
        applyDelivery(query, attempt: request.attempt, to: &response)
        return response
    }

    /// How the body travels: delays, pieces, a held body, a dropped connection, chunked encoding.
    static func applyDelivery(_ query: [String: String], attempt: Int, to response: inout TestResponse) {
        if let delay = query["delay"].flatMap(Int.init) { response.headerDelay = .milliseconds(delay) }
        if let parts = query["parts"].flatMap(Int.init), parts > 0 {
            response.chunkSize = max(1, (response.body.count + parts - 1) / parts)
        }
        if let chunk = query["chunk"].flatMap(Int.init), chunk > 0 { response.chunkSize = chunk }
        if let delay = query["chunkDelay"].flatMap(Int.init) { response.chunkDelay = .milliseconds(delay) }
        if let drop = query["drop"].flatMap(Int.init), attempt == 1 { response.dropAfter = drop }
        if let every = query["dropEvery"].flatMap(Int.init), every > 0 { response.dropAfter = every }
        if query["chunked"] == "1" { response.chunked = true }
        // A gate never opened: piece 2 on wait for ever.
        if query["hold"] == "1" { response.gate = TestGate() }
    }

    private static func builtIn(_ request: TestRequest, imagesFolder: URL) -> TestResponse {
        let components = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let first = components.first else { return .status(404) }
        switch first {
        case "images":
            return file(components.dropFirst().joined(separator: "/"), request: request, imagesFolder: imagesFolder)
        case "redirect" where components.count >= 2:
            guard let count = Int(components[1]) else { return .status(400) }
            let rest = components.dropFirst(2).joined(separator: "/")
            let query = request.query.isEmpty ? "" : "?" + request.query.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "&")
            return .redirect(to: (count <= 1 ? "/\(rest)" : "/redirect/\(count - 1)/\(rest)") + query)
        case "redirect-to":
            return request.query["url"].map { .redirect(to: $0) } ?? .status(400)
        case "loop" where components.count == 2:
            return .redirect(to: "/loop/\(components[1] == "a" ? "b" : "a")")
        case "status" where components.count == 2:
            return .status(Int(components[1]) ?? 400)
        case "empty":
            return .content([], type: "image/png")
        case "random" where components.count == 2:
            var generator = SeededGenerator(seed: 42)
            let count = min(Int(components[1]) ?? 0, 64 << 20)
            return .content((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }, type: "image/jpeg")
        case "bytes" where components.count == 2:
            let count = min(Int(components[1]) ?? 0, 256 << 20)
            return .content((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }, type: "application/octet-stream")
        default:
            return .status(404)
        }
    }

    /// A test image, with validators, ranges and conditional requests.
    private static func file(_ relativePath: String, request: TestRequest, imagesFolder: URL) -> TestResponse {
        guard !relativePath.split(separator: "/").contains(".."),
              let bytes = try? Data(contentsOf: imagesFolder.appendingPathComponent(relativePath))
        else { return .status(404, "no image \(relativePath)") }
        let entityTag = "\"\(bytes.count)-\(fnv1a(bytes))\""
        var headers = [
            ("Content-Type", mimeType(forExtension: (relativePath as NSString).pathExtension)),
            ("ETag", entityTag), ("Last-Modified", lastModified), ("Accept-Ranges", "bytes"),
        ]
        if request.header("If-None-Match") == entityTag
            || (request.header("If-None-Match") == nil && request.header("If-Modified-Since") == lastModified) {
            return TestResponse(status: 304, headers: headers.filter { $0.0 != "Content-Type" }, body: [])
        }
        if let range = request.header("Range"), request.header("If-Range").map({ $0 == entityTag || $0 == lastModified }) ?? true,
           let start = byteRangeStart(range), start < bytes.count {
            headers.append(("Content-Range", "bytes \(start)-\(bytes.count - 1)/\(bytes.count)"))
            return TestResponse(status: 206, headers: headers, body: Array(bytes[start...]))
        }
        return TestResponse(status: 200, headers: headers, body: Array(bytes))
    }

    /// The first byte of `bytes=N-` (other range forms are answered with the whole file).
    private static func byteRangeStart(_ value: String) -> Int? {
        guard value.hasPrefix("bytes="), value.hasSuffix("-") else { return nil }
        return Int(value.dropFirst(6).dropLast())
    }

    static func mimeType(forExtension fileExtension: String) -> String {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png", "apng": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "heif": "image/heif"
        case "avif": "image/avif"
        case "svg": "image/svg+xml"
        case "pdf": "application/pdf"
        case "bmp": "image/bmp"
        case "tif", "tiff": "image/tiff"
        default: "application/octet-stream"
        }
    }

    private static func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
