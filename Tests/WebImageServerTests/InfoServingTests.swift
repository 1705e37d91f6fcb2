import Foundation
import MetricsTestKit
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// `/info` (imgproxy Pro's, issue 42 item 2) over loopback HTTP: each option family's fields by
/// imgproxy's names, refusals, signing, the source guard and limits, 304, the cache, and the JSON
/// `webimage info --json` prints.
@Suite(.offThePool) struct InfoServingTests {
    /// A server reading `local://` sources from the repository's test images.
    static func configuration(_ configure: (inout ImageServerConfiguration) -> Void = { _ in }) -> ImageServerConfiguration {
        .underTest { configuration in
            configuration.localFilesystemRoot = TestServer.imagesFolder.path
            configure(&configuration)
        }
    }

    /// The unsigned info path of the test image `file` with `options` (none: the defaults).
    static func path(_ file: String, options: String = "") -> String {
        "/info/unsafe/" + (options.isEmpty ? "" : options + "/") + "plain/local:///" + file
    }

    /// The JSON object of a 200 reply, its content type checked.
    static func object(_ reply: ServerUnderTest.Reply) throws -> [String: Any] {
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.header("content-type") == "application/json")
        return try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
    }

    /// The info of `file` with `options`, from a server of the default configuration.
    static func info(_ file: String, options: String = "") async throws -> [String: Any] {
        try await withRunningServer(configuration()) { server in try object(try await server.get(path(file, options: options))) }
    }

    // MARK: Options

    @Test func defaultsGiveSizeFormatAndUprightDimensions() async throws {
        let rocket = try await Self.info("photos/rocket.jpg")
        let bytes = try Data(contentsOf: TestServer.imagesFolder.appendingPathComponent("photos/rocket.jpg")).count
        #expect(rocket["size"] as? Int == bytes && rocket["format"] as? String == "jpeg" && rocket["mime_type"] as? String == "image/jpeg")
        #expect(rocket["width"] as? Int == 640 && rocket["height"] as? Int == 427 && rocket["orientation"] as? Int == 1)
        // Orientation 6: a 1200x1800 landscape stored turned, reported upright.
        let turned = try await Self.info("exif-orientation/Landscape_6.jpg")
        #expect(turned["width"] as? Int == 1800 && turned["height"] as? Int == 1200 && turned["orientation"] as? Int == 6)
        // Every default off, by full names and aliases: nothing left.
        let none = try await Self.info("photos/rocket.jpg", options: "size:0/f:false/d:0/exif:0/iptc:0/xmp:0")
        #expect(none.isEmpty, "\(none)")
    }

    @Test func exifByTitlesAndByCanonicalNames() async throws {
        let titles = try #require(try await Self.info("exif-orientation/Landscape_6.jpg")["exif"] as? [String: String])
        #expect(titles["Orientation"] == "Right-top" && titles["X-Resolution"] == "72" && titles["Resolution Unit"] == "Inch", "\(titles)")
        let canonical = try #require(try await Self.info("exif-orientation/Landscape_6.jpg", options: "exif:1:1")["exif"] as? [String: String])
        #expect(canonical["XResolution"] == "72" && canonical["ResolutionUnit"] == "Inch" && canonical["X-Resolution"] == nil, "\(canonical)")
        #expect(try await Self.info("exif-orientation/Landscape_6.jpg", options: "exif:0")["exif"] == nil)
    }

    @Test func xmpByNamespaceAndName() async throws {
        let xmp = try #require(try await Self.info("photos/hubble_deep_field.jpg")["xmp"] as? [String: [String: Any]])
        #expect(xmp["dc"]?["format"] as? String == "image/jpeg" && xmp["xmp"]?["CreatorTool"] as? String == "Adobe Photoshop CS5 Macintosh")
        #expect(try await Self.info("photos/hubble_deep_field.jpg", options: "xmp:0")["xmp"] == nil)
    }

    @Test func colorspaceBandsSampleFormatAndPages() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let grey = try Self.object(try await server.get(Self.path("sdwebimage/MonochromeTestImage.jpg", options: "cs:1/b:1/sf:1/pn:1")))
            #expect(grey["colorspace"] as? String == "b-w" && grey["bands"] as? Int == 1 && grey["sample_format"] as? String == "uchar")
            #expect(grey["pages_number"] as? Int == 1)
            let deep = try Self.object(try await server.get(Self.path("sdwebimage/RGBA16PNG.png", options: "colorspace:1/bands:1/sample_format:1")))
            #expect(deep["colorspace"] as? String == "rgb16" && deep["bands"] as? Int == 4 && deep["sample_format"] as? String == "ushort")
            let animated = try Self.object(try await server.get(Self.path("sdwebimage/TestImageAnimated.webp", options: "pages_number:1")))
            #expect(animated["pages_number"] as? Int == 8 && animated["colorspace"] == nil)
        }
    }

    @Test func alphaAndTheTransparencyCheck() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let transparent = try Self.object(try await server.get(Self.path("webp/lossy_alpha1.webp", options: "a:1:1")))
            #expect(transparent["alpha"] as? Bool == true && transparent["transparent"] as? Bool == true)
            let flagOnly = try Self.object(try await server.get(Self.path("webp/lossy_alpha1.webp", options: "alpha:1")))
            #expect(flagOnly["alpha"] as? Bool == true && flagOnly["transparent"] == nil)
            let opaque = try Self.object(try await server.get(Self.path("photos/rocket.jpg", options: "a:1:1")))
            #expect(opaque["alpha"] as? Bool == false && opaque["transparent"] as? Bool == false)
        }
    }

    @Test func paletteAverageAndDominantColors() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let rocket = try Self.object(try await server.get(Self.path("photos/rocket.jpg", options: "p:3/avg:1/dc:1:1")))
            let palette = try #require(rocket["palette"] as? [[String: Int]])
            #expect((2...3).contains(palette.count) && palette.allSatisfy { Set($0.keys) == ["R", "G", "B", "A"] && $0["A"] == 255 }, "\(palette)")
            let average = try #require(rocket["average"] as? [String: Int])
            // rocket.jpg is a dark blue night scene.
            #expect(average["A"] == 255 && average["B"]! > average["R"]!, "\(average)")
            let swatches = try #require(rocket["dominant_colors"] as? [String: [String: Int]])
            #expect(Set(swatches.keys) == ["vibrant", "light_vibrant", "dark_vibrant", "muted", "light_muted", "dark_muted"])
            #expect(swatches.values.allSatisfy { Set($0.keys) == ["R", "G", "B"] })
            let bad = try await server.get(Self.path("photos/rocket.jpg", options: "palette:1"))
            #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).contains("palette"))
        }
    }

    @Test func blurHashThumbHashAndPerceptualHash() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let rocket = try Self.object(try await server.get(Self.path("photos/rocket.jpg", options: "bh:4:3/th:1/ph:1")))
            let blurHash = try #require(rocket["blurhash"] as? String)
            #expect(blurHash.count == 4 + 2 * 4 * 3)
            let thumbHash = try #require(rocket["thumb_hash"] as? String)
            #expect(thumbHash.count.isMultiple(of: 2) && thumbHash.allSatisfy { "0123456789ABCDEF".contains($0) })
            let hash = try #require(rocket["perceptual_hash"] as? String)
            #expect(hash.count == 16 && hash.allSatisfy { "0123456789abcdef".contains($0) })
            // Another image, another hash: ≥ 16 bits apart.
            let other = try Self.object(try await server.get(Self.path("photos/astronaut.png", options: "perceptual_hash:1")))
            let otherHash = try #require(other["perceptual_hash"] as? String)
            let distance = ((UInt64(hash, radix: 16) ?? 0) ^ (UInt64(otherHash, radix: 16) ?? 0)).nonzeroBitCount
            #expect(distance >= 16, "\(hash) \(otherHash)")
            let bad = try await server.get(Self.path("photos/rocket.jpg", options: "blurhash:10:3"))
            #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).contains("blurhash"))
        }
    }

    @Test func hashsumsEqualCoreutils() async throws {
        let file = "photos/rocket.jpg"
        let hashsums = try #require(try await Self.info(file, options: "chs:md5:sha256")["hashsums"] as? [String: String])
        #expect(Set(hashsums.keys) == ["md5", "sha256"])
        for kind in ["md5", "sha256"] {
            let tool = try await ServeProcess.output(
                of: [TestServer.imagesFolder.appendingPathComponent(file).path], executable: URL(fileURLWithPath: "/usr/bin/\(kind)sum")
            )
            #expect(hashsums[kind] == tool.split(separator: " ").first.map(String.init), "\(kind)")
        }
    }

    @Test func aBase64SourceIsTheSameImage() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let plain = try await server.get(Self.path("photos/rocket.jpg", options: "th:1"))
            let encoded = Base64URL.encode(Array("local:///photos/rocket.jpg".utf8))
            let base64 = try await server.get("/info/unsafe/th:1/" + encoded.prefix(10) + "/" + encoded.dropFirst(10))
            #expect(plain.status == 200 && base64.status == 200 && base64.body == plain.body)
        }
    }

    // MARK: Refusals

    @Test func unknownAndProOnlyOptionsAre400NamingThem() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let refused = [
                ("nonsense:1", "nonsense"), ("video_meta:1", "video_meta"), ("classify:3", "classify"), ("crop:10:10", "crop"),
            ]
            for (option, name) in refused {
                let reply = try await server.get(Self.path("photos/rocket.jpg", options: option))
                let body = String(decoding: reply.body, as: UTF8.self)
                #expect(reply.status == 400 && body.contains(name), "\(option): \(reply.status) \(body)")
            }
            // A page the image has is read (another frame, another average); one past them is refused.
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "pg:0")).status == 200)
            let first = try Self.object(try await server.get(Self.path("sdwebimage/TestImageAnimated.webp", options: "avg:1")))
            let third = try Self.object(try await server.get(Self.path("sdwebimage/TestImageAnimated.webp", options: "avg:1/page:2")))
            #expect(third["width"] as? Int == first["width"] as? Int)
            #expect(try #require(third["average"] as? [String: Int]) != (try #require(first["average"] as? [String: Int])))
            let past = try await server.get(Self.path("sdwebimage/TestImageAnimated.webp", options: "page:8"))
            #expect(past.status == 400 && String(decoding: past.body, as: UTF8.self).contains("8 pages"), "\(past.status)")
            // A processing option is not an info option.
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "rs:fit:300:200")).status == 400)
            // An output format has no place in an info URL.
            #expect(try await server.get(Self.path("photos/rocket.jpg") + "@png").status == 404)
        }
    }

    @Test func allowedInfoOptionsHoldURLsToTheNamesAsWritten() async throws {
        try await withRunningServer(Self.configuration { $0.processing.allowedInfoOptions = ["th", "size"] }) { server in
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "th:1/size:0")).status == 200)
            let full = try await server.get(Self.path("photos/rocket.jpg", options: "thumb_hash:1"))
            #expect(full.status == 404 && String(decoding: full.body, as: UTF8.self).contains("thumb_hash"))
        }
        // As `webimage serve` reads it.
        let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["IMGPROXY_ALLOWED_INFO_OPTIONS": "th, bh"])
        #expect(read.processing.allowedInfoOptions == ["th", "bh"])
    }

    @Test func aSignedInfoURLIsAnsweredAndAnUnsignedOne403() async throws {
        let (key, salt) = ("943b421c9eb07c83", "520f986b998545b4")
        try await withRunningServer(Self.configuration { ($0.keys, $0.salts) = ([key], [salt]) }) { server in
            let path = "/th:1/plain/local:///photos/rocket.jpg"
            let signed = try URLSigner(key: URLSigningKey(hexKey: key, hexSalt: salt)).signedPath(path)
            #expect(try await server.get("/info" + signed).status == 200)
            #expect(try await server.get("/info/unsafe" + path).status == 403)
            // The signature of one option string does not sign another.
            let tampered = signed.replacingOccurrences(of: "th:1", with: "th:1/ph:1")
            #expect(try await server.get("/info" + tampered).status == 403)
        }
    }

    @Test func aSourceOutsideTheAllowedSourcesOrTheGuardIsRefused() async throws {
        try await withOrigin { origin in
            let source = origin.url("/images/photos/rocket.jpg").absoluteString
            let path = "/info/unsafe/plain/" + (source.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            try await withRunningServer(.fetchingFromLoopback { $0.allowedSources = ["https://images.example.com/"] }) { server in
                let refused = try await server.get(path)
                #expect(refused.status == 404 && refused.body == Data("Invalid source URL\n".utf8))
            }
            // Loopback is refused by the downloader's guard unless allowed.
            try await withRunningServer(.underTest()) { server in
                let guarded = try await server.get(path)
                #expect(guarded.status == 404)
            }
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let fetched = try Self.object(try await server.get(path))
                #expect(fetched["width"] as? Int == 640)
            }
        }
    }

    @Test func aMissingSourceIs404EvenWithAFallbackImage() async throws {
        let fallback = TestServer.imagesFolder.appendingPathComponent("sdwebimage/TestImage.png").path
        try await withRunningServer(Self.configuration { $0.fallbackImagePath = fallback }) { server in
            // An image URL gets the fallback image; an info would describe that other image.
            #expect(try await server.get("/unsafe/plain/local:///photos/no-such.jpg@png").status == 200)
            let info = try await server.get(Self.path("photos/no-such.jpg"))
            #expect(info.status == 404 && info.body == Data("Invalid source URL\n".utf8))
        }
    }

    @Test func aSourceOverTheResolutionLimitIs422ByItsHeader() async throws {
        // 60 MP by its header, a 1x1 image's pixels: refused by the header alone (no time bound here: a
        // loaded machine breaks one; the library's tests show no pixel is decoded).
        let bytes = try SourceImages.sixtyMegapixelPNG()
        try await withOrigin { origin in
            let file = bytes
            origin.route("/sixty-megapixels.png") { _ in .content(file, type: "image/png") }
            let source = origin.url("/sixty-megapixels.png").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            try await withRunningServer(.fetchingFromLoopback()) { server in
                let reply = try await server.get("/info/unsafe/plain/" + source)
                #expect(reply.status == 422 && reply.body == Data("Source image is too large\n".utf8))
            }
        }
        // `MAX_SRC_RESOLUTION` and `MAX_SRC_FILE_SIZE` are the processing's: under 0.1 MP,
        // rocket.jpg (0.27 MP) is refused; under 100 KB, its 112 KB too.
        try await withRunningServer(Self.configuration { $0.processing.maxSourceResolution = 100_000 }) { server in
            let reply = try await server.get(Self.path("photos/rocket.jpg"))
            #expect(reply.status == 422 && reply.body == Data("Source image is too large\n".utf8))
        }
        try await withRunningServer(Self.configuration { $0.processing.maxSourceFileSize = 100_000 }) { server in
            let reply = try await server.get(Self.path("photos/rocket.jpg"))
            #expect(reply.status == 422 && reply.body == Data("Source image is too large\n".utf8))
            #expect(try await server.get(Self.path("sdwebimage/TestImage.png")).status == 200)
        }
    }

    @Test func aHashsumTheSourceDoesNotHaveIs422() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let digest = try #require(try Self.object(try await server.get(Self.path("photos/rocket.jpg", options: "chs:sha256")))["hashsums"] as? [String: String])["sha256"]
            let sha256 = try #require(digest)
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "hashsum:sha256:" + sha256.uppercased())).status == 200)
            let other = String(sha256.dropLast()) + (sha256.hasSuffix("0") ? "1" : "0")
            let mismatch = try await server.get(Self.path("photos/rocket.jpg", options: "hs:sha256:" + other))
            #expect(mismatch.status == 422 && mismatch.body == Data("Source image hashsum mismatch\n".utf8))
            // Not from the answer the right digest left in the result store.
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "hs:sha256:" + other)).status == 422)
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "hs:none")).status == 200)
            for bad in ["hs:crc32:00", "hs:md5:abc", "hs:sha1:" + String(repeating: "g", count: 40), "hs:"] {
                let reply = try await server.get(Self.path("photos/rocket.jpg", options: bad))
                #expect(reply.status == 400 && String(decoding: reply.body, as: UTF8.self).contains("hs"), "\(bad): \(reply.status)")
            }
        }
    }

    @Test func theURLsOwnSourceLimitsApplyWithSecurityOptionsAllowed() async throws {
        try await withRunningServer(Self.configuration()) { server in
            // Security options need ALLOW_SECURITY_OPTIONS, as in processing URLs.
            let refused = try await server.get(Self.path("photos/rocket.jpg", options: "msr:0.1"))
            #expect(refused.status == 403 && String(decoding: refused.body, as: UTF8.self).contains("Security processing options are not allowed"))
        }
        try await withRunningServer(Self.configuration { $0.processing.allowSecurityOptions = true }) { server in
            // rocket.jpg is 0.27 MP and 112 KB.
            let overResolution = try await server.get(Self.path("photos/rocket.jpg", options: "msr:0.1"))
            #expect(overResolution.status == 422 && overResolution.body == Data("Source image is too large\n".utf8))
            let overSize = try await server.get(Self.path("photos/rocket.jpg", options: "max_src_file_size:100000"))
            #expect(overSize.status == 422)
            // Within the URL's limits, answered; and not from the answer of a lower limit's key.
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "msr:1/msfs:200000")).header("x-cache") == "miss")
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "msr:0.5")).header("x-cache") == "miss")
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "msr:0.5")).header("x-cache") == "memory")
        }
    }

    // MARK: Caching

    @Test func anInfoIsKeptAndItsEntityTagAnswers304() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let path = Self.path("photos/rocket.jpg", options: "bh:4:3")
            let first = try await server.get(path)
            let tag = try #require(first.header("etag"))
            #expect(first.status == 200 && first.header("x-cache") == "miss")
            let again = try await server.get(path)
            #expect(again.header("x-cache") == "memory" && again.body == first.body && again.header("etag") == tag)
            let notModified = try await server.get(path, headers: ["If-None-Match": tag])
            #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.header("etag") == tag)
            // The same fields by other names: the same info.
            let aliased = try await server.get(Self.path("photos/rocket.jpg", options: "blurhash:4:3"))
            #expect(aliased.header("x-cache") == "memory" && aliased.header("etag") == tag)
            // Other fields: another tag.
            let other = try await server.get(Self.path("photos/rocket.jpg", options: "bh:3:3"), headers: ["If-None-Match": tag])
            #expect(other.status == 200 && other.header("etag") != tag)
        }
        try await withRunningServer(Self.configuration { $0.usesETag = false }) { server in
            let reply = try await server.get(Self.path("photos/rocket.jpg"))
            #expect(reply.status == 200 && reply.header("etag") == nil)
        }
    }

    @Test func cacheBusterAndExpiresAreReadAsInProcessingURLs() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let first = try await server.get(Self.path("photos/rocket.jpg", options: "cb:v1"))
            #expect(first.status == 200 && first.header("x-cache") == "miss")
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "cachebuster:v1")).header("x-cache") == "memory")
            let busted = try await server.get(Self.path("photos/rocket.jpg", options: "cb:v2"))
            #expect(busted.header("x-cache") == "miss" && busted.body == first.body)
            let now = Int(Date().timeIntervalSince1970)
            let expiring = try await server.get(Self.path("photos/rocket.jpg", options: "exp:\(now + 100)"))
            // Kept no longer than the URL is valid.
            let maxAge = expiring.header("cache-control").flatMap { Int($0.split(separator: "=").last ?? "") }
            #expect(expiring.status == 200 && maxAge.map { (1...100).contains($0) } == true, "\(expiring.headers)")
            #expect(first.header("cache-control") == "public, max-age=\(ImageServerConfiguration().ttl)")
            let expired = try await server.get(Self.path("photos/rocket.jpg", options: "expires:\(now - 100)"))
            #expect(expired.status == 403 && expired.body == Data("Expired URL\n".utf8))
        }
    }

    @Test func infoRequestsAreCountedLoggedWithoutTheirSignatureAndPrefixed() async throws {
        let metrics = TestMetrics()
        try await withRunningServer(Self.configuration(), metrics: metrics) { server in
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "th:1")).status == 200)
            #expect(try await server.get(Self.path("photos/rocket.jpg", options: "nonsense:1")).status == 400)
            // HEAD: the same fields, no body.
            let head = try await ServerUnderTest.request(Self.path("photos/rocket.jpg", options: "th:1"), method: "HEAD", port: server.port)
            #expect(head.status == 200 && head.body.isEmpty && head.header("content-type") == "application/json")
            #expect(try metrics.expectCounter("webimage_server_requests_total", [("status", "200"), ("format", "none")]).totalValue == 2)
            #expect(try metrics.expectCounter("webimage_server_requests_total", [("status", "400"), ("format", "none")]).totalValue == 1)
            #expect(try metrics.expectCounter("webimage_server_cache_lookups_total", [("tier", "miss")]).totalValue == 1)
        }
        // Under `PATH_PREFIX`, as image URLs.
        try await withRunningServer(Self.configuration { $0.pathPrefix = "/images" }) { server in
            let (prefixed, bare) = (try await server.get("/images" + Self.path("photos/rocket.jpg")), try await server.get(Self.path("photos/rocket.jpg")))
            #expect(prefixed.status == 200 && bare.status == 404)
        }
        // The access line's path: `/info`, the options and the source, not the signature.
        #expect(ImageServer.loggedPath("/info/c2lnbmF0dXJl/th:1/plain/local:///a.jpg") == "/info/th:1/plain/local:///a.jpg")
        #expect(ImageServer.loggedPath("/c2lnbmF0dXJl/rs:fit:1:1/plain/local:///a.jpg") == "/rs:fit:1:1/plain/local:///a.jpg")
    }

    // MARK: The CLI

    /// `text` without the whitespace between JSON tokens (a pretty-printed document as compact).
    static func compact(_ text: String) -> String {
        var result = "", inString = false, escaped = false
        for character in text {
            if inString {
                result.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
                result.append(character)
            } else if !character.isWhitespace {
                result.append(character)
            }
        }
        return result
    }

    @Test(arguments: [
        ("photos/rocket.jpg", ""), ("exif-orientation/Landscape_6.jpg", "exif:1:1/cs:1/b:1/sf:1/pn:1"),
        ("photos/hubble_deep_field.jpg", "bh:4:3/th:1/ph:1/avg:1/dc:1:1/p:8/chs:md5:sha1"), ("webp/lossy_alpha1.webp", "a:1:1/avg:1:0"),
        ("faces/astronaut-6.jpg", "do:1"), ("photos/rocket.jpg", "detect_objects:1/th:1"),
    ])
    func theJSONIsTheCLIs(file: String, options: String) async throws {
        let printed = try await ServeProcess.output(
            of: ["info", "--json"] + (options.isEmpty ? [] : ["--options", options]) + [TestServer.imagesFolder.appendingPathComponent(file).path]
        )
        let reply = try await withRunningServer(Self.configuration()) { server in try await server.get(Self.path(file, options: options)) }
        #expect(reply.status == 200)
        // The CLI pretty-prints; token for token, the bytes are the server's.
        #expect(Self.compact(printed) == String(decoding: reply.body, as: UTF8.self))
    }
}
