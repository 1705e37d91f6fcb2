import Foundation
import Hummingbird
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer

/// A Swift service serving images from its own Hummingbird application, without a second
/// process: the image routes mounted under a prefix beside the service's routes.
@Suite struct MountingTests {
    @Test func imagesAreServedUnderThePrefixBesideTheServicesOwnRoutes() async throws {
        let origin = try await TestServer.start()
        defer { Task { await origin.shutdown() } }
        var configuration = ImageServerConfiguration()
        configuration.cacheDirectory = FileManager.default.temporaryDirectory.path + "/webimage-mounting-tests-" + UUID().uuidString
        configuration.allowsLoopbackSourceAddresses = true
        configuration.timeout = 60
        let images = try ImageServer(configuration: configuration)
        let service = try await ServerUnderTest.serve(cacheFolder: configuration.cacheDirectory) { logger, onListening in
            let router = Router(context: ImageServerContext.self)
            router.get("hello") { _, _ in "the service's own route\n" }
            images.addRoutes(to: router.group("images"))
            return Application(
                router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { await onListening($0.localAddress?.port ?? 0) }, logger: logger
            )
        }
        defer { Task { await service.stop() } }

        let thumbnail = SourceGuardServingTests.path(source: origin.url("/images/photos/rocket.jpg"))
        let image = try await service.get("/images" + thumbnail)
        #expect(image.status == 200 && image.header("content-type") == "image/jpeg")
        let decoded = try ImageCodersManager.shared.decode(image.body, options: ImageCoderOptions())
        #expect(max(decoded.pixelWidth, decoded.pixelHeight) == 100)
        // Mounted under the prefix: the health check answers there (503 when the blocking pool,
        // shared with the whole suite's decodes, takes over its 5 s: seen under AddressSanitizer).
        let health = try await service.get("/images/health")
        #expect(health.status == 200 || (health.status == 503 && health.body == Data("unhealthy".utf8)), "\(health.status)")
        let own = try await service.get("/hello")
        #expect(own.status == 200 && own.body == Data("the service's own route\n".utf8))
        // Outside the prefix the image routes are not there.
        #expect(try await service.get(thumbnail).status == 404)
    }
}
