import Foundation
import MetricsTestKit
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

extension Heavy {
    /// Origins that attack the server that fetches from them: a head a byte a second, bodies without
    /// end, a declared 10 GB, compression bombs, redirects without end or to refused addresses,
    /// oversized heads, a bad certificate, decode-time bombs. Each runs against a server with small
    /// time limits and ends within them with imgproxy's status, with the test process's peak
    /// resident memory bounded, no worker left busy, and the next ordinary request served.
    /// Serialized: the memory bound reads the whole process.
    @Suite(.offThePool, .serialized) struct HostileOriginTests {
        static let downloadTimeout = TestAllowance.seconds(1)
        /// Far above the download's: the whole suite at once on two cores delays the steps before a
        /// fetch by seconds (disk lookups queue behind other tests' decoding), and a 504 must say
        /// that the download's limit ended the request, not the request's.
        static let timeout = TestAllowance.seconds(20)
        static let maxSourceFileSize = 8 << 20
        /// The request timeout, and slack for a loaded machine.
        static let timeBound = Duration.seconds(timeout) + TestAllowance.time(.seconds(4))
        /// Growth of the peak resident memory over what was resident when the request was sent.
        static let memoryBound = TestAllowance.bytes(256 << 20)

        /// A server with the small limits, its metrics, and a well-behaved origin for the request
        /// that must still be served afterwards.
        struct Setup {
            let server: ServerUnderTest
            let metrics: TestMetrics
            let origin: TestServer

            /// Runs `body` with a server with the small limits (and `configure` applied) and an
            /// origin, then awaits their stops, also when `body` throws.
            static func with<T>(
                configure: (inout ImageServerConfiguration) -> Void = { _ in }, _ body: (Setup) async throws -> T
            ) async throws -> T {
                let metrics = TestMetrics()
                let configuration = ImageServerConfiguration.fetchingFromLoopback { configuration in
                    configuration.downloadTimeout = HostileOriginTests.downloadTimeout
                    configuration.timeout = HostileOriginTests.timeout
                    configuration.processing.maxSourceFileSize = HostileOriginTests.maxSourceFileSize
                    configure(&configuration)
                }
                return try await withOrigin { origin in
                    try await withRunningServer(configuration, metrics: metrics) { server in
                        try await body(Setup(server: server, metrics: metrics, origin: origin))
                    }
                }
            }

            /// Asks for a thumbnail of `source` and expects `status` with `body` within the time
            /// bound, the memory bound kept, then no worker busy and an ordinary request served.
            func expect(
                _ source: String, status: Int, body: String, sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let url = try #require(URL(string: source), sourceLocation: sourceLocation)
                ResidentMemory.resetPeak()
                let resident = ResidentMemory.current
                let started = ContinuousClock.now
                let reply = try await server.get(SourceGuardServingTests.path(source: url))
                let elapsed = ContinuousClock.now - started
                let growth = ResidentMemory.peak - resident
                #expect(reply.status == status, "\(source): \(reply.status)", sourceLocation: sourceLocation)
                #expect(String(decoding: reply.body, as: UTF8.self) == body + "\n", sourceLocation: sourceLocation)
                #expect(elapsed < HostileOriginTests.timeBound, "\(source): took \(elapsed)", sourceLocation: sourceLocation)
                #expect(growth < HostileOriginTests.memoryBound, "\(source): peak resident memory grew \(growth >> 20) MB", sourceLocation: sourceLocation)
                #expect(await workersIdle(), "\(source): a worker is still busy", sourceLocation: sourceLocation)
                let ordinary = try await server.get(ServingTests.path(origin, "photos/rocket.jpg", options: "rs:fit:64:64/cb:\(UUID().uuidString)"))
                #expect(ordinary.status == 200, "after \(source)", sourceLocation: sourceLocation)
            }

            /// Whether the busy-worker gauge reads 0 within 10 s (polled: a worker freed after a
            /// timeout's answer is freed by its cancelled task, which nothing here can await).
            func workersIdle() async -> Bool {
                await eventually(within: TestAllowance.eventWait, every: .milliseconds(10)) {
                    ((try? metrics.expectGauge("webimage_server_workers_busy").lastValue) ?? 0) == 0
                }
            }
        }

        /// An HTTP/1.1 200 head with `fields`, ended by its empty line.
        static func head(_ fields: [String]) -> [UInt8] {
            Array((["HTTP/1.1 200 OK"] + fields).joined(separator: "\r\n").utf8) + Array("\r\n\r\n".utf8)
        }

        /// One chunk of a chunked body: `size` bytes of 0xFF, framed.
        static func chunk(size: Int) -> [UInt8] {
            Array((String(size, radix: 16) + "\r\n").utf8) + [UInt8](repeating: 0xFF, count: size) + Array("\r\n".utf8)
        }

        // MARK: Time

        @Test func aHeadSentAByteASecondIsCutAtTheDownloadTimeout() async throws {
            try await Setup.with { setup in
                try await withRawOrigin(RawOrigin.Reply(
                    prefix: Array("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nX-Slow: ".utf8), pieceSize: 1,
                    repeating: [UInt8(ascii: "a")], interval: .seconds(1)
                )) { slowloris in
                    try await setup.expect(slowloris.url("/slow.jpg"), status: 504, body: "Source timeout")
                    #expect(await slowloris.waitUntilNoReplyIsInProgress())
                }
            }
        }

        @Test func aChunkedBodyThatNeverEndsIsCutAtTheDownloadTimeoutOrTheByteLimit() async throws {
            try await Setup.with { setup in
                // Silent after its first piece: the idle timeout.
                let silent = setup.origin.url("/images/photos/rocket.jpg?chunked=1&parts=4&hold=1").absoluteString
                try await setup.expect(silent, status: 504, body: "Source timeout")
                // The origin sees the close (its event, which takes milliseconds; `TestServer.wait` guards against a hang).
                #expect(await setup.origin.wait { $0.abortedResponses["/images/photos/rocket.jpg"] == 1 })
                // A kilobyte every 100 ms, for ever: never idle, so the download's deadline.
                try await withRawOrigin(RawOrigin.Reply(
                    prefix: Self.head(["Content-Type: image/jpeg", "Transfer-Encoding: chunked"]), repeating: Self.chunk(size: 1024),
                    interval: .milliseconds(100)
                )) { trickle in
                    try await setup.expect(trickle.url("/trickle.jpg"), status: 504, body: "Source timeout")
                    #expect(await trickle.waitUntilNoReplyIsInProgress())
                }
            }
            // As fast as the client reads: the byte limit, long before the deadline. (8 MB take
            // milliseconds alone; a ThreadSanitizer run beside other work read them slower than
            // the suite's 4 s deadline, so the deadline here is a loaded machine's: 10 s, stretched.)
            try await Setup.with(configure: { $0.downloadTimeout = TestAllowance.seconds(10) }) { setup in
                try await withRawOrigin(RawOrigin.Reply(
                    prefix: Self.head(["Content-Type: image/jpeg", "Transfer-Encoding: chunked"]), repeating: Self.chunk(size: 64 << 10)
                )) { flood in
                    try await setup.expect(flood.url("/flood.jpg"), status: 422, body: "Source image is too large")
                    #expect(await flood.waitUntilNoReplyIsInProgress())
                }
            }
        }

        // MARK: Size

        /// A URL's own `max_src_file_size` stops the fetch as soon as the body passes it: 200 KB
        /// of chunks, then nothing, against a 100 KB limit. Waiting for the rest would end in a 504.
        @Test func aURLsSourceSizeLimitStopsTheFetchAsSoonAsTheBodyPassesIt() async throws {
            try await Setup.with(configure: { $0.processing.allowSecurityOptions = true }) { setup in
                try await withRawOrigin(RawOrigin.Reply(
                    prefix: Self.head(["Content-Type: image/jpeg", "Transfer-Encoding: chunked"]) + Array((0..<4).map { _ in Self.chunk(size: 50_000) }.joined())
                )) { origin in
                    let source = origin.url("/two-hundred-kilobytes.jpg")
                    let encoded = source.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                    let reply = try await setup.server.get("/unsafe/msfs:100000/rs:fit:100:100/plain/\(encoded)@jpg")
                    #expect(reply.status == 422 && String(decoding: reply.body, as: UTF8.self) == "Source image is too large\n")
                    #expect(await origin.waitUntilNoReplyIsInProgress(), "the fetch was closed")
                }
            }
        }

        @Test func aDeclaredTenGigabytesIsRefusedFromTheHead() async throws {
            try await Setup.with { setup in
                // The head and 1 KB of body, then nothing: a 422 can only come from the head (waiting for
                // the rest would end in a 504).
                try await withRawOrigin(RawOrigin.Reply(
                    prefix: Self.head(["Content-Type: image/jpeg", "Content-Length: \(10 << 30)"]) + [UInt8](repeating: 0xFF, count: 1024)
                )) { origin in
                    try await setup.expect(origin.url("/ten-gigabytes.jpg"), status: 422, body: "Source image is too large")
                    #expect(await origin.waitUntilNoReplyIsInProgress())
                }
            }
        }

        /// A gzip (or zlib, for `deflate`) stream of one fixed-Huffman deflate block: a zero byte,
        /// then copies of the last 258 bytes (length code 285, distance code 0: 13 bits), 8 per
        /// 13-byte group, so each group inflates to 2,064 zeros. The trailer's checksum is left
        /// zero: a client inflates the whole stream before it reads it.
        static func compressionBomb(encoding: String, groups: Int) -> [UInt8] {
            struct BitWriter {
                var bytes: [UInt8] = []
                var bit = 0
                /// `count` bits of `value`, least significant first (deflate's header fields).
                mutating func write(_ value: Int, count: Int) {
                    for index in 0..<count {
                        if bit == 0 { bytes.append(0) }
                        if value >> index & 1 == 1 { bytes[bytes.count - 1] |= 1 << bit }
                        bit = (bit + 1) % 8
                    }
                }

                /// A Huffman code of `length` bits, most significant first.
                mutating func code(_ code: Int, length: Int) {
                    for index in (0..<length).reversed() { write(code >> index & 1, count: 1) }
                }
            }
            // Final block, fixed codes; literal 0; one copy: 24 bits, so each group starts on a byte.
            var start = BitWriter()
            start.write(1, count: 1)
            start.write(1, count: 2)
            start.code(0x30, length: 8)
            start.code(0xC5, length: 8)
            start.code(0, length: 5)
            var group = BitWriter()
            for _ in 0..<8 {
                group.code(0xC5, length: 8)
                group.code(0, length: 5)
            }
            var end = BitWriter()
            end.code(0, length: 7)
            var stream = start.bytes
            stream.reserveCapacity(start.bytes.count + groups * group.bytes.count + 32)
            for _ in 0..<groups { stream += group.bytes }
            stream += end.bytes
            let inflated = UInt32(truncatingIfNeeded: 1 + 258 + groups * 2064)
            if encoding == "gzip" {
                return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + stream + [0, 0, 0, 0] + withUnsafeBytes(of: inflated.littleEndian, Array.init)
            }
            return [0x78, 0x01] + stream + [0, 0, 0, 0]
        }

        @Test func aGzipOrDeflateBombIsNeverInflated() async throws {
            try await Setup.with { setup in
                // 3.4 MB that inflate to 537 MB.
                let groups = 260_000
                for encoding in ["gzip", "deflate"] {
                    let bomb = Self.compressionBomb(encoding: encoding, groups: groups)
                    setup.origin.route("/bomb-\(encoding).jpg") { _ in
                        var response = TestResponse.content(bomb, type: "image/jpeg")
                        response.setHeader("Content-Encoding", encoding)
                        return response
                    }
                    // The downloader asks for no encoding and decodes none: the body arrives as sent,
                    // which is no image.
                    try await setup.expect(setup.origin.url("/bomb-\(encoding).jpg").absoluteString, status: 422, body: "Broken or unsupported image")
                    // The source the server processed is the bomb's bytes as sent.
                    #expect(try setup.metrics.expectCounter("webimage_server_source_bytes_total").values.contains(Int64(bomb.count)))
                    let asked = try #require(setup.origin.statistics.requestLog["/bomb-\(encoding).jpg"]?.first)
                    #expect(asked.header("Accept-Encoding") == nil)
                }
            }
        }

        // MARK: Redirects

        @Test func endlessRedirectsStopAtTheLimit() async throws {
            try await Setup.with(configure: { $0.maxRedirects = 10 }) { setup in
                // Each to a new address, a thousand deep; and a cycle of two.
                try await setup.expect(setup.origin.url("/redirect/1000/images/photos/rocket.jpg").absoluteString, status: 404, body: "Source is unreachable")
                let hops = setup.origin.statistics.requests.filter { $0.key.hasPrefix("/redirect/") }.values.reduce(0, +)
                #expect(hops == 11)
                try await setup.expect(setup.origin.url("/loop/a").absoluteString, status: 404, body: "Source is unreachable")
                #expect(setup.origin.requestCount("/loop/a") + setup.origin.requestCount("/loop/b") <= 11)
            }
        }

        @Test func aRedirectToARefusedOrClosedAddressEndsAtOnce() async throws {
            try await Setup.with { setup in
                // Link-local (a cloud's metadata service): refused by the source guard before any
                // connection, though loopback sources are allowed here.
                try await setup.expect(
                    setup.origin.url("/redirect-to?url=http%3A%2F%2F169.254.169.254%2Flatest%2Fmeta-data.jpg").absoluteString,
                    status: 404, body: "Invalid source URL"
                )
                // A port nothing listens on: refused by the system.
                let refusing = try RefusingPort()
                let escaped = refusing.url("/gone.jpg").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                try await setup.expect(setup.origin.url("/redirect-to?url=\(escaped)").absoluteString, status: 404, body: "Source is unreachable")
                withExtendedLifetime(refusing) {}
                #expect(setup.origin.requestCount("/redirect-to") == 2)
            }
        }

        // MARK: Malformed heads

        @Test func aHundredThousandHeaderFieldsOrAMegabyteHeaderLineIsRefused() async throws {
            try await Setup.with { setup in
                let rocket = [UInt8](try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("photos/rocket.jpg")))
                let manyFields = (0..<100_000).map { "X-Field-\($0): v" }
                let longLine = ["X-Long: " + String(repeating: "a", count: 1 << 20)]
                for fields in [manyFields, longLine] {
                    try await withRawOrigin(RawOrigin.Reply(
                        prefix: Self.head(fields + ["Content-Type: image/jpeg", "Content-Length: \(rocket.count)"]) + rocket, pieceSize: 64 << 10
                    )) { origin in
                        try await setup.expect(origin.url("/heavy-head.jpg"), status: 404, body: "Source is unreachable")
                        #expect(await origin.waitUntilNoReplyIsInProgress())
                    }
                }
            }
        }

        @Test func aTLSOriginWithASelfSignedCertificateIsRefused() async throws {
            try await Setup.with { setup in
                try await withOrigin(tls: true) { tls in
                    try await setup.expect(tls.url("/images/photos/rocket.jpg").absoluteString, status: 404, body: "Source is unreachable")
                    #expect(tls.statistics.totalRequests == 0)
                }
            }
        }

        // MARK: Decode-time bombs

        @Test func decodeBombsServedOverHTTPAreRefusedBeforeTheirWork() async throws {
            try await Setup.with { setup in
                // rocket-progressive-split-chroma.jpg with 1,000 more copies of its smallest scan.
                let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("WebImageTests/Fixtures")
                var jpeg = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("rocket-progressive-split-chroma.jpg")))
                let scanStarts = jpeg.indices.dropLast().filter { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA } + [jpeg.count - 2]
                let smallest = try #require(zip(scanStarts, scanStarts.dropFirst()).map { $0..<$1 }.min { $0.count < $1.count })
                jpeg.insert(contentsOf: Array([[UInt8]](repeating: Array(jpeg[smallest]), count: 1_000).joined()), at: jpeg.count - 2)
                // An SVG of five levels of ten `<use>` each: 100,000 draws of a 1000x1000 rectangle.
                var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"1000\" height=\"1000\"><defs>"
                    + "<rect id=\"l0\" width=\"1000\" height=\"1000\" fill=\"#123456\" fill-opacity=\"0.01\"/>"
                for level in 1...5 { svg += "<g id=\"l\(level)\">" + String(repeating: "<use xlink:href=\"#l\(level - 1)\"/>", count: 10) + "</g>" }
                svg += "</defs><use xlink:href=\"#l5\"/></svg>"
                let bombs: [(String, [UInt8], String)] = [("scans.jpg", jpeg, "image/jpeg"), ("uses.svg", Array(svg.utf8), "image/svg+xml")]
                for (name, bytes, type) in bombs {
                    setup.origin.route("/" + name) { _ in .content(bytes, type: type) }
                    // Over the library's decode limits (scans; draws times pixels), found before the work.
                    try await setup.expect(setup.origin.url("/" + name).absoluteString, status: 422, body: "Source image is too large")
                }
            }
        }
    }
}
