import Foundation
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a host name into the addresses a guarded download checks and connects to
/// (`SourceGuard.resolver`). Tests inject their own to give names any address without DNS.
public protocol SourceResolver: Sendable {
    /// The addresses of `host` (never an address literal), in the order to try them; throws, or
    /// returns none, when the name does not resolve.
    func addresses(of host: String) async throws -> [IPAddress]
}

/// The connection step of a guarded download, as a hook (`SourceGuard.connector`): called with
/// the address a hop is about to connect to, after the guard allowed every address of its host.
/// The download then connects to exactly that address (through AsyncHTTPClient, pinned to it),
/// keeping the URL's host in the `Host` header and as the TLS server name, only if this returns.
/// Throwing refuses the connection: the hop fails as a transport failure with that error, and the
/// host's next checked address is tried when the error is `URLError(.cannotConnectToHost)`.
/// Tests inject one that records and refuses, so that no connection leaves the machine whatever
/// the guard decides.
public protocol SourceConnector: Sendable {
    /// Called before the download connects to `address` (or reuses a connection made to it) for
    /// `host` on `port`.
    func willConnect(to address: IPAddress, host: String, port: Int) async throws
}

/// The system's resolver: `getaddrinfo`, with every address it returns (IPv4 and IPv6), on
/// SwiftNIO's blocking thread pool (a lookup may block for seconds: kept off the cooperative
/// pool and off the threads that decode images).
public struct SystemSourceResolver: SourceResolver {
    /// The system's resolver.
    public init() {}

    public func addresses(of host: String) async throws -> [IPAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, nil, &hints, &list)
            guard status == 0 else {
                throw URLError(.cannotFindHost, userInfo: [NSLocalizedDescriptionKey: String(cString: gai_strerror(status))])
            }
            defer { freeaddrinfo(list) }
            var addresses: [IPAddress] = []
            var next = list
            while let info = next {
                next = info.pointee.ai_next
                guard let socketAddress = info.pointee.ai_addr else { continue }
                let address: IPAddress? = switch info.pointee.ai_family {
                case AF_INET:
                    socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { .v4(UInt32(bigEndian: $0.pointee.sin_addr.s_addr)) }
                case AF_INET6:
                    socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { IPAddress($0.pointee.sin6_addr) }
                default:
                    nil
                }
                if let address, !addresses.contains(address) { addresses.append(address) }
            }
            return addresses
        }
    }
}
