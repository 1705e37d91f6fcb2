import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestServer
#if canImport(FoundationNetworking)
import FoundationNetworking
import WebImageTestSupport
#endif

/// The source guard (issue 20, item 5). No test here opens a connection to an address outside
/// 127.0.0.0/8 and ::1, even with a broken guard: non-loopback addresses come only from the test
/// resolver, under names that no real resolver answers (`.test`), and the test connector records
/// every connection step and refuses all but loopback ones.
@Suite("Loading: the source guard", .offThePool) struct SourceGuardTests {
    /// Gives `.test` names fixed addresses; any other name does not resolve.
    struct TestResolver: SourceResolver {
        let names: [String: [String]]

        func addresses(of host: String) async throws -> [IPAddress] {
            guard let addresses = names[host.lowercased()] else { throw URLError(.cannotFindHost) }
            return addresses.compactMap(IPAddress.init)
        }
    }

    /// Records each connection step; lets loopback through and refuses everything else.
    final class RecordingConnector: SourceConnector {
        let attempts = Locked<[(address: IPAddress, host: String, port: Int)]>([])

        func willConnect(to address: IPAddress, host: String, port: Int) async throws {
            attempts.withLock { $0.append((address, host, port)) }
            guard address.category == .loopback else { throw URLError(.cannotConnectToHost) }
        }

        var addresses: [String] { attempts.withLock { $0.map(\.address.description) } }
    }

    static let names = [
        "loopback.test": ["127.0.0.1"], "private.test": ["10.1.2.3"], "metadata.test": ["169.254.169.254"],
        "cgnat.test": ["100.64.1.2"], "ula.test": ["fd12:3456::1"], "linklocal6.test": ["fe80::1"],
        "mapped-private.test": ["::ffff:192.168.1.1"], "nat64-metadata.test": ["64:ff9b::a9fe:a9fe"],
        "rebinding.test": ["93.184.216.34", "127.0.0.1"],
    ]

    static func downloader(_ configure: (inout SourceGuard) -> Void = { _ in }) -> (ImageDownloader, RecordingConnector) {
        let connector = RecordingConnector()
        var sourceGuard = SourceGuard(resolver: TestResolver(names: names), connector: connector)
        configure(&sourceGuard)
        return (makeDownloader { $0.sourceGuard = sourceGuard; $0.retryPolicy = .none }, connector)
    }

    static func address(_ text: String) throws -> IPAddress {
        try #require(IPAddress(text), "\(text)")
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func refusal(_ outcome: DownloadOutcome) -> SourceRefusal? {
        guard case .sourceRefused(let refusal) = outcome.webImageError else { return nil }
        return refusal
    }

    // MARK: Addresses

    @Test(arguments: [
        ("127.0.0.1", IPAddress.Category.loopback), ("127.255.255.254", .loopback), ("0.0.0.0", .unspecified),
        ("10.1.2.3", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("172.32.0.1", .global),
        ("192.168.1.1", .private), ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("100.128.0.1", .global), ("169.254.169.254", .linkLocal), ("224.0.0.251", .linkLocal), ("239.1.2.3", .multicast),
        ("240.0.0.1", .reserved), ("255.255.255.255", .reserved), ("8.8.8.8", .global), ("93.184.216.34", .global),
        ("::", .unspecified), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .private),
        ("::ffff:8.8.8.8", .global), ("::127.0.0.1", .loopback), ("::169.254.169.254", .linkLocal),
        ("fd00::1", .uniqueLocal), ("fc00::1", .uniqueLocal), ("fe80::1", .linkLocal), ("fec0::1", .private),
        ("ff02::1", .linkLocal), ("ff05::1", .multicast), ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::808:808", .global),
        ("64:ff9b:1::7f00:1", .loopback), ("2002:7f00:1::", .loopback), ("2002:a9fe:a9fe::1", .linkLocal),
        ("2002:808:808::1", .global),
        // Teredo: server 8.8.8.8, client 127.0.0.1 stored inverted; then a public client.
        ("2001:0:808:808::80ff:fffe", .loopback), ("2001:0:808:808::f7f7:f7f7", .global),
        ("2001:db8::5efe:a00:1", .private), ("2001:db8::200:5efe:a9fe:a9fe", .linkLocal), ("2606:4700::1111", .global),
    ])
    func categories(_ text: String, _ category: IPAddress.Category) throws {
        let address = try Self.address(text)
        #expect(address.category == category, "\(text)")
        #expect(IPAddress(address.description) == address, "\(text) prints as \(address)")
    }

    @Test func onlyWhatInetPtonReadsIsALiteral() throws {
        for name in ["127.1", "2130706433", "0x7f000001", "localhost", "[::1]", "fe80::1%eth0", "", "127.0.0.1\0.evil"] {
            #expect(IPAddress(name) == nil, "\(name)")
        }
        #expect(IPAddress("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
        #expect(IPAddress("2001:DB8:0:0:0:0:0:1")?.description == "2001:db8::1")
    }

    @Test func networksContainTheirAddressesAndTheIPv4FormsOfThem() throws {
        let ten = try #require(IPNetwork("10.0.0.0/8"))
        #expect(try ten.contains(Self.address("10.200.3.4")) && !ten.contains(Self.address("11.0.0.1")))
        #expect(try ten.contains(Self.address("::ffff:10.1.1.1")), "the mapped form is the same host")
        let one = try #require(IPNetwork("127.0.0.2"))
        #expect(try one.prefixLength == 32 && !one.contains(Self.address("127.0.0.1")))
        let ula = try #require(IPNetwork("fd00::/8"))
        #expect(try ula.contains(Self.address("fd12::1")) && !ula.contains(Self.address("fc00::1")))
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains(Self.address("8.8.8.8")))
        for bad in ["10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/8/8", "ten/8", "10.0.0.0/-1"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
    }

    @Test func theGuardAllowsWhatItsSettingsSay() throws {
        func allows(_ sourceGuard: SourceGuard, _ text: String) throws -> Bool { sourceGuard.allows(try Self.address(text)) }
        let strict = SourceGuard()
        for denied in ["127.0.0.1", "0.0.0.0", "10.0.0.1", "100.64.0.1", "169.254.169.254", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "239.1.1.1"] {
            #expect(try !allows(strict, denied), "\(denied)")
        }
        #expect(try allows(strict, "93.184.216.34") && allows(strict, "2606:4700::1111"))
        #expect(try allows(SourceGuard(allowsLoopback: true), "::ffff:127.0.0.1") && allows(SourceGuard(allowsLoopback: true), "0.0.0.0"))
        #expect(try allows(SourceGuard(allowsPrivate: true), "100.64.0.1") && allows(SourceGuard(allowsPrivate: true), "fd00::1"))
        #expect(try !allows(SourceGuard(allowsPrivate: true), "169.254.169.254"))
        #expect(try allows(SourceGuard(allowsLinkLocal: true), "169.254.169.254"))
        let network = SourceGuard(allowedNetworks: [try #require(IPNetwork("10.1.0.0/16"))])
        #expect(try allows(network, "10.1.2.3") && !allows(network, "10.2.0.1"))
        #expect(try !allows(SourceGuard(allowsLoopback: true, allowsPrivate: true, allowsLinkLocal: true), "239.1.1.1"))
    }

    @Test func schemesAndHostsAreCheckedAgainstTheirLists() {
        let sourceGuard = SourceGuard(allowedSchemes: ["HTTPS"], allowedHosts: ["images.example.test", "*.cdn.test", "[2001:db8::1]"])
        #expect(sourceGuard.refusal(scheme: "https", host: "Images.Example.test") == nil)
        #expect(sourceGuard.refusal(scheme: "https", host: "a.b.cdn.test") == nil)
        #expect(sourceGuard.refusal(scheme: "https", host: "2001:db8:0::1") == nil)
        #expect(sourceGuard.refusal(scheme: "https", host: "cdn.test") == .host("cdn.test"))
        #expect(sourceGuard.refusal(scheme: "https", host: "evilcdn.test") == .host("evilcdn.test"))
        #expect(sourceGuard.refusal(scheme: "http", host: "images.example.test") == .scheme("http"))
    }

    // MARK: Downloads

    /// The loopback forms of the issue, each straight and behind a redirect from an allowed
    /// origin (127.0.0.2, a server of its own): refused before anything connects, unless the
    /// configuration allows loopback, and then they do reach the server (the paths are real).
    @Test func loopbackSourcesAreRefusedStraightAndBehindARedirect() async throws {
        try await withOrigin(addresses: ["127.0.0.1", "::1"]) { target async throws in
            try await withOrigin(addresses: ["127.0.0.2"]) { origin async throws in
                let path = "/images/sdwebimage/TestImage.png"
                let sources = ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0", "loopback.test"].map { target.url(path, host: $0) }
                let redirects = sources.map { origin.url("/redirect-to?url=" + Self.escaped($0.absoluteString)) }
                let originNetwork = try #require(IPNetwork("127.0.0.2/32"))
                let (guarded, connector) = Self.downloader { $0.allowedNetworks = [originNetwork] }
                for url in sources + redirects {
                    let outcome = await guarded.recordedDownload(url).1.outcome()
                    let refusal = try #require(Self.refusal(outcome), "\(url): \(String(reflecting: outcome.error))")
                    guard case .address(_, let category) = refusal.reason else {
                        Issue.record("\(url): \(refusal)")
                        continue
                    }
                    #expect(category == .loopback || category == .unspecified, "\(url): \(refusal)")
                }
                #expect(target.statistics.totalRequests == 0 && target.statistics.maxOpenConnections == 0, "nothing reached the target")
                #expect(origin.requestCount("/redirect-to") == redirects.count)
                #expect(connector.addresses.allSatisfy { $0 == "127.0.0.2" }, "only the origin was connected: \(connector.addresses)")

                // Allowed by configuration, the same sources reach the target: the paths are real.
                // (Not 0.0.0.0, which reaches this host too: the test connector lets connections
                // go to loopback addresses only.)
                let (open, openConnector) = Self.downloader { $0.allowsLoopback = true }
                let unspecifiedIndex = 3
                let reachable = (sources + redirects).enumerated().filter { $0.offset % sources.count != unspecifiedIndex }.map(\.element)
                for url in reachable {
                    let result = try await open.downloadImage(with: url)
                    #expect(result.image.pixelWidth == 300, "\(url)")
                }
                #expect(target.requestCount(path) == reachable.count)
                let unspecified = await open.recordedDownload(sources[unspecifiedIndex]).1.outcome()
                #expect(unspecified.urlError?.code == .cannotConnectToHost && openConnector.addresses.last == "0.0.0.0")
                let hosts = target.statistics.requestLog[path]?.compactMap { $0.header("Host") } ?? []
                #expect(hosts.contains("loopback.test:\(target.port)"), "the name stays in the Host header: \(hosts)")
            }
        }
    }

    @Test func privateLinkLocalCGNATAndUniqueLocalAddressesAreRefusedBeforeTheConnectionStep() async throws {
        let hosts = ["private.test", "metadata.test", "cgnat.test", "ula.test", "linklocal6.test", "mapped-private.test", "nat64-metadata.test", "rebinding.test"]
        let (guarded, connector) = Self.downloader()
        for host in hosts {
            let url = try #require(URL(string: "http://\(host)/latest/meta-data"))
            let outcome = await guarded.recordedDownload(url).1.outcome()
            #expect(Self.refusal(outcome) != nil, "\(host): \(String(reflecting: outcome.error))")
        }
        #expect(connector.addresses.isEmpty, "\(connector.addresses)")

        // Allowed by configuration, each reaches the connection step with exactly its address
        // (where the test connector refuses it: a transport failure, not a refusal).
        let (allowing, recorder) = Self.downloader { $0.allowsPrivate = true; $0.allowsLinkLocal = true }
        for host in hosts.dropLast() {
            let url = try #require(URL(string: "http://\(host):8080/x.png"))
            let outcome = await allowing.recordedDownload(url).1.outcome()
            #expect(outcome.urlError?.code == .cannotConnectToHost, "\(host): \(String(reflecting: outcome.error))")
        }
        #expect(recorder.addresses == ["10.1.2.3", "169.254.169.254", "100.64.1.2", "fd12:3456::1", "fe80::1", "::ffff:192.168.1.1", "64:ff9b::a9fe:a9fe"])
        #expect(recorder.attempts.withLock { $0.allSatisfy { $0.port == 8080 && $0.host.hasSuffix(".test") } })
    }

    @Test func aRedirectToTheMetadataAddressIsRefusedWithItsReason() async throws {
        try await withOrigin(addresses: ["127.0.0.2"]) { origin async throws in
            let (guarded, connector) = Self.downloader { $0.allowedNetworks = [IPNetwork("127.0.0.2")].compactMap { $0 } }
            let url = origin.url("/redirect-to?url=" + Self.escaped("http://metadata.test/latest/meta-data/iam/security-credentials/"))
            let outcome = await guarded.recordedDownload(url).1.outcome()
            let refusal = try #require(Self.refusal(outcome), "\(String(reflecting: outcome.error))")
            #expect(try refusal.reason == .address(Self.address("169.254.169.254"), .linkLocal))
            #expect(refusal.url.host == "metadata.test")
            #expect(outcome.webImageError?.code == 2005 && outcome.urlError == nil, "typed, not a transport error")
            #expect(connector.addresses == ["127.0.0.2"])
        }
    }

    @Test func schemesAndHostsOutsideTheirListsAreRefusedOnEveryHop() async throws {
        try await withOrigin { server async throws in
            let path = "/images/sdwebimage/TestImage.png"
            let httpsOnly = Self.downloader { $0.allowsLoopback = true; $0.allowedSchemes = ["https"] }.0
            let scheme = await httpsOnly.recordedDownload(server.url(path)).1.outcome()
            #expect(Self.refusal(scheme)?.reason == .scheme("http"))
            let listed = Self.downloader { $0.allowsLoopback = true; $0.allowedHosts = ["127.0.0.1"] }.0
            #expect(try await listed.downloadImage(with: server.url(path)).image.pixelWidth == 300)
            let elsewhere = server.url(path, host: "loopback.test")
            let redirected = server.url("/redirect-to?url=" + Self.escaped(elsewhere.absoluteString))
            let host = await listed.recordedDownload(redirected).1.outcome()
            #expect(Self.refusal(host)?.reason == .host("loopback.test"))
            #expect(server.requestCount(path) == 1)
        }
    }

    @Test func aPinnedHTTPSConnectionKeepsTheNameAndReusesItsConnection() async throws {
        try await withOrigin(tls: true) { server in
            let (downloader, connector) = Self.downloader { $0.allowsLoopback = true }
            for index in 0..<3 {
                let url = server.url("/images/sdwebimage/TestImage.png?n=\(index)", host: "loopback.test")
                let result = try await downloader.downloadImage(with: url, options: .allowInvalidSSLCertificates)
                #expect(result.image.pixelWidth == 300)
            }
            #expect(connector.addresses == ["127.0.0.1", "127.0.0.1", "127.0.0.1"])
            #expect(server.statistics.maxOpenConnections == 1, "one pinned connection, reused")
        }
    }
}
