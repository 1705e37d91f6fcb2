import Foundation
import HTTPTypes
import Logging
import NIOCore
import WebImage

extension ImageServer {
    /// The answer to `request`, whichever framework received it: the one path every request
    /// takes. Below the mount point and `PATH_PREFIX`: `GET`/`HEAD` of `/health` (and
    /// `HEALTH_CHECK_PATH`), the playground when served (`/` and `/playground/sign`), and the image
    /// URLs: `GET` and `HEAD` (the same fields, no body) behind the request ID, the access log,
    /// the counters and, with `SECRET`, the bearer check, as are the `/info` URLs (imgproxy Pro's,
    /// `ImageInfo`'s JSON); `OPTIONS` answers 200 at once. With
    /// `ALLOW_ORIGIN`, image answers carry the CORS fields. Anything else is 404. Path components
    /// are matched as a router matches them: as sent, empty ones skipped.
    public func respond(to request: ImageServerRequest) async -> ImageServerResponse {
        guard let belowMount = request.pathBelowMount, let path = Self.path(belowMount, under: configuration.pathPrefix.utf8[...]) else {
            return Self.notFound
        }
        let first = Self.firstComponent(of: path)
        guard first.isEmpty || routes.reservedFirstComponents.contains(first) else {
            return await answerImageURL(request, path: path)
        }
        let components = path.split(separator: "/")
        let method = request.head.method
        if method == .get || method == .head {
            if routes.healthPaths.contains(components) {
                let response = await healthCheck.response()
                return method == .head ? response.withoutBody : response
            }
            if method == .get, configuration.servesPlayground {
                if components.isEmpty {
                    return await playgroundPage(base: request.mountPath + configuration.pathPrefix + "/")
                }
                if components == ["playground", "sign"] { return playgroundSignature(query: request.query) }
                if components == ["playground", "placeholder"] { return await playgroundPlaceholder(query: request.query) }
            }
        }
        return Self.notFound
    }

    /// What a request's path is matched against: the health and playground paths, as
    /// components, and the first components they begin with (no image URL begins with one).
    struct Routes: Sendable {
        let healthPaths: [[Substring]]
        let reservedFirstComponents: Set<Substring>

        init(configuration: ImageServerConfiguration) {
            let health = ["/health"] + [configuration.healthCheckPath].compactMap { $0 }.filter { !$0.isEmpty && $0 != "/health" }
            healthPaths = health.map { $0.split(separator: "/") }
            let playground = configuration.servesPlayground ? ImageServer.playgroundPaths : []
            reservedFirstComponents = Set((health + playground).compactMap { $0.split(separator: "/").first })
        }
    }

    /// 404, for a path no route of the server's takes.
    static var notFound: ImageServerResponse { .text("Not Found\n", status: .notFound) }

    /// `path` below `prefix` (`PATH_PREFIX`: "" or `/images`; a mount point), from its slash;
    /// nil when not under it. Byte by byte, as the target's other matching.
    static func path(_ path: Substring, under prefix: Substring.UTF8View) -> Substring? {
        guard path.utf8.starts(with: prefix) else { return nil }
        let rest = path[path.utf8.index(path.startIndex, offsetBy: prefix.count)...]
        guard rest.isEmpty || rest.utf8.first == UInt8(ascii: "/") else { return nil }
        return rest
    }

    /// The first non-empty component of `path`.
    static func firstComponent(of path: Substring) -> Substring {
        let slash = UInt8(ascii: "/")
        let start = path.utf8.firstIndex { $0 != slash } ?? path.endIndex
        let end = path.utf8[start...].firstIndex(of: slash) ?? path.endIndex
        return path[start..<end]
    }

    // MARK: Image URLs

    /// An image URL's answer: `OPTIONS` at once, `GET` and `HEAD` through the image chain;
    /// the CORS fields on each.
    private func answerImageURL(_ request: ImageServerRequest, path: Substring) async -> ImageServerResponse {
        var response: ImageServerResponse
        switch request.head.method {
        case .options:
            response = ImageServerResponse(status: .ok, headerFields: [.contentLength: "0"])
        case .get, .head:
            response = await answerImage(request, path: path)
        default:
            return Self.notFound
        }
        if let origin = configuration.allowOrigin {
            response.head.headerFields[.accessControlAllowOrigin] = origin
            response.head.headerFields[.accessControlAllowMethods] = "GET, OPTIONS"
        }
        return response
    }

    /// A `GET` or `HEAD` of an image URL: its ID (the client's when plausible, else the host's)
    /// in the logger's metadata as `request_id` (imgproxy's name) and in `X-Request-ID`; the
    /// bearer check; the answer; its access line and counters. A failure is answered with its
    /// status and short public message; its reason goes to the access line only.
    private func answerImage(_ request: ImageServerRequest, path: Substring) async -> ImageServerResponse {
        let id = plausibleRequestID(request.head.headerFields[.requestID]) ?? request.id
        var logger = request.logger
        logger[metadataKey: "request_id"] = .string(id)
        let started = ContinuousClock.now
        metrics.requestStarted()
        defer { metrics.requestEnded() }
        var response: ImageServerResponse
        var failure: ImageServerError?
        do throws(ImageServerError) {
            if let bearerSecret, !bearerSecret.admits(authorization: request.head.headerFields[values: .authorization].first) {
                throw ImageServerError.invalidSecret
            }
            if let infoPath = Self.infoPath(path) {
                response = try await respondToInfo(request.head, path: infoPath, logger: logger, clientGone: { request.clientGone })
            } else {
                response = try await respondToImage(request.head, path: path, logger: logger, clientGone: { request.clientGone })
            }
        } catch {
            failure = error
            response = ImageResponse.failure(error)
        }
        let duration = ContinuousClock.now - started
        let bytes = response.body.readableBytes
        let format = failure == nil ? response.head.headerFields[.contentType].map { ImageFormat(mimeType: $0) } ?? .undefined : .undefined
        metrics.requests(status: response.head.status.code, format: format == .undefined ? "none" : format.fileExtension)
        metrics.requestDuration.recordNanoseconds(duration.nanoseconds)
        metrics.responseBytes.increment(by: bytes)
        // Nothing is formatted when the line would not be written (`LOG_LEVEL` above `info`, or
        // a host's logger at a higher level).
        if logger.logLevel <= .info {
            AccessLine(
                method: request.head.method, status: response.head.status.code, path: Self.loggedPath(path), bytes: bytes,
                cache: response.head.headerFields[.xCache] ?? "none", duration: duration, reason: failure?.description
            ).write(to: logger)
        }
        response.head.headerFields[.requestID] = id
        return request.head.method == .head ? response.withoutBody : response
    }

    /// What follows `/info` in an info path (imgproxy Pro's `/info/{signature}/...`), from its
    /// slash; nil for an image path.
    static func infoPath(_ path: Substring) -> Substring? {
        guard firstComponent(of: path) == "info", let info = path.range(of: "info") else { return nil }
        return path[info.upperBound...]
    }

    /// An image or info path as logs show it: the options and source, without the signature.
    static func loggedPath(_ path: Substring) -> Substring {
        if let infoPath = infoPath(path) { return Substring("/info" + loggedPath(infoPath)) }
        guard let slash = path.utf8.dropFirst().firstIndex(of: UInt8(ascii: "/")) else { return "/" }
        return path[slash...]
    }
}

/// The client's request ID when it is one imgproxy would take: 1 – 64 characters of
/// `A-Z a-z 0-9 _ -`.
func plausibleRequestID(_ header: String?) -> String? {
    guard let header, (1...64).contains(header.utf8.count),
        header.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 })
    else { return nil }
    return header
}
