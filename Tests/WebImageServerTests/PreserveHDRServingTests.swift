import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// imgproxy's `preserve_hdr` over HTTP: an HDR source stays HDR in a format that holds it with
/// `ph:1` (or `PRESERVE_HDR`), SDR otherwise, each result cached under its own key and ETag.
@Suite(.offThePool) struct PreserveHDRServingTests {
    /// TestHDR.avif (2048x858, 10-bit PQ) at 512 pixels wide (encoding AVIF is slow), with `options`.
    static func path(_ origin: TestServer, options: String, format: String?) -> String {
        let source = origin.url("/images/sdwebimage/TestHDR.avif").absoluteString
        return "/unsafe" + ImagePathBuilder.path(options: "rs:fit:512:512/" + options, sourceURL: source, format: format)
    }

    /// The result's colour as libheif reads it (the library's `ImageHeader`).
    static func colour(of reply: ServerUnderTest.Reply) throws -> ImageColorInfo {
        #expect(reply.status == 200, "\(String(decoding: reply.body.prefix(200), as: UTF8.self))")
        return try ImageHeader(probing: reply.body).colorInfo
    }

    @Test func phKeepsTestHDRAsPQAboveEightBitsAndWithoutItTheResultIsSDR() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let hdrPath = Self.path(origin, options: "ph:1", format: "avif")
                let hdr = try await server.get(hdrPath)
                let hdrColour = try Self.colour(of: hdr)
                #expect(hdr.header("content-type") == "image/avif" && hdr.header("x-cache") == "miss")
                #expect(hdrColour.transfer == .pq && hdrColour.primaries == .bt2020 && hdrColour.bitsPerComponent > 8, "\(hdrColour)")

                let sdrPath = Self.path(origin, options: "ph:0", format: "avif")
                let sdr = try await server.get(sdrPath)
                let sdrColour = try Self.colour(of: sdr)
                #expect(sdr.header("x-cache") == "miss", "not the HDR result")
                #expect(sdrColour.bitsPerComponent == 8 && sdrColour.transfer != .pq && !sdrColour.isHighDynamicRange, "\(sdrColour)")
                let hdrTag = try #require(hdr.header("etag")), sdrTag = try #require(sdr.header("etag"))
                #expect(hdrTag != sdrTag)

                // Each from its own cache entry; the source was fetched once.
                let hdrAgain = try await server.get(hdrPath)
                #expect(hdrAgain.header("x-cache") == "memory" && hdrAgain.body == hdr.body && hdrAgain.header("etag") == hdrTag)
                let sdrAgain = try await server.get(Self.path(origin, options: "", format: "avif"))
                #expect(sdrAgain.header("x-cache") == "memory" && sdrAgain.body == sdr.body && sdrAgain.header("etag") == sdrTag, "no ph is ph:0")
                #expect(origin.requestCount("/images/sdwebimage/TestHDR.avif") == 1)
            }
        }
    }

    @Test func phToJPEGOrWebPIsToneMappedAndANegotiatedFormatStaysAsItWas() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback { $0.processing = .negotiating }) { server in
                for format in ["jpg", "webp"] {
                    let mapped = try await server.get(Self.path(origin, options: "ph:1", format: format))
                    let plain = try await server.get(Self.path(origin, options: "ph:0", format: format))
                    #expect(mapped.status == 200 && mapped.body == plain.body, "\(format): the same SDR result")
                    #expect(try Self.colour(of: mapped).bitsPerComponent == 8)
                }
                // Without a format, Accept decides as before: AVIF, kept HDR.
                let negotiated = try await server.get(Self.path(origin, options: "ph:1", format: nil), headers: ["Accept": "image/avif,image/webp"])
                #expect(negotiated.header("content-type") == "image/avif" && negotiated.header("vary") == "Accept")
                #expect(try Self.colour(of: negotiated).transfer == .pq)
                let webP = try await server.get(Self.path(origin, options: "ph:1", format: nil), headers: ["Accept": "image/webp"])
                #expect(webP.header("content-type") == "image/webp")
                #expect(try Self.colour(of: webP).bitsPerComponent == 8)
            }
        }
    }

    @Test func aGainMapJPEGWithPhIsItsHDRRendition() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let source = origin.url("/images/sdwebimage/TestHDR.jpeg").absoluteString
                let hdr = try Self.colour(of: try await server.get("/unsafe" + ImagePathBuilder.path(options: "rs:fit:300:300/ph:1", sourceURL: source, format: "avif")))
                #expect(hdr.transfer == .pq && hdr.bitsPerComponent > 8, "\(hdr)")
                let sdr = try Self.colour(of: try await server.get("/unsafe" + ImagePathBuilder.path(options: "rs:fit:300:300", sourceURL: source, format: "avif")))
                #expect(sdr.bitsPerComponent == 8 && sdr.transfer != .pq, "\(sdr)")
            }
        }
    }

    /// The same through the command a user runs, `webimage serve` as a child process, reading
    /// the four TestHDR files from a local folder: SDR by default, HDR with `ph:1`.
    @Test func webimageServeGivesSDRByDefaultAndHDRWithPh() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hdr-serve-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: cache) }
        let settings = ["--local-filesystem-root", TestServer.imagesFolder.appendingPathComponent("sdwebimage").path, "--cache-dir", cache.path]
        try await withServeProcess(settings) { server in
            for file in ["TestHDR.avif", "TestHDR.heic", "TestHDR.jxl", "TestHDR.jpeg"] {
                let hdr = try Self.colour(of: try await ServerUnderTest.get("/unsafe/rs:fit:200:200/ph:1/plain/local:///\(file)@avif", port: server.port))
                #expect(hdr.transfer == .pq && hdr.bitsPerComponent > 8, "\(file) ph:1: \(hdr)")
                let sdr = try Self.colour(of: try await ServerUnderTest.get("/unsafe/rs:fit:200:200/plain/local:///\(file)@avif", port: server.port))
                #expect(sdr.bitsPerComponent == 8 && !sdr.isHighDynamicRange, "\(file): \(sdr)")
            }
        }
    }

    @Test func preserveHDRMakesItTheDefault() async throws {
        let configuration = try await ImgproxySettingsTests.load(["IMGPROXY_PRESERVE_HDR": "true"])
        #expect(configuration.processing.preserveHDR)
        #expect(try await !ImgproxySettingsTests.load([:]).processing.preserveHDR)
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback { $0.processing.preserveHDR = true }) { server in
                let hdr = try Self.colour(of: try await server.get(Self.path(origin, options: "", format: "avif")))
                #expect(hdr.transfer == .pq && hdr.bitsPerComponent > 8, "\(hdr)")
                let sdr = try Self.colour(of: try await server.get(Self.path(origin, options: "ph:0", format: "avif")))
                #expect(sdr.bitsPerComponent == 8 && sdr.transfer != .pq, "\(sdr)")
            }
        }
    }
}
