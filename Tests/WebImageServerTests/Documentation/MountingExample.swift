import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOFoundationCompat
import ServiceLifecycle
import Testing
import WebImage
import WebImageServer

/// The code of the WebImageServer catalog's "Mounting the Server" article
/// (Sources/WebImageServer/WebImageServer.docc), run here: `ArticleCodeTests` (in WebImageTests)
/// checks that the article quotes these lines.
@Suite enum Documentation {
    @Suite("Mounting the server") struct MountingExample {
        @Test func servesImagesUnderAPrefixOfTheApplication() async throws {
            let imagesFolder = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Images").path
            let cacheFolder = FileManager.default.temporaryDirectory.path + "/webimage-mounting-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: cacheFolder) }

            var configuration = ImageServerConfiguration()
            configuration.localFilesystemRoot = imagesFolder              // local:/// sources
            configuration.cacheDirectory = cacheFolder                    // results and sources
            let images = try ImageServer(configuration: configuration)    // or with a parser and downloader of your own
            let router = Router(context: ImageServerContext.self)
            images.addRoutes(to: router.group("images"))     // GET /images/{signature}/{options}/{source}, /images/health

            let (ports, port) = AsyncStream.makeStream(of: Int.self)
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { port.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "mounting-example")
            )
            let group = ServiceGroup(configuration: .init(services: [app], logger: app.logger))
            let running = Task { try await group.run() }
            var bound = ports.makeAsyncIterator()
            let base = "http://127.0.0.1:\(try #require(await bound.next()))"

            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: base + "/images/unsafe/rs:fill:300:200/plain/local:///photos/rocket.jpg"), timeout: .seconds(60)
            )
            let body = try await response.body.collect(upTo: 16 << 20)
            let thumbnail = try #require(Image(data: Data(buffer: body)))

            #expect(response.status == .ok && response.headers["Content-Type"].first == "image/jpeg")
            #expect(thumbnail.pixelWidth == 300 && thumbnail.pixelHeight == 200)
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }
}
