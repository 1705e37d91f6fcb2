import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// imgproxy's URLs as a client sends them, over loopback HTTP to a running server whose source
/// is the test origin: signatures, format negotiation, processing, the source pixel limit.
@Suite(.offThePool) struct ImgproxyOverHTTPTests {
    static let keyPairs = [("736563726574", "68656c6c6f"), ("0a1b2c3d4e5f", "a0b1c2d3")]

    /// A server that takes paths signed with either key pair (a fresh cache folder each).
    static func signed() -> ImageServerConfiguration {
        .fetchingFromLoopback {
            $0.keys = keyPairs.map(\.0)
            $0.salts = keyPairs.map(\.1)
        }
    }

    @Test func pathsSignedWithEitherKeyAreServedAndOthersAre403() async throws {
        try await withOrigin { origin in
            try await withRunningServer(Self.signed()) { server in
                let path = ImagePathBuilder.path(options: "rs:fill:300:200", sourceURL: origin.url("/images/photos/rocket.jpg").absoluteString, format: "jpg")
                for (key, salt) in Self.keyPairs {
                    let signed = try URLSigner(key: URLSigningKey(hexKey: key, hexSalt: salt)).signedPath(path)
                    let reply = try await server.get(signed)
                    #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg", "\(key)")
                }
                let signed = try URLSigner(key: URLSigningKey(hexKey: Self.keyPairs[0].0, hexSalt: Self.keyPairs[0].1)).signedPath(path)
                // One character of the signature changed: 403, and the origin never asked.
                var flipped = Array(signed)
                flipped[1] = flipped[1] == "A" ? "B" : "A"
                for forged in [String(flipped), "/unsafe" + path, "/insecure" + path] {
                    let reply = try await server.get(forged)
                    #expect(reply.status == 403 && reply.body == Data("Invalid signature\n".utf8), "\(forged)")
                }
                #expect(origin.requestCount("/images/photos/rocket.jpg") == 1)
            }
        }
    }

    @Test func whatWebimageSignPrintsIsServed() async throws {
        try await withOrigin { origin in
            try await withRunningServer(Self.signed()) { server in
                let (key, salt) = Self.keyPairs[1]
                let source = origin.url("/images/photos/astronaut.png").absoluteString
                let sign = try await ServeProcess.output(of: ["sign", "rs:fit:120:120", source, "--key", key, "--salt", salt, "--format", "webp"])
                let reply = try await server.get(sign.trimmingCharacters(in: .newlines))
                #expect(reply.status == 200 && reply.header("content-type") == "image/webp")
            }
        }
    }

    @Test func acceptPicksAVIFThenWebPAndVariesWithIt() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback { $0.processing = .negotiating }) { server in
                try await withRunningServer(.fetchingFromLoopback { $0.processing.autoWebP = true }) { withoutAVIF in
                    // No extension in the path: the format is negotiated.
                    let path = ImagePathBuilder.path(options: "rs:fit:100:100", sourceURL: origin.url("/images/photos/rocket.jpg").absoluteString)
                    let accept = ["Accept": "image/avif,image/webp,*/*"]
                    let avif = try await server.get("/unsafe" + path, headers: accept)
                    #expect(avif.status == 200 && avif.header("content-type") == "image/avif" && avif.header("vary") == "Accept")
                    #expect(try ImageCodersManager.shared.decode(avif.body, options: ImageCoderOptions()).format == .avif)
                    let webP = try await withoutAVIF.get("/unsafe" + path, headers: accept)
                    #expect(webP.status == 200 && webP.header("content-type") == "image/webp" && webP.header("vary") == "Accept")
                    let plain = try await server.get("/unsafe" + path)
                    #expect(plain.status == 200 && plain.header("content-type") == "image/jpeg" && plain.header("vary") == "Accept")
                    // A format in the URL is not negotiated.
                    let pngPath = ImagePathBuilder.path(options: "rs:fit:100:100", sourceURL: origin.url("/images/photos/rocket.jpg").absoluteString, format: "png")
                    let fixed = try await server.get("/unsafe" + pngPath, headers: accept)
                    #expect(fixed.header("content-type") == "image/png" && fixed.header("vary") == nil)
                }
            }
        }
    }

    @Test func processingOverHTTPGivesImgproxysResults() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback()) { server in
                func image(_ options: String, _ source: String, _ format: String) async throws -> Image {
                    let reply = try await server.get(ServingTests.path(origin, source, options: options).replacingOccurrences(of: "@jpg", with: "@" + format))
                    #expect(reply.status == 200, "\(options) \(source)")
                    return try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
                }
                let filled = try await image("rs:fill:300:200", "photos/rocket.jpg", "webp")
                #expect(filled.format == .webP && filled.pixelWidth == 300 && filled.pixelHeight == 200)
                let gif = try ImageCodersManager.shared.decode(try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("sdwebimage/TestImage.gif")), options: ImageCoderOptions())
                let animated = try await image("rs:fit:40:40", "sdwebimage/TestImage.gif", "gif")
                #expect(animated.format == .gif && animated.frameCount == gif.frameCount && animated.frameCount > 1)
                #expect(max(animated.pixelWidth, animated.pixelHeight) == 40)
                let small = try await server.get(ServingTests.path(origin, "photos/rocket.jpg", options: "rs:fit:300:200/mb:5000"))
                #expect(small.status == 200 && small.body.count <= 5000)
                // Out of reach: the smallest result is sent, as imgproxy sends it.
                let unreachable = try await server.get(ServingTests.path(origin, "photos/rocket.jpg", options: "mb:500"))
                #expect(unreachable.status == 200 && unreachable.body.count > 500 && unreachable.header("content-type") == "image/jpeg")
            }
        }
    }

    @Test func aSourceOverTheResolutionLimitIs422BeforeItsPixelsAreRead() async throws {
        let bytes = try SourceImages.sixtyMegapixelPNG()
        try await withOrigin { origin in
            let file = bytes
            origin.route("/sixty-megapixels.png") { _ in .content(file, type: "image/png") }
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let reply = try await server.get(ServingTests.path(origin, route: "/sixty-megapixels.png"))
                #expect(reply.status == 422 && reply.body == Data("Source image is too large\n".utf8))
            }
        }
    }

    @Test func filesTheFuzzersFoundAndHugeDeclaredSizesAre422AndTheServerStaysUp() async throws {
        let folder = TestServer.imagesFolder.appendingPathComponent("fuzz-regressions")
        var files: [(String, [UInt8])] = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !$0.hasSuffix(".md") }.sorted()
            .map { ($0, [UInt8](try Data(contentsOf: folder.appendingPathComponent($0)))) }
        // A GIF whose screen and frame declare 65535x65535 (4.3 gigapixels), 800 bytes long.
        let gif = [UInt8](try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("sdwebimage/TestImage.gif")))
        var huge = Array(gif.prefix(800))
        huge.replaceSubrange(6..<10, with: [0xFF, 0xFF, 0xFF, 0xFF])
        files.append(("huge-screen.gif", huge))
        #expect(files.count >= 5)
        try await withOrigin { origin in
            for (name, bytes) in files { origin.route("/" + name) { _ in .content(bytes, type: "application/octet-stream") } }
            // Each refused within the request's time limit (30 s, stretched under a sanitizer):
            // past it, the answer would be 503 Timeout, not 422.
            try await withRunningServer(.fetchingFromLoopback { $0.timeout = TestAllowance.seconds(30) }) { server in
                for (name, _) in files {
                    let reply = try await server.get(ServingTests.path(origin, route: "/" + name))
                    // A valid image a reader mishandled (named `decodable-`) is served.
                    #expect(reply.status == (name.hasPrefix("decodable-") ? 200 : 422), "\(name): \(reply.status)")
                }
                #expect(try await server.get("/health").status == 200)
            }
        }
    }

    @Test func metadataIsStrippedUnlessTheURLAsksToKeepIt() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.fetchingFromLoopback()) { server in
                // Landscape_6.jpg: EXIF with orientation 6; results are upright, so a kept EXIF says 1.
                func written(_ options: String) async throws -> VipsImageRef {
                    let reply = try await server.get(ServingTests.path(origin, "exif-orientation/Landscape_6.jpg", options: options))
                    #expect(reply.status == 200, "\(options)")
                    return try VipsImageRef.load("jpegload_buffer", data: reply.body)
                }
                let stripped = try await written("rs:fit:300:300")
                #expect(stripped.blob(named: "exif-data") == nil)
                let kept = try await written("rs:fit:300:300/sm:0")
                #expect(kept.blob(named: "exif-data") != nil && kept.orientation == 1)
                #expect(kept.width > kept.height)   // upright: stored as a portrait, shown as a landscape
            }
        }
    }
}
