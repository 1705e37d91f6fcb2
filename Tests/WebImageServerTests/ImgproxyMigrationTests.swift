import Foundation
import NIOHTTP1
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// An imgproxy deployment moved over unchanged: the server started from an environment with
/// `IMGPROXY_` names only, S3 sources on a real S3-compatible store (moto), and asked over HTTP
/// with URLs that pyimgproxy, a third-party imgproxy URL builder from PyPI, signed with the same
/// key and salt (scripts/pyimgproxy-venv.sh installs it; Tests/Migration/imgproxy_paths.py runs
/// it). Python runs once per test, for every URL at once: a fraction of a second.
@Suite(.offThePool) struct ImgproxyMigrationTests {
    static let venv = URL(fileURLWithPath: ProcessInfo.processInfo.environment["WEBIMAGE_TEST_PYIMGPROXY_VENV"] ?? "/opt/pyimgproxy-venv")
    /// Tests/Migration/imgproxy_paths.py (this file is Tests/WebImageServerTests/ImgproxyMigrationTests.swift).
    static let builder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Migration/imgproxy_paths.py")
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Images")

    /// One URL for pyimgproxy to build: a source and options, each a name and its arguments.
    struct Request: Encodable {
        var source: String
        var options: [[String]]
    }

    /// The signed paths pyimgproxy builds for `requests` with `key` and `salt` (hex), under `prefix`.
    static func imgproxyPaths(_ requests: [Request], key: String, salt: String, prefix: String) async throws -> [String] {
        let python = venv.appendingPathComponent("bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "pyimgproxy: bash scripts/setup.sh installs it (scripts/pyimgproxy-venv.sh)")
        let json = String(decoding: try JSONEncoder().encode(requests), as: UTF8.self)
        let output = try await ServeProcess.output(of: [builder.path, key, salt, prefix, json], executable: python)
        return try JSONDecoder().decode([String].self, from: Data(output.utf8))
    }

    /// 32 random bytes in hex: a key or a salt as an imgproxy deployment makes them.
    static func randomHex() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    @Test func anImgproxyEnvironmentAndImgproxysURLsWorkUnchanged() async throws {
        try await withMoto(bucket: "media", objects: ["photos/rocket.jpg=photos/rocket.jpg"]) { moto in
            let (key, salt) = (Self.randomHex(), Self.randomHex())
            let origin = "https://app.example"
            let environment: [String: String] = [
                "IMGPROXY_BIND": "127.0.0.1:0",
                // As every server under test: time limits a busy machine does not reach.
                "IMGPROXY_TIMEOUT": "60",
                "IMGPROXY_DOWNLOAD_TIMEOUT": "60",
                "IMGPROXY_KEY": key,
                "IMGPROXY_SALT": salt,
                "IMGPROXY_USE_S3": "true",
                "IMGPROXY_S3_ENDPOINT": moto.endpoint,
                "IMGPROXY_S3_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": moto.credentials.accessKeyID,
                "AWS_SECRET_ACCESS_KEY": moto.credentials.secretAccessKey,
                "IMGPROXY_FALLBACK_IMAGE_PATH": Self.images.appendingPathComponent("sdwebimage/TestImage.png").path,
                "IMGPROXY_PATH_PREFIX": "/media",
                "IMGPROXY_SECRET": "a-bearer-token",
                "IMGPROXY_ALLOW_ORIGIN": origin,
                "IMGPROXY_JPEG_PROGRESSIVE": "true",
                "IMGPROXY_WATERMARK_PATH": try WatermarkTests.markFile().path,
                "IMGPROXY_WATERMARK_OPACITY": "1",
            ]
            var configuration = try await ImageServerConfiguration.load(arguments: ["webimage"], environment: environment)
            // The cache folder is this server's own (imgproxy keeps none): a fresh one, as every test's.
            configuration.cacheDirectory = ImageServerConfiguration.underTest().cacheDirectory

            let requests = [
                Request(source: "s3://media/photos/rocket.jpg", options: [["rs", "fit", "100", "100"], ["f", "png"]]),
                Request(source: "s3://media/photos/rocket.jpg", options: [["rs", "fit", "300", "300"], ["extend_aspect_ratio", "1"], ["f", "png"]]),
                Request(source: "s3://media/photos/missing.jpg", options: [["rs", "fit", "100", "100"], ["f", "png"]]),
                Request(source: "s3://media/photos/rocket.jpg", options: [["rs", "fit", "200", "200"], ["f", "jpg"]]),
                Request(source: "s3://media/photos/rocket.jpg", options: [["rs", "fit", "200", "200"], ["wm", "1", "soea"], ["f", "png"]]),
                Request(source: "s3://media/photos/rocket.jpg", options: [["rs", "fit", "200", "200"], ["f", "png"]]),
            ]
            let paths = try await Self.imgproxyPaths(requests, key: key, salt: salt, prefix: "/media")
            let forged = try await Self.imgproxyPaths(requests, key: Self.randomHex(), salt: salt, prefix: "/media")
            let bearer = ["Authorization": "Bearer a-bearer-token"]

            try await withRunningServer(configuration) { server in
                // The signed S3 source, read with the environment's AWS credentials.
                let fitted = try await server.get(paths[0], headers: bearer)
                #expect(fitted.status == 200 && fitted.header("content-type") == "image/png")
                #expect(fitted.header("access-control-allow-origin") == origin)
                let image = try ImageCodersManager.shared.decode(fitted.body, options: ImageCoderOptions())
                #expect(image.pixelWidth == 100 && image.pixelHeight == 67)
                let square = try ImageCodersManager.shared.decode(try await server.get(paths[1], headers: bearer).body, options: ImageCoderOptions())
                #expect(square.pixelWidth == 300 && square.pixelHeight == 300)

                // A missing object: the fallback image, made with the request's options.
                let fallback = try await server.get(paths[2], headers: bearer)
                #expect(fallback.status == 200 && fallback.header("x-cache") == "fallback")
                let drawn = try ImageCodersManager.shared.decode(fallback.body, options: ImageCoderOptions())
                #expect(drawn.pixelWidth == 100 && drawn.pixelHeight == 100)

                // The bearer secret, the signature and the prefix are checked.
                #expect(try await server.get(paths[0]).status == 403)
                #expect(try await server.get(paths[0], headers: ["Authorization": "Bearer another"]).status == 403)
                #expect(try await server.get(forged[0], headers: bearer).status == 403)
                #expect(try await server.get(String(paths[0].dropFirst("/media".count)), headers: bearer).status == 404)

                // JPEG_PROGRESSIVE: a progressive frame (SOF2).
                let jpeg = try await server.get(paths[3], headers: bearer)
                #expect(jpeg.status == 200 && JPEGMarkers.frameMarker(of: jpeg.body) == 0xC2)

                // The watermark of WATERMARK_PATH (a 50x25 green mark at its own size) in the
                // bottom right corner, and nowhere else.
                let marked = try WatermarkTests.decoded(try await server.get(paths[4], headers: bearer))
                let plain = try WatermarkTests.decoded(try await server.get(paths[5], headers: bearer))
                #expect(marked.pixelWidth == 200 && marked.pixelHeight == 133)
                #expect(try WatermarkTests.changedArea(marked, from: plain) == [150, 108, 50, 25])
                #expect(marked.pixel(x: 199, y: 132) == WatermarkTests.green)

                // A browser's preflight, without the secret, and the health check under the prefix.
                let preflight = try await server.send(.OPTIONS, paths[0])
                #expect(preflight.status == 200 && preflight.header("access-control-allow-origin") == origin)
                #expect(try await server.get("/media/health").status == 200)
            }
        }
    }
}
