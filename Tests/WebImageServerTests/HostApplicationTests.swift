import Foundation
import Glibc
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// Issue 40: a Hummingbird 2 and a Vapor 4 application, each with its own logging, metrics
/// (swift-prometheus) and tracer (bootstrapped in its main: Examples/HummingbirdHost,
/// Examples/VaporHost), mount the server under /img beside a route of their own. Through the
/// mount the server signs, processes, answers 304 and `HEAD`, and keeps its limits as
/// `webimage serve` does; its counters are in the host's metrics, its spans in the host's
/// tracer under the request's; SIGTERM stops the whole application cleanly.
@Suite(.offThePool) struct HostApplicationTests {
    static let (key, salt) = ("736563726574", "68656c6c6f")

    /// A host's settings: signed URLs, loopback origins (the test's), a cache folder of its own, `extra`.
    static func environment(cache: URL, _ extra: [String: String] = [:]) -> [String: String] {
        ["IMGPROXY_KEY": key, "IMGPROXY_SALT": salt, "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true", "WEBIMAGE_CACHE_DIR": cache.path]
            .merging(extra) { $1 }
    }

    static func signed(_ options: String, _ source: String) throws -> String {
        let path = ImagePathBuilder.path(options: options, sourceURL: source, format: nil, encoding: .plain)
        return try URLSigner(key: URLSigningKey(hexKey: key, hexSalt: salt)).signedPath(path)
    }

    @Test(arguments: ["webimage-hummingbird-host", "webimage-vapor-host"])
    func theHostsRouteAndTheImagesSideBySideWithTheHostsMetricsAndSpans(host program: String) async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-host-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: cache) }
        let environment = Self.environment(cache: cache, ["IMGPROXY_MAX_SRC_RESOLUTION": "0.2"])
        try await withOrigin { origin in
            try await withServeProcess(["0"], environment: environment, program: program) { host in
                let hello = try await ServerUnderTest.get("/hello", port: host.port)
                #expect(hello.status == 200 && String(decoding: hello.body, as: UTF8.self) == "hello from the host\n")

                // Signed: the thumbnail; unsigned or forged: 403.
                let small = origin.url("/images/sdwebimage/TestImage.jpg").absoluteString
                let path = try Self.signed("rs:fill:60:40", small)
                let thumb = try await ServerUnderTest.get("/img" + path, port: host.port, headers: ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"])
                #expect(thumb.status == 200, "\(String(decoding: thumb.body, as: UTF8.self))")
                let image = try ImageCodersManager.shared.decode(thumb.body, options: ImageCoderOptions())
                #expect(image.pixelWidth == 60 && image.pixelHeight == 40)
                #expect(try await ServerUnderTest.get("/img/unsafe/rs:fill:60:40/plain/\(small)", port: host.port).status == 403)
                // 304 for the entity tag it sent; HEAD: the same fields, no body.
                let etag = try #require(thumb.header("etag"))
                #expect(try await ServerUnderTest.get("/img" + path, port: host.port, headers: ["if-none-match": etag]).status == 304)
                let head = try await ServerUnderTest.request("/img" + path, method: "HEAD", port: host.port)
                #expect(head.status == 200 && head.body.isEmpty && head.header("content-length") == String(thumb.body.count))
                #expect(head.header("content-type") == "image/jpeg" && head.header("etag") == etag)
                // MAX_SRC_RESOLUTION: a 0.27 MP source is over 0.2 MP.
                let large = try Self.signed("rs:fit:50:50", origin.url("/images/photos/rocket.jpg").absoluteString)
                #expect(try await ServerUnderTest.get("/img" + large, port: host.port).status == 422)
                #expect(try await ServerUnderTest.get("/img/health", port: host.port).status == 200)
                // The request's ID: the client's when plausible, else the host's own, never an
                // implausible one sent back.
                let named = try await ServerUnderTest.get("/img" + path, port: host.port, headers: ["x-request-id": "client-id_1"])
                #expect(named.header("x-request-id") == "client-id_1")
                let odd = try await ServerUnderTest.get("/img" + path, port: host.port, headers: ["x-request-id": "a b;<script>"])
                let given = try #require(odd.header("x-request-id"))
                #expect(given != "a b;<script>" && !given.isEmpty && given.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }, "\(given)")

                // The server's counters in the host's registry, its spans in the host's tracer.
                let metrics = String(decoding: try await ServerUnderTest.get("/host/metrics", port: host.port).body, as: UTF8.self)
                #expect(metrics.contains("webimage_server_requests_total") && metrics.contains("webimage_downloads_total"), "\(metrics)")
                // Each span: name, trace, span, parent. The first request's work is four spans
                // whose parent is a span of the host's (the request's, made by its tracing middleware).
                let spans = String(decoding: try await ServerUnderTest.get("/host/spans", port: host.port).body, as: UTF8.self)
                    .split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }.filter { $0.count == 4 }
                let work = ["queue", "downloading_image", "processing_image", "streaming_image"].compactMap { name in spans.first { $0[0] == name } }
                #expect(work.count == 4, "\(spans)")
                let parent = try #require(work.first?[3])
                #expect(work.allSatisfy { $0[3] == parent } && spans.contains { $0[2] == parent && $0[3] == "-" }, "\(spans)")

                host.signal(SIGTERM)
                #expect(await host.exitStatus() == 0)
            }
        }
    }

    /// Requests in flight when SIGTERM comes are answered, and their results are on disk when the
    /// host has exited: the HTTP server stops (draining them) before the image server ends its
    /// disk threads; Vapor calls its lifecycle handlers before it stops its HTTP server, so
    /// `ImageServerLifecycle` stops it first.
    @Test(arguments: ["webimage-hummingbird-host", "webimage-vapor-host"])
    func requestsInFlightAtSIGTERMAreAnsweredAndKept(host program: String) async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-host-stop-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: cache) }
        let environment = Self.environment(cache: cache, ["IMGPROXY_TIMEOUT": "120", "IMGPROXY_DOWNLOAD_TIMEOUT": "60"])
        try await withOrigin { origin in
            try await withServeProcess(["0"], environment: environment, program: program) { host in
                // Three distinct sources whose heads the origin sends after 1.5 s.
                let paths = try (0..<3).map { n in
                    try Self.signed("rs:fill:60:40", origin.url("/images/sdwebimage/TestImage.jpg").absoluteString + "?delay=1500&n=\(n)")
                }
                let requests = paths.map { path in Task { try await ServerUnderTest.get("/img" + path, port: host.port) } }
                #expect(await origin.wait { $0.requests["/images/sdwebimage/TestImage.jpg"] == 3 })
                host.signal(SIGTERM)
                for request in requests {
                    let reply = try await request.value
                    #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
                }
                #expect(await host.exitStatus() == 0)
            }
        }
        let results = cache.appendingPathComponent("results")
        let kept = (FileManager.default.enumerator(at: results, includingPropertiesForKeys: [.fileSizeKey])?.allObjects as? [URL] ?? [])
            .filter { ((try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) > 100 }
        #expect(kept.count == 3, "\(kept.map(\.lastPathComponent))")
    }
}
