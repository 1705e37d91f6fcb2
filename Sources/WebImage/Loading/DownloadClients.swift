import AsyncHTTPClient
import LibVips
import NIOSSL

/// A downloader's HTTP clients: one that verifies certificates, and one made on first use for
/// downloads with `.allowInvalidSSLCertificates`.
///
/// The second is a client of its own, not a TLS configuration set on each request, because
/// AsyncHTTPClient keys its connection pools by a request's TLS configuration, and swift-nio-ssl
/// hashes that configuration's unset PSK callbacks as raw bytes, which an unset value leaves
/// undefined: equal configurations made apart hashed apart (seen under AddressSanitizer), so
/// every such download opened a pool and a connection of its own, never reused.
final class DownloadClients: Sendable {
    private let configuration: HTTPClient.Configuration
    /// Verifies certificates: every download but those allowing invalid ones.
    private let verifying: HTTPClient
    /// The client for invalid certificates once made, and whether both are shut down.
    private let state = Locked<(unverified: HTTPClient?, isShutDown: Bool)>((nil, false))

    init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
        verifying = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The client for a download; nil once the clients are shut down.
    func client(allowingInvalidCertificates: Bool) -> HTTPClient? {
        guard allowingInvalidCertificates else { return verifying }
        return state.withLock { state -> HTTPClient? in
            guard !state.isShutDown else { return nil }
            if let client = state.unverified { return client }
            var configuration = configuration
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            configuration.tlsConfiguration = tls
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            state.unverified = client
            return client
        }
    }

    /// Closes both connection pools, in the background (a client must be shut down before it
    /// is released; the task keeps it alive until then). Once: later calls do nothing.
    func shutdown() {
        let (wasShutDown, unverified) = state.withLock { state in
            defer { state.isShutDown = true }
            return (state.isShutDown, state.unverified)
        }
        guard !wasShutDown else { return }
        let verifying = self.verifying
        Task {
            try? await verifying.shutdown()
            try? await unverified?.shutdown()
        }
    }
}
