import Foundation

/// Why the source guard refused a hop (`WebImageError.sourceRefused`).
public struct SourceRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was refused.
    public enum Reason: Sendable, Equatable {
        /// The scheme is not among `allowedSchemes`.
        case scheme(String)
        /// The host is not among `allowedHosts`.
        case host(String)
        /// The host is or resolves to an address of a denied category.
        case address(IPAddress, IPAddress.Category)
    }

    /// The URL of the refused hop (a redirect target, for a refused redirect).
    public let url: URL
    /// What was refused.
    public let reason: Reason

    /// A line for logs; it names the address, so it is not meant for the client of a service.
    public var description: String {
        switch reason {
        case .scheme(let scheme): "scheme \(scheme) not allowed: \(url)"
        case .host(let host): "host \(host) not allowed: \(url)"
        case .address(let address, let category): "\(category.rawValue) address \(address) refused: \(url)"
        }
    }
}
