import Foundation
import Testing
import WebImage
import WebImageSupport
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The server's source guard: by default no source on loopback, private or link-local
/// addresses is fetched, however its address is spelled, directly or through a redirect.
@Suite(.offThePool) struct SourceGuardServingTests {
    /// Gives `.test` names fixed addresses (no real resolver answers them); others do not resolve.
    struct TestResolver: SourceResolver {
        static let names = [
            "loopback.test": ["127.0.0.1"], "private.test": ["10.1.2.3"], "metadata.test": ["169.254.169.254"],
            "cgnat.test": ["100.64.1.2"], "ula.test": ["fd12:3456::1"],
        ]

        func addresses(of host: String) async throws -> [IPAddress] {
            guard let addresses = Self.names[host.lowercased()] else { throw URLError(.cannotFindHost) }
            return addresses.compactMap(IPAddress.init)
        }
    }

    /// Records each connection step and refuses it: no test connects outside loopback, even
    /// with a broken guard.
    final class RefusingConnector: SourceConnector {
        let addresses = Locked<[String]>([])

        func willConnect(to address: IPAddress, host: String, port: Int) async throws {
            addresses.withLock { $0.append(address.description) }
            throw URLError(.cannotConnectToHost)
        }
    }

    /// A path for the unsigned server asking `source` as a 100x100 thumbnail.
    static func path(source: URL) -> String {
        "/unsafe/rs:fit:100:100/plain/\(source.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")@jpg"
    }

    @Test func everySpellingOfALoopbackSourceIsRefusedBeforeAnyFetch() async throws {
        try await withOrigin(addresses: ["127.0.0.1", "::1"]) { origin in
            try await withRunningServer { server in
                // Literals, an IPv4-mapped IPv6 form, the unspecified address, and names that resolve to
                // loopback (`127.1` and `2130706433` are names to the resolver, not literals).
                for host in ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0", "localhost", "127.1", "2130706433"] {
                    let reply = try await server.get(Self.path(source: origin.url("/images/photos/rocket.jpg", host: host)))
                    #expect(reply.status == 404, "\(host)")
                    #expect(reply.body == Data("Invalid source URL\n".utf8), "\(host)")
                }
                #expect(origin.requestCount("/images/photos/rocket.jpg") == 0)
            }
        }
    }

    @Test func privateLinkLocalCGNATAndUniqueLocalSourcesAreRefusedUnlessTheSettingsAllowThem() async throws {
        let hosts = ["loopback.test", "private.test", "metadata.test", "cgnat.test", "ula.test"]
        for allowing in [false, true] {
            var configuration = ImageServerConfiguration()
            configuration.allowsPrivateSourceAddresses = allowing
            configuration.allowsLinkLocalSourceAddresses = allowing
            var config = ImageServer.makeDownloaderConfig(configuration: configuration)
            let connector = RefusingConnector()
            config.sourceGuard?.resolver = TestResolver()
            config.sourceGuard?.connector = connector
            try await withRunningServer(downloader: ImageDownloader(config: config)) { server in
                for host in hosts {
                    let source = try #require(URL(string: "http://\(host)/latest/meta-data.jpg"))
                    let reply = try await server.get(Self.path(source: source))
                    // Refused by the guard, or allowed and then refused by the test connector.
                    #expect(reply.status == 404, "\(host)")
                }
            }
            // Refused by default before any connection step; allowed, each reached it with
            // exactly its address (loopback stays refused: WEBIMAGE_ALLOW_LOOPBACK_... is off).
            let expected = allowing ? ["10.1.2.3", "169.254.169.254", "100.64.1.2", "fd12:3456::1"] : []
            #expect(connector.addresses.withLock { $0 } == expected)
        }
    }

    @Test func allowingLoopbackLetsTheSameSourceThrough() async throws {
        try await withOrigin { origin in
            try await withRunningServer(.underTest { $0.allowsLoopbackSourceAddresses = true }) { server in
                let reply = try await server.get(Self.path(source: origin.url("/images/photos/rocket.jpg")))
                #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
            }
        }
    }

    @Test func aRedirectToARefusedAddressIsRefusedAndNotFollowed() async throws {
        try await withOrigin(addresses: ["127.0.0.1", "127.0.0.2"]) { origin in
            // 127.0.0.1 stands for a public origin: the guard lets that one address through, as a
            // service that allows chosen networks would; 127.0.0.2 stays refused.
            var configuration = ImageServerConfiguration()
            configuration.maxRedirects = 5
            var config = ImageServer.makeDownloaderConfig(configuration: configuration)
            config.sourceGuard?.allowedNetworks = [try #require(IPNetwork("127.0.0.1/32"))]
            try await withRunningServer(downloader: ImageDownloader(config: config)) { server in

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
    }

    @Test func localSourcesOutsideTheRootAre404() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-local-root-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: base) }
        let root = base.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let rocket = TestServer.imagesFolder.appendingPathComponent("photos/rocket.jpg")
        try FileManager.default.copyItem(at: rocket, to: root.appendingPathComponent("inside.jpg"))
        try FileManager.default.copyItem(at: rocket, to: base.appendingPathComponent("secret.jpg"))
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("escape.jpg").path, withDestinationPath: base.appendingPathComponent("secret.jpg").path
        )
        try await withRunningServer(.underTest { $0.localFilesystemRoot = root.path }) { server async throws in
            func status(_ source: String) async throws -> Int {
                let escaped = source.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                return try await server.get("/unsafe/rs:fit:50:50/plain/\(escaped)@jpg").status
            }
            #expect(try await status("local:///inside.jpg") == 200)
            for outside in ["local:///../secret.jpg", "local:///escape.jpg", "local://" + base.appendingPathComponent("secret.jpg").path] {
                #expect(try await status(outside) == 404, "\(outside)")
            }
        }
    }
}
