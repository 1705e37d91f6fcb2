import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// `FALLBACK_IMAGE_DATA` / `_PATH` / `_URL`, `FALLBACK_IMAGE_HTTP_CODE` and `FALLBACK_IMAGE_TTL`
/// over HTTP: a source that cannot be had or read is answered with the fallback image, made as
/// the request asks, never stored as the result.
@Suite(.offThePool) struct FallbackImageTests {
    /// The unsigned path of the origin's `route` through `options`, as PNG.
    static func path(_ origin: TestServer, _ route: String, options: String = "rs:fit:100:100") -> String {
        let source = origin.url(route).absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/unsafe/\(options)/plain/\(source)@png"
    }

    static func size(_ reply: ServerUnderTest.Reply) throws -> (Int, Int) {
        let image = try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
        return (image.pixelWidth, image.pixelHeight)
    }

    static func base64(_ name: String) throws -> String {
        try SourceImages.data(name).base64EncodedString()
    }

    @Test func aSourceTheOriginDoesNotHaveIsAnsweredWithTheFallbackMadeAsAskedAndNeverStored() async throws {
        try await withOrigin { origin in
            // The origin has no image the first time, then has it.
            let rocket = try SourceImages.data(SourceImages.rocket)
            origin.route("/flaky.jpg") { request in
                request.attempt == 1 ? .status(404) : .content(Array(rocket), type: "image/jpeg")
            }
            let configuration = ImageServerConfiguration.fetchingFromLoopback { configuration in
                configuration.fallbackImageData = try? Self.base64(SourceImages.alphaPNG)    // 300x300
            }
            try await withRunningServer(configuration) { server in
                let fallback = try await server.get(Self.path(origin, "/flaky.jpg"))
                #expect(fallback.status == 200 && fallback.header("content-type") == "image/png")
                #expect(try Self.size(fallback) == (100, 100))
                #expect(fallback.header("x-cache") == "fallback" && fallback.header("etag") == nil)
                #expect(fallback.header("cache-control") == "public, max-age=31536000")
                // Not stored: the next request fetches again and gets the real image, made anew.
                let real = try await server.get(Self.path(origin, "/flaky.jpg"))
                #expect(real.status == 200 && real.header("x-cache") == "miss")
                #expect(try Self.size(real) == (100, 67))
                #expect(origin.requestCount("/flaky.jpg") == 2)
                let again = try await server.get(Self.path(origin, "/flaky.jpg"))
                #expect(again.header("x-cache") == "memory" && again.body == real.body)
            }
        }
    }

    @Test func dataComesBeforeAPathWhichComesBeforeAURLFetchedOnceWhenFirstNeeded() async throws {
        try await withOrigin { origin in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fallback-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("fallback.jpg")
            try SourceImages.data(SourceImages.rocket).write(to: file)                       // 640x427
            let url = origin.url("/images/" + SourceImages.loopGIF).absoluteString           // 72x48
            let data = try Self.base64(SourceImages.alphaPNG)                                 // 300x300
            let missing = Self.path(origin, "/status/404")

            let all = ImageServerConfiguration.fetchingFromLoopback {
                ($0.fallbackImageData, $0.fallbackImagePath, $0.fallbackImageURL) = (data, file.path, url)
            }
            try await withRunningServer(all) { server in
                let reply = try await server.get(missing)
                #expect(try Self.size(reply) == (100, 100))
            }
            let pathAndURL = ImageServerConfiguration.fetchingFromLoopback { ($0.fallbackImagePath, $0.fallbackImageURL) = (file.path, url) }
            try await withRunningServer(pathAndURL) { server in
                let reply = try await server.get(missing)
                #expect(try Self.size(reply) == (100, 67))
            }
            #expect(origin.requestCount("/images/" + SourceImages.loopGIF) == 0)
            let urlOnly = ImageServerConfiguration.fetchingFromLoopback { $0.fallbackImageURL = url }
            try await withRunningServer(urlOnly) { server in
                for _ in 0..<2 {
                    let reply = try await server.get(missing)
                    #expect(reply.status == 200 && reply.header("x-cache") == "fallback")
                    #expect(try Self.size(reply) == (72, 48))
                }
            }
            #expect(origin.requestCount("/images/" + SourceImages.loopGIF) == 1)
        }
    }

    @Test func theStatusAndMaxAgeAreTheSettingsOrTheFailuresOwn() async throws {
        try await withOrigin { origin in
            let data = try Self.base64(SourceImages.alphaPNG)
            // 0: the failure's own status (the origin's 404 is 404 "Source is unreachable"); no
            // TTL of its own at an error status: not cached.
            let own = ImageServerConfiguration.fetchingFromLoopback { ($0.fallbackImageData, $0.fallbackImageHTTPCode) = (data, 0) }
            try await withRunningServer(own) { server in
                let reply = try await server.get(Self.path(origin, "/status/404"))
                #expect(reply.status == 404 && reply.header("content-type") == "image/png" && reply.header("cache-control") == "no-store")
                #expect(try Self.size(reply) == (100, 100))
                // An unreadable source (bytes that are no image) gives the fallback too, at 422.
                let unreadable = try await server.get(Self.path(origin, "/bytes/2000?type=image/jpeg"))
                #expect(unreadable.status == 422 && unreadable.header("x-cache") == "fallback")
            }
            let chosen = ImageServerConfiguration.fetchingFromLoopback {
                ($0.fallbackImageData, $0.fallbackImageHTTPCode, $0.fallbackImageTTL) = (data, 503, 60)
            }
            try await withRunningServer(chosen) { server in
                let reply = try await server.get(Self.path(origin, "/status/500"))
                #expect(reply.status == 503 && reply.header("cache-control") == "public, max-age=60")
                #expect(try Self.size(reply) == (100, 100))
            }
        }
    }

    @Test func aSourceRefusedByTheAllowListOrAURLErrorIsNotAnsweredWithTheFallback() async throws {
        try await withOrigin { origin in
            let configuration = ImageServerConfiguration.fetchingFromLoopback {
                $0.fallbackImageData = try? Self.base64(SourceImages.alphaPNG)
                $0.allowedSources = ["https://images.example.com/"]
            }
            try await withRunningServer(configuration) { server in
                let refused = try await server.get(Self.path(origin, "/images/" + SourceImages.rocket))
                #expect(refused.status == 404 && refused.header("content-type")?.hasPrefix("text/plain") == true)
                let badOption = try await server.get("/unsafe/rs:nonsense/plain/https%3A%2F%2Fimages.example.com%2Fa.jpg@png")
                #expect(badOption.status == 400)
            }
            #expect(origin.requestCount("/images/" + SourceImages.rocket) == 0)
        }
    }

    @Test func imgproxysNamesAreReadAndABadFallbackStopsTheServerAtStart() async throws {
        let data = try Self.base64(SourceImages.alphaPNG)
        let read = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: [
            "IMGPROXY_FALLBACK_IMAGE_DATA": data, "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "404", "IMGPROXY_FALLBACK_IMAGE_TTL": "30",
        ])
        #expect(read.fallbackImageData == data && read.fallbackImageHTTPCode == 404 && read.fallbackImageTTL == 30)

        do {
            _ = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "42"])
            Issue.record("a status of 42 was taken")
        } catch let error as ImageServerConfigurationError {
            #expect(error.problems == ["WEBIMAGE_FALLBACK_IMAGE_HTTP_CODE (--fallback-image-http-code): \"42\" is not an HTTP status (100...599) or 0"])
        }

        var missingFile = ImageServerConfiguration.underTest()
        missingFile.fallbackImagePath = "/nonexistent/fallback.png"
        #expect(throws: ImageServerConfigurationError(problems: [
            "WEBIMAGE_FALLBACK_IMAGE_PATH (--fallback-image-path): /nonexistent/fallback.png cannot be read",
        ])) { try ImageServer(configuration: missingFile) }

        var notAnImage = ImageServerConfiguration.underTest()
        notAnImage.fallbackImageData = Data("not an image".utf8).base64EncodedString()
        #expect(throws: ImageServerConfigurationError(problems: [
            "WEBIMAGE_FALLBACK_IMAGE_DATA (--fallback-image-data): not an image this server reads",
        ])) { try ImageServer(configuration: notAnImage) }
    }
}
