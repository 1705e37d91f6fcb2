import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer

/// The server's source guard: by default no source on loopback, private or link-local
/// addresses is fetched, however its address is spelled, directly or through a redirect.
@Suite struct SourceGuardServingTests {
    /// A path for the unsigned server asking `source` as a 100x100 thumbnail.
    static func path(source: URL) -> String {
        "/unsafe/rs:fit:100:100/plain/\(source.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")@jpg"
    }

    @Test func everySpellingOfALoopbackSourceIsRefusedBeforeAnyFetch() async throws {
        let origin = try await TestServer.start(addresses: ["127.0.0.1", "::1"])
        defer { Task { await origin.shutdown() } }
        let server = try await ServerUnderTest.start()
        defer { Task { await server.stop() } }
        // Literals, an IPv4-mapped IPv6 form, the unspecified address, and names that resolve to
        // loopback (`127.1` and `2130706433` are names to the resolver, not literals).
        for host in ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0", "localhost", "127.1", "2130706433"] {
            let reply = try await server.get(Self.path(source: origin.url("/images/photos/rocket.jpg", host: host)))
            #expect(reply.status == 404, "\(host)")
            #expect(reply.body == Data("Invalid source URL\n".utf8), "\(host)")
        }
        #expect(origin.requestCount("/images/photos/rocket.jpg") == 0)
    }

    @Test func allowingLoopbackLetsTheSameSourceThrough() async throws {
        let origin = try await TestServer.start()
        defer { Task { await origin.shutdown() } }
        let server = try await ServerUnderTest.start { $0.allowsLoopbackSourceAddresses = true }
        defer { Task { await server.stop() } }
        let reply = try await server.get(Self.path(source: origin.url("/images/photos/rocket.jpg")))
        #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
    }

    @Test func aRedirectToARefusedAddressIsRefusedAndNotFollowed() async throws {
        let origin = try await TestServer.start(addresses: ["127.0.0.1", "127.0.0.2"])
        defer { Task { await origin.shutdown() } }
        // 127.0.0.1 stands for a public origin: the guard lets that one address through, as a
        // service that allows chosen networks would; 127.0.0.2 stays refused.
        var configuration = ImageServerConfiguration()
        configuration.maxRedirects = 5
        var config = ImageServer.makeDownloaderConfig(configuration: configuration)
        config.sourceGuard?.allowedNetworks = [try #require(IPNetwork("127.0.0.1/32"))]
        let server = try await ServerUnderTest.start(downloader: ImageDownloader(config: config))
        defer { Task { await server.stop() } }

        let allowed = try await server.get(Self.path(source: origin.url("/images/photos/rocket.jpg")))
        #expect(allowed.status == 200)
        let target = origin.url("/images/photos/astronaut.png", host: "127.0.0.2")
        let query = target.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let redirected = try await server.get(Self.path(source: origin.url("/redirect-to?url=\(query)")))
        #expect(redirected.status == 404 && redirected.body == Data("Invalid source URL\n".utf8))
        #expect(origin.requestCount("/redirect-to") == 1)
        #expect(origin.requestCount("/images/photos/astronaut.png") == 0)
    }
}
