import Foundation
import Hummingbird
import Testing
import WebImage
import WebImageServer
import WebImageTestSupport

/// The code of the WebImageServer catalog's "Mounting the Server" article
/// (Sources/WebImageServer/WebImageServer.docc), run here: `ArticleCodeTests` (in WebImageTests)
/// checks that the article quotes these lines.
@Suite(.offThePool) enum Documentation {
    @Suite("Mounting the server", .offThePool) struct MountingExample {
        @Test func servesLocalImagesUnderAPrefixOfTheApplication() async throws {
            let imagesFolder = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Images").path
            let cacheFolder = FileManager.default.temporaryDirectory.path + "/webimage-mounting-example-" + UUID().uuidString

            try await withRunningApplication(cacheFolder: cacheFolder) { logger, onListening in
                var configuration = ImageServerConfiguration()
                configuration.localFilesystemRoot = imagesFolder              // local:/// sources
                configuration.cacheDirectory = cacheFolder                    // results and sources
                configuration.timeout = 60                                    // seconds a request may take (default 10)
                let images = try ImageServer(configuration: configuration)    // or with a parser and downloader of your own
                let router = Router(context: ImageServerContext.self)
                images.addRoutes(to: router.group("images"))     // GET /images/{signature}/{options}/{source}, /images/health

                return Application(
                    router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                    services: [images],  // ends its threads after the last request, at the application's stop
                    onServerRunning: { await onListening($0.localAddress?.port ?? 0) }, logger: logger
                )
            } body: { service in
                let reply = try await service.get("/images/unsafe/rs:fill:300:200/plain/local:///photos/rocket.jpg")
                #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
                let thumbnail = try ImageCodersManager.shared.decode(reply.body, options: ImageCoderOptions())
                #expect(thumbnail.pixelWidth == 300 && thumbnail.pixelHeight == 200)
            }
        }
    }
}
