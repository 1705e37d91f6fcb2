import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// A Swift service serving images from its own Hummingbird application, without a second
/// process: the image routes mounted under a prefix beside the service's routes; and the health
/// check a load balancer asks, which answers whatever the image work. Serialized: the test of
/// the health check under load holds the blocking pool, which the other test needs.
@Suite(.offThePool, .serialized) struct MountingTests {
    @Test func imagesAreServedUnderThePrefixBesideTheServicesOwnRoutes() async throws {
        try await withOrigin { origin in
            let configuration = ImageServerConfiguration.fetchingFromLoopback()
            let images = try ImageServer(configuration: configuration)
            try await withRunningApplication(cacheFolder: configuration.cacheDirectory) { logger, onListening in
                let router = Router(context: ImageServerContext.self)
                router.get("hello") { _, _ in "the service's own route\n" }
                images.addRoutes(to: router.group("images"))
                return Application(
                    router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                    onServerRunning: { await onListening($0.localAddress?.port ?? 0) }, logger: logger
                )
            } body: { service in
                let thumbnail = SourceGuardServingTests.path(source: origin.url("/images/photos/rocket.jpg"))
                let image = try await service.get("/images" + thumbnail)
                #expect(image.status == 200 && image.header("content-type") == "image/jpeg")
                let decoded = try ImageCodersManager.shared.decode(image.body, options: ImageCoderOptions())
                #expect(max(decoded.pixelWidth, decoded.pixelHeight) == 100)
                // Mounted under the prefix: the health check answers there.
                let health = try await service.get("/images/health")
                #expect(health.status == 200 && health.body == Data("OK".utf8), "\(health.status)")
                let own = try await service.get("/hello")
                #expect(own.status == 200 && own.body == Data("the service's own route\n".utf8))
                // Outside the prefix the image routes are not there.
                #expect(try await service.get(thumbnail).status == 404)
            }
        }
    }

    /// Every worker busy as under full load: each request held where its image work runs (the
    /// blocking pool, as a long decode holds it), not waiting on the network. The health check
    /// still answers 200, while they are held: a load balancer must not take a busy server out.
    @Test(.timeLimit(.minutes(TestAllowance.minutes(2))))
    func healthAnswers200WhileEveryWorkerIsBusy() async throws {
        try await withOrigin { origin in
            // As many workers as the blocking pool has threads (the default is twice that, as
            // imgproxy's: a worker also waits for its fetch), so that each request holds one.
            let configuration = ImageServerConfiguration.fetchingFromLoopback { $0.workers = ProcessInfo.processInfo.activeProcessorCount }
            let workers = configuration.workers
            let held = TestGate()
            let working = TestGate()
            let downloader = ImageServer.makeDownloader(configuration: configuration)
            downloader.decryptor = HeldWork(started: working, until: held)
            try await withRunningServer(configuration, downloader: downloader) { server async throws in
                // Whatever happens below, the held work ends before the server stops.
                defer { held.open() }
                let requests = (0..<workers).map { n in
                    Task { try await server.get(ServingTests.path(origin, "photos/rocket.jpg", query: "?n=\(n)")) }
                }
                await working.wait(untilOpened: workers)
                // Room for a loaded machine's scheduling, not for image work. A check that waits
                // behind that work keeps the blocking pool held this long, and every test of this
                // process that decodes waits with it: short, though a check that needs no pool
                // thread answers in milliseconds.
                let waited = TestAllowance.seconds(10)
                let health = try? await server.get("/health", deadline: .milliseconds(Int64(waited * 1000)))
                held.open()
                let answer = health.map { "\($0.status) \(String(decoding: $0.body, as: UTF8.self))" } ?? "no answer in \(waited) s"
                #expect(health?.status == 200 && health?.body == Data("OK".utf8), "/health with every worker busy: \(answer)")
                #expect(origin.statistics.totalRequests == workers)
                for request in requests { #expect(try await request.value.status == 200) }
            }
        }
    }
}

/// A source's bytes passed through unchanged, on the blocking pool where the downloader runs
/// its decryptor, once `until` opens; `started` opens once each time one begins.
private struct HeldWork: DownloaderDecryptorProtocol {
    let started: TestGate
    let until: TestGate

    func decryptedData(with data: Data, response: HTTPURLResponse?) -> Data? {
        started.open()
        until.block()
        return data
    }
}
