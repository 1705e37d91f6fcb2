import AsyncHTTPClient
internal import ImageEngine
import NIOSSL

/// A downloader's HTTP clients: one that verifies certificates, one made on first use for
/// downloads with `.allowInvalidSSLCertificates`, and, for guarded downloads, clients pinned to
/// one checked address of one host. None follows redirects: `HopByHopClient` does, one hop at a
/// time, so that the source guard sees each one.
///
/// The second is a client of its own, not a TLS configuration set on each request, because
/// AsyncHTTPClient keys its connection pools by a request's TLS configuration, and swift-nio-ssl
/// hashes that configuration's unset PSK callbacks as raw bytes, which an unset value leaves
/// undefined: equal configurations made apart hashed apart (seen under AddressSanitizer), so
/// every such download opened a pool and a connection of its own, never reused.
final class DownloadClients: Sendable {
    /// A client lent to one hop; `release` is called once the hop's body is read.
    struct Lease: Sendable {
        let client: HTTPClient
        let release: @Sendable () -> Void
    }

    private struct PinKey: Hashable {
        let host: String
        let address: IPAddress
        let allowsInvalidCertificates: Bool
    }

    private struct Pinned {
        let client: HTTPClient
        var users = 0
        var lastUse: UInt64 = 0
    }

    private struct State {
        var unverified: HTTPClient?
        var pinned: [PinKey: Pinned] = [:]
        var uses: UInt64 = 0
        var isShutDown = false
    }

    /// Pinned clients kept for reuse (with their connections); the least recently used idle one
    /// goes beyond this.
    static let pinnedClientLimit = 32

    private let configuration: HTTPClient.Configuration
    /// Verifies certificates: every download but those allowing invalid ones.
    private let verifying: HTTPClient
    private let state = Locked(State())

    init(configuration: HTTPClient.Configuration) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        self.configuration = configuration
        verifying = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The client for a download; nil once the clients are shut down.
    func client(allowingInvalidCertificates: Bool) -> HTTPClient? {
        guard allowingInvalidCertificates else { return verifying }
        return state.withLock { state -> HTTPClient? in
            guard !state.isShutDown else { return nil }
            if let client = state.unverified { return client }
            let client = makeClient(allowingInvalidCertificates: true, pinning: nil)
            state.unverified = client
            return client
        }
    }

    /// A client whose connections for `host` go to `address` and nowhere else: AsyncHTTPClient's
    /// `dnsOverride` maps the name to the address literal, which it connects to without resolving,
    /// while the request keeps the name in its `Host` header and as the TLS server name. Shared by
    /// the hops to the same host and address (they reuse its connections); nil once shut down.
    func pinnedClient(host: String, address: IPAddress, allowingInvalidCertificates: Bool) -> Lease? {
        let key = PinKey(host: host, address: address, allowsInvalidCertificates: allowingInvalidCertificates)
        let (client, evicted) = state.withLock { state -> (HTTPClient?, [HTTPClient]) in
            guard !state.isShutDown else { return (nil, []) }
            state.uses += 1
            var pinned = state.pinned[key]
                ?? Pinned(client: makeClient(allowingInvalidCertificates: allowingInvalidCertificates, pinning: (host, address)))
            pinned.users += 1
            pinned.lastUse = state.uses
            state.pinned[key] = pinned
            var evicted: [HTTPClient] = []
            while state.pinned.count > Self.pinnedClientLimit,
                  let idle = state.pinned.filter({ $0.value.users == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.pinned[idle.key] = nil
                evicted.append(idle.value.client)
            }
            return (pinned.client, evicted)
        }
        Self.shutDown(evicted)
        guard let client else { return nil }
        return Lease(client: client) { [self] in
            state.withLock { state in state.pinned[key]?.users -= 1 }
        }
    }

    private func makeClient(allowingInvalidCertificates: Bool, pinning: (host: String, address: IPAddress)?) -> HTTPClient {
        var configuration = configuration
        if allowingInvalidCertificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            configuration.tlsConfiguration = tls
        }
        if let pinning { configuration.dnsOverride = [pinning.host: pinning.address.description] }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes every connection pool, in the background (a client must be shut down before it
    /// is released; the task keeps it alive until then). Once: later calls do nothing.
    func shutdown() {
        let (wasShutDown, clients) = state.withLock { state in
            defer {
                state.isShutDown = true
                state.pinned = [:]
            }
            return (state.isShutDown, [state.unverified].compactMap { $0 } + state.pinned.values.map(\.client))
        }
        guard !wasShutDown else { return }
        Self.shutDown([verifying] + clients)
    }

    private static func shutDown(_ clients: [HTTPClient]) {
        guard !clients.isEmpty else { return }
        Task {
            for client in clients { try? await client.shutdown() }
        }
    }
}
