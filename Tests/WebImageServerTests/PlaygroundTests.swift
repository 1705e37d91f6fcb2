import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The playground page at `/`: the server signs what the form asks and shows the result.
@Suite(.offThePool, .timeLimit(.minutes(TestAllowance.minutes(5)))) struct PlaygroundTests {
    /// A signing server with the playground on, serving the test images as local sources.
    static func configuration() -> ImageServerConfiguration {
        .underTest {
            $0.keys = ["736563726574"]
            $0.salts = ["68656c6c6f"]
            $0.localFilesystemRoot = TestServer.imagesFolder.path
            $0.playground = true
        }
    }

    @Test func thePageListsSamplesAndItsSignaturesAreServed() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let page = try await server.get("/")
            #expect(page.status == 200 && page.header("content-type") == "text/html; charset=utf-8")
            #expect(String(decoding: page.body, as: UTF8.self).contains("\"local:///photos/"))
            let query = "source=local:///photos/rocket.jpg&options=rs:fill:300:200&format=png"
            let signing = try await server.get("/playground/sign?" + query.replacingOccurrences(of: ":", with: "%3A"))
            let path = try #require(try JSONDecoder().decode([String: String].self, from: signing.body)["path"])
            #expect(!path.hasPrefix("/unsafe/"))
            let result = try await server.get(path)
            #expect(result.status == 200 && result.header("content-type") == "image/png")
            let image = try ImageCodersManager.shared.decode(result.body, options: ImageCoderOptions())
            #expect(image.pixelWidth == 300 && image.pixelHeight == 200)
            #expect(try await server.get("/playground/sign").status == 400)
        }
    }

    /// The info panel's two calls: an `/info` path signed by the page's signer, and the
    /// placeholders the library paints from the hashes that info gave.
    @Test func theInfoPanelsPathIsSignedAndItsHashesArePaintedByTheLibrary() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let query = "kind=info&source=local%3A%2F%2F%2Fphotos%2Frocket.jpg&options=bh%3A4%3A3%2Fth%3A1%2Fdc%3A1&format=png"
            let signing = try await server.get("/playground/sign?" + query)
            let path = try #require(try JSONDecoder().decode([String: String].self, from: signing.body)["path"])
            #expect(path.hasPrefix("/info/") && !path.hasPrefix("/info/unsafe/") && !path.hasSuffix(".png"), "\(path)")
            let answer = try await server.get(path)
            #expect(answer.status == 200 && answer.header("content-type") == "application/json")
            let info = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            let blurHash = try #require(info["blurhash"] as? String)
            let thumbHash = try #require(info["thumb_hash"] as? String)
            #expect((info["dominant_colors"] as? [String: Any])?.isEmpty == false)

            let painted = try await server.get("/playground/placeholder?blurhash=\(blurHash.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&width=32&height=21")
            #expect(painted.status == 200 && painted.header("content-type") == "image/png")
            let placeholder = try ImageCodersManager.shared.decode(painted.body, options: ImageCoderOptions())
            let expected = try WebImage.Image(blurHash: blurHash, size: CGSize(width: 32, height: 21))
            #expect(placeholder.pixelWidth == 32 && placeholder.pixelHeight == 21)
            #expect(try placeholder.withUnsafeRGBA8Bytes { a in try expected.withUnsafeRGBA8Bytes { b in a.elementsEqual(b) } })

            let thumb = try await server.get("/playground/placeholder?thumbhash=" + thumbHash)
            let thumbImage = try ImageCodersManager.shared.decode(thumb.body, options: ImageCoderOptions())
            let thumbExpected = WebImage.Image(thumbHash: try ThumbHash(hexString: thumbHash))
            #expect(thumb.status == 200 && thumbImage.pixelWidth == thumbExpected.pixelWidth && thumbImage.pixelHeight == thumbExpected.pixelHeight)

            for bad in ["", "blurhash=%21%21", "thumbhash=XYZ", "thumbhash=0", "blurhash=LEHV6nWB2yk8pyo0adR*.7kCMdnj&width=100000"] {
                let refused = try await server.get("/playground/placeholder?" + bad)
                #expect(refused.status == (bad.contains("width=100000") ? 200 : 400), "\(bad): \(refused.status)")
            }
        }
    }

    @Test func thePlaygroundIsOnOnlyOnLoopbackUnlessConfigured() async throws {
        var configuration = ImageServerConfiguration()
        #expect(configuration.servesPlayground)
        configuration.bind = ServerAddress(host: "0.0.0.0", port: 8080)
        #expect(!configuration.servesPlayground)
        configuration.playground = true
        #expect(configuration.servesPlayground)
        try await withRunningServer(.underTest { $0.playground = false }) { server async throws in
            #expect(try await server.get("/").status == 404)
            #expect(try await server.get("/playground/sign?source=local%3A%2F%2F%2Fa.jpg").status == 404)
        }
    }

    /// The page in headless Chromium (Debian's package): the form submitted with a source and
    /// options shows a result of the asked size, and a screenshot is written.
    @Test func inChromiumASubmittedFormShowsAResultOfTheAskedSize() async throws {
        try await Self.withChromium { chromium, browser, folder in try await withRunningServer(Self.configuration()) { server in
            // What the form's GET submission navigates to.
            let submitted = "http://127.0.0.1:\(server.port)/?source=local%3A%2F%2F%2Fphotos%2Frocket.jpg&options=rs%3Afill%3A240%3A160&format=png"
            let dom = try await ServeProcess.output(of: browser + ["--dump-dom", submitted], executable: chromium)
            #expect(dom.contains("data-width=\"240\"") && dom.contains("data-height=\"160\""), "\(dom.suffix(2000))")
            #expect(dom.contains("image/png"))
            // The info panel: the source's facts, its swatches, the two placeholders loaded.
            #expect(dom.contains("source: 640x427, jpeg"), "\(dom.suffix(3000))")
            #expect(dom.contains("data-name=\"average\"") && dom.contains("data-name=\"vibrant\""))
            #expect(dom.contains("id=\"info-blurhash\" alt=\"BlurHash placeholder\" src=") && dom.contains("data-width=\"32\" data-height=\"21\""))
            #expect(dom.firstMatch(of: /id="info-thumbhash"[^>]*data-width="\d+"/) != nil)

            let screenshot = folder.appendingPathComponent("playground.png")
            _ = try await ServeProcess.output(of: browser + ["--window-size=1200,900", "--screenshot=" + screenshot.path, submitted], executable: chromium)
            let shot = try ImageCodersManager.shared.decode(try Data(contentsOf: screenshot), options: ImageCoderOptions())
            #expect(shot.pixelWidth == 1200 && shot.pixelHeight == 900)
        } }
    }

    /// Runs `body` with Debian's headless Chromium: its path, its arguments, and the profile
    /// folder they name (its own, removed after). Fails the test when Chromium is not installed.
    static func withChromium<T>(_ body: (_ chromium: URL, _ arguments: [String], _ folder: URL) async throws -> T) async throws -> T {
        let chromium = URL(fileURLWithPath: "/usr/bin/chromium")
        try #require(FileManager.default.isExecutableFile(atPath: chromium.path), "chromium: bash scripts/setup.sh installs it")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-playground-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + folder.path, "--virtual-time-budget=20000"], folder)
    }

    /// The gallery a new user sees on the README's demo root: every sample is an image the
    /// server reads (no broken tiles), and the result and source are hidden until a first run.
    @Test func theGalleryShowsOnlyImagesTheServerReadsAndNothingBeforeARun() async throws {
        try await withRunningServer(Self.configuration()) { server in
            let page = String(decoding: try await server.get("/").body, as: UTF8.self)
            #expect(page.contains("<div class=\"pair\" id=\"pair\" hidden>"))
            let list = try #require(page.firstMatch(of: /const samples = \[(.*)\];/)).output.1
            let samples = list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
            #expect(!samples.isEmpty && samples.allSatisfy { $0.hasPrefix("local:///") }, "\(samples)")
            let signer = try URLSigner(key: URLSigningKey(hexKey: "736563726574", hexSalt: "68656c6c6f"))
            for source in samples {
                let result = try await server.get(signer.signedPath("/rs:fill:300:200/g:sm/plain/" + source))
                #expect(result.status == 200, "\(source): \(result.status)")
            }
        }
    }
}
