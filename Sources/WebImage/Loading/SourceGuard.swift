import Foundation

/// Which sources a downloader may fetch: the defence against server-side request forgery for a
/// service that downloads URLs its users give it (the image server turns it on). Set on
/// `ImageDownloaderConfig.sourceGuard`; off (nil) by default.
///
/// Every hop of a download (each redirect included) is checked: its scheme, its host against
/// `allowedHosts`, and then **every address the host resolves to**; the connection then goes to
/// one of those checked addresses, never to a name resolved again later, with the URL's host kept
/// in the `Host` header and as the TLS server name (so a name that resolves to a public address
/// when checked and to 127.0.0.1 when connecting cannot slip through). A host with any denied
/// address is refused. A refused hop fails the download with `WebImageError.sourceRefused`, and
/// the reason is logged (`swift-webimage.downloader`, notice).
///
/// Denied unless allowed here: loopback and unspecified addresses (`allowsLoopback`), private
/// ones, carrier-grade NAT and IPv6 unique-local (`allowsPrivate`), link-local ones, cloud
/// metadata at 169.254.169.254 among them (`allowsLinkLocal`), and always multicast and reserved
/// addresses; IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo,
/// ISATAP) are judged by the IPv4 address too. `allowedNetworks` lets chosen networks through
/// whatever their category.
public struct SourceGuard: Sendable {
    /// Schemes that may be fetched, lower-case (default http and https).
    public var allowedSchemes: Set<String>
    /// When set, the only hosts that may be fetched, on every hop: a name (`images.example.com`,
    /// case-insensitive), a subdomain pattern (`*.example.com`, which does not match
    /// `example.com` itself), or an address literal (`203.0.113.7`, `2001:db8::1`). Default nil:
    /// any host, subject to the address checks.
    public var allowedHosts: [String]?
    /// Networks whose addresses are allowed whatever their category (default none).
    public var allowedNetworks: [IPNetwork]
    /// Allows loopback (127.0.0.0/8, ::1) and unspecified (0.0.0.0, ::) addresses (default false).
    public var allowsLoopback: Bool
    /// Allows private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10) and IPv6
    /// unique-local (fc00::/7) addresses (default false).
    public var allowsPrivate: Bool
    /// Allows link-local addresses (169.254/16, fe80::/10, link-local multicast) (default false).
    public var allowsLinkLocal: Bool
    /// Turns host names into addresses (default: the system's `getaddrinfo`).
    public var resolver: any SourceResolver
    /// Called with each checked address before the download connects to it (default nil).
    public var connector: (any SourceConnector)?

    /// A guard; the defaults deny every non-public address and allow http and https.
    public init(
        allowedSchemes: Set<String> = ["http", "https"], allowedHosts: [String]? = nil, allowedNetworks: [IPNetwork] = [],
        allowsLoopback: Bool = false, allowsPrivate: Bool = false, allowsLinkLocal: Bool = false,
        resolver: any SourceResolver = SystemSourceResolver(), connector: (any SourceConnector)? = nil
    ) {
        self.allowedSchemes = Set(allowedSchemes.map { $0.lowercased() })
        self.allowedHosts = allowedHosts
        self.allowedNetworks = allowedNetworks
        self.allowsLoopback = allowsLoopback
        self.allowsPrivate = allowsPrivate
        self.allowsLinkLocal = allowsLinkLocal
        self.resolver = resolver
        self.connector = connector
    }

    /// True when the guard lets a connection to `address` through.
    public func allows(_ address: IPAddress) -> Bool {
        if allowedNetworks.contains(where: { $0.contains(address) }) { return true }
        switch address.category {
        case .global: return true
        case .loopback, .unspecified: return allowsLoopback
        case .private, .sharedAddressSpace, .uniqueLocal: return allowsPrivate
        case .linkLocal: return allowsLinkLocal
        case .multicast, .reserved: return false
        }
    }

    /// Nil when `scheme` and `host` may be fetched, else why not.
    func refusal(scheme: String, host: String) -> SourceRefusal.Reason? {
        guard allowedSchemes.contains(scheme.lowercased()) else { return .scheme(scheme) }
        guard let allowedHosts else { return nil }
        let host = host.lowercased()
        let allowed = allowedHosts.contains { pattern in
            let pattern = pattern.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) }
            if let literal = IPAddress(pattern), let address = IPAddress(host) { return literal == address }
            return host == pattern
        }
        return allowed ? nil : .host(host)
    }
}
