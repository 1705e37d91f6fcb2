import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one attempt's request and follows its redirects one hop at a time, applying the source
/// guard, when there is one, to every hop.
///
/// Why this shape: AsyncHTTPClient has no hook on the socket it connects (no dialer control as
/// Go's `net.Dialer.Control`, which imgproxy checks addresses in), its resolver is an internal
/// choice of two, and it follows redirects inside `execute` with its own resolution. What it does
/// offer is `dnsOverride`: a client configured with `[host: address literal]` connects to that
/// literal for the host, without resolving, and keeps the host in the `Host` header and as the
/// TLS server name (checked against the certificate). So a guarded hop resolves the host itself,
/// checks every address, and sends the request through a client pinned to one checked address
/// (`DownloadClients.pinnedClient`); an address-literal host needs no pin (it is what the client
/// connects to). Redirects are off in every client and followed here, each target checked the
/// same way before anything connects to it. The pinned clients are kept (up to a bound) so hops
/// to the same host reuse their connections, as an unguarded download does; the cost of the
/// guard is one resolution per hop and one connection pool per host and address. The other
/// routes were worse: a request rewritten to the address literal loses the TLS server name and
/// certificate check for HTTPS; a client per hop loses connection reuse.
struct HopByHopClient: Sendable {
    /// The final response of an attempt, with the client lent to it.
    struct Exchange {
        let response: HTTPClientResponse
        /// The URL of the last hop.
        let url: URL
        let redirectCount: Int
        let lease: DownloadClients.Lease
    }

    let clients: DownloadClients
    let sourceGuard: SourceGuard?
    let maximumRedirects: Int

    /// Sends `request` and follows its redirects (up to `maximumRedirects`, cycles refused); throws
    /// `SourceRefusal` for a hop the guard refuses, `WebImageError.invalidDownloadOperation` once
    /// the clients are shut down, and the client's errors otherwise. With `cookies`, each hop
    /// sends the stored cookies for its URL and stores the ones its response sets.
    func execute(_ request: HTTPClientRequest, allowingInvalidCertificates: Bool, cookies: HTTPCookieStorage? = nil) async throws -> Exchange {
        var request = request
        var visited: Set<String> = [request.url]
        var redirectCount = 0
        while true {
            guard let url = URL(string: request.url) else { throw HTTPClientError.invalidURL }
            // Foundation's cookie storage reads and writes its file synchronously: on the blocking pool.
            let hop = if let cookies {
                try await BlockingPool.run { [request] in HTTPMessages.adding(cookiesFrom: cookies, for: url, to: request) }
            } else {
                request
            }
            let (response, lease) = try await send(hop, to: url, allowingInvalidCertificates: allowingInvalidCertificates)
            if let cookies, case let fields = response.headers["Set-Cookie"], !fields.isEmpty {
                // Throws only once the pool is shut down: the cookies are then not kept.
                _ = try? await BlockingPool.run { HTTPMessages.storeCookies(fields, from: url, in: cookies) }
            }
            guard maximumRedirects > 0, let target = Self.redirectTarget(of: response, from: url) else {
                return Exchange(response: response, url: url, redirectCount: redirectCount, lease: lease)
            }
            lease.release()   // the redirect's body is dropped with its response
            guard redirectCount < maximumRedirects else { throw HTTPClientError.redirectLimitReached }
            guard visited.insert(target.absoluteString).inserted else { throw HTTPClientError.redirectCycleDetected }
            redirectCount += 1
            request = Self.request(following: request, from: url, to: target, status: response.status)
        }
    }

    /// One hop: checked and pinned when guarded, each checked address tried in turn while the
    /// connection is refused.
    private func send(_ request: HTTPClientRequest, to url: URL, allowingInvalidCertificates: Bool) async throws -> (HTTPClientResponse, DownloadClients.Lease) {
        guard let sourceGuard else {
            guard let client = clients.client(allowingInvalidCertificates: allowingInvalidCertificates) else {
                throw WebImageError.invalidDownloadOperation
            }
            return (try await client.execute(request, deadline: .distantFuture), DownloadClients.Lease(client: client) {})
        }
        // The host as AsyncHTTPClient reads it from the same string (URL.host without IPv6
        // brackets): the key its dnsOverride is looked up with.
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
              !host.isEmpty
        else { throw HTTPClientError.invalidURL }
        if let reason = sourceGuard.refusal(scheme: scheme, host: host) { throw Self.refuse(url, reason) }
        let literal = IPAddress(host)
        let addresses = if let literal { [literal] } else { try await sourceGuard.resolver.addresses(of: host) }
        guard !addresses.isEmpty else { throw URLError(.cannotFindHost, userInfo: [NSURLErrorFailingURLErrorKey: url]) }
        if let denied = addresses.first(where: { !sourceGuard.allows($0) }) {
            throw Self.refuse(url, .address(denied, denied.category))
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        var refused: (any Error)?
        for address in addresses {
            let lease: DownloadClients.Lease?
            do {
                try await sourceGuard.connector?.willConnect(to: address, host: host, port: port)
                lease = literal != nil
                    ? clients.client(allowingInvalidCertificates: allowingInvalidCertificates).map { DownloadClients.Lease(client: $0) {} }
                    : clients.pinnedClient(host: host, address: address, allowingInvalidCertificates: allowingInvalidCertificates)
            } catch {
                guard HTTPMessages.urlError(for: error, url: url).code == .cannotConnectToHost else { throw error }
                refused = error
                continue
            }
            guard let lease else { throw WebImageError.invalidDownloadOperation }
            do {
                return (try await lease.client.execute(request, deadline: .distantFuture), lease)
            } catch {
                lease.release()
                guard HTTPMessages.urlError(for: error, url: url).code == .cannotConnectToHost else { throw error }
                refused = error
            }
        }
        throw refused ?? URLError(.cannotConnectToHost)
    }

    private static func refuse(_ url: URL, _ reason: SourceRefusal.Reason) -> SourceRefusal {
        let refusal = SourceRefusal(url: url, reason: reason)
        DownloadObservability.logger.notice("source refused by the guard", metadata: ["reason": "\(refusal)"])
        return refusal
    }

    /// Where a 301, 302, 303, 307 or 308 points (relative to `url`), when it is http or https.
    private static func redirectTarget(of response: HTTPClientResponse, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.status.code),
              let location = response.headers.first(name: "Location"),
              let target = URL(string: location, relativeTo: url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return target
    }

    /// The request for the next hop, as AsyncHTTPClient makes it: a 303 (and a POST answered by
    /// 301 or 302) becomes a GET without body; credentials and cookies stay with their origin.
    private static func request(following request: HTTPClientRequest, from url: URL, to target: URL, status: HTTPResponseStatus) -> HTTPClientRequest {
        var next = HTTPClientRequest(url: target.absoluteString)
        next.method = request.method
        next.headers = request.headers
        next.body = request.body
        next.tlsConfiguration = request.tlsConfiguration
        let toGet = (status == .seeOther && request.method != .HEAD)
            || ((status == .movedPermanently || status == .found) && request.method == .POST)
        if toGet {
            next.method = .GET
            next.body = nil
            next.headers.remove(name: "Content-Length")
            next.headers.remove(name: "Content-Type")
        }
        let sameOrigin = url.scheme?.lowercased() == target.scheme?.lowercased() && url.host?.lowercased() == target.host?.lowercased()
            && url.port == target.port
        if !sameOrigin {
            for field in ["Origin", "Cookie", "Authorization", "Proxy-Authorization"] { next.headers.remove(name: field) }
        }
        return next
    }
}
