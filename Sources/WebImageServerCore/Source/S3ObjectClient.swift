import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import WebImageSupport

/// Signed GETs, PUTs, DELETEs and listings of the objects of one S3 bucket (AWS, or a compatible store), on an
/// AsyncHTTPClient of its own, each call bounded by `timeout`. The endpoint is addressed as
/// `S3Source` addresses it and requests are signed with `SignatureV4`; unsigned when no
/// credentials are set. Its owner calls `shutdown()` once its calls have ended; one released
/// without it shuts its client down in the background.
final class S3ObjectClient: Sendable {
    /// A store's answer that is neither the object nor its absence (403, 5xx, …).
    struct StatusError: Error, CustomStringConvertible {
        let status: UInt
        let method: String
        var description: String { "\(method) answered \(status)" }
    }

    /// An object as a GET brings it.
    struct Object: Sendable {
        let body: ByteBuffer
        /// Its response's fields, as swift-http-types holds them (the core speaks no NIOHTTP1
        /// past this client).
        let headers: HTTPFields
    }

    let bucket: String
    let timeout: Duration
    private let endpoint: S3Source.Endpoint
    private let signer: SignatureV4?
    private let client: HTTPClient
    private let isShutDown = Locked(false)

    /// A client of `bucket` where `settings` say; nil when `settings.endpoint` is not a URL.
    init?(settings: S3Settings, bucket: String, timeout: Duration) {
        let region = settings.region ?? S3Settings.fallbackRegion
        guard let endpoint = S3Source.Endpoint(settings: settings, region: region) else { return nil }
        self.endpoint = endpoint
        self.bucket = bucket
        self.timeout = timeout
        signer = settings.credentials.map { SignatureV4(credentials: $0, region: region, service: "s3", normalizesPath: false) }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.tracing.tracer = nil
        // Reads and the writes in flight at once, each on a connection of its own rather than
        // queued behind AsyncHTTPClient's default of 8 (a queued call spends its timeout waiting).
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit {
        guard !isShutDown.withLock({ $0 }) else { return }
        let client = client
        Task { try? await client.shutdown() }
    }

    /// The object under `key`, at most `maximumBytes`; nil when the store has none (404).
    func get(_ key: String, maximumBytes: Int) async throws -> Object? {
        let request = try signed("GET", key: key, body: nil, headers: [])
        return try await StorageDeadline.run(timeout) { [client] in
            let response = try await client.execute(request, deadline: .distantFuture)
            if response.status == .notFound { return nil }
            guard response.status == .ok else { throw StatusError(status: response.status.code, method: "GET") }
            return Object(body: try await response.body.collect(upTo: maximumBytes), headers: Self.fields(response.headers))
        }
    }

    /// Puts `body` under `key` with `headers` (`Content-Type`, `Content-MD5`, `x-amz-meta-*`),
    /// all signed; the store keeps the whole body or nothing.
    func put(_ key: String, body: Data, headers: [(name: String, value: String)]) async throws {
        let request = try signed("PUT", key: key, body: body, headers: headers)
        try await StorageDeadline.run(timeout) { [client] in
            let response = try await client.execute(request, deadline: .distantFuture)
            _ = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else { throw StatusError(status: response.status.code, method: "PUT") }
        }
    }

    /// One page (at most `maxKeys`, and S3's 1,000) of the keys under `prefix`, after the page
    /// `continuationToken` ended (ListObjectsV2).
    func list(prefix: String, continuationToken: String?, maxKeys: Int = 1000) async throws -> S3ObjectListing {
        var query = "list-type=2&max-keys=\(maxKeys)&prefix=" + SignatureV4.uriEncoded(prefix)
        if let continuationToken { query += "&continuation-token=" + SignatureV4.uriEncoded(continuationToken) }
        let request = try signed("GET", key: "", query: query, body: nil, headers: [])
        return try await StorageDeadline.run(timeout) { [client] in
            let response = try await client.execute(request, deadline: .distantFuture)
            let body = try await response.body.collect(upTo: 16 << 20)
            guard response.status == .ok else { throw StatusError(status: response.status.code, method: "GET (list)") }
            return try S3ObjectListing(xml: Data(body.readableBytesView))
        }
    }

    /// Deletes the object under `key` (a delete marker in a versioned bucket); none there is no error.
    func delete(_ key: String) async throws {
        let request = try signed("DELETE", key: key, body: nil, headers: [])
        try await StorageDeadline.run(timeout) { [client] in
            let response = try await client.execute(request, deadline: .distantFuture)
            _ = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .noContent || response.status == .ok else { throw StatusError(status: response.status.code, method: "DELETE") }
        }
    }

    /// Ends the client's connections; call once no call is in flight.
    func shutdown() async {
        guard isShutDown.withLock({ state in defer { state = true }; return !state }) else { return }
        try? await client.shutdown()
    }

    /// `headers` as `HTTPFields`; a name that is no valid field name is left out.
    private static func fields(_ headers: HTTPHeaders) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    /// A request for `key` (the bucket itself when empty), with `query` (encoded, no `?`).
    private func signed(_ method: String, key: String, query: String? = nil, body: Data?, headers: [(name: String, value: String)]) throws -> HTTPClientRequest {
        guard let objectURL = endpoint.url(for: S3ObjectAddress(bucket: bucket, key: key, versionID: nil)),
              let url = query.map({ URL(string: objectURL.absoluteString + "?" + $0) }) ?? objectURL else {
            throw ImageServerError.internalError("no URL for \(bucket)/\(key) on the storage's endpoint")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        var fields = headers
        // Its Content-Length is AsyncHTTPClient's (a body of known length): a PUT is whole or refused.
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        if let signer {
            let payloadHash = body.map(SignatureV4.payloadHash) ?? SignatureV4.emptyPayloadHash
            guard let signedFields = signer.headers(method: method, url: url, date: Date(), payloadHash: payloadHash, extra: fields) else {
                throw ImageServerError.internalError("no host in \(url)")
            }
            fields = signedFields
        }
        for (name, value) in fields { request.headers.replaceOrAdd(name: name, value: value) }
        return request
    }
}
