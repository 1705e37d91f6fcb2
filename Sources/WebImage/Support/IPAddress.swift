#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, as the source guard sees it: parsed and printed with the system's
/// `inet_pton` / `inet_ntop`, the functions that decide what AsyncHTTPClient connects to without
/// resolving.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 address, most significant byte first.
    case v4(UInt32)
    /// An IPv6 address, most significant byte first.
    case v6(UInt128)

    /// What kind of destination an address is; the guard allows `.global` and what its settings allow.
    public enum Category: String, Sendable, Hashable {
        /// A public unicast address.
        case global
        /// 127.0.0.0/8, ::1.
        case loopback
        /// 0.0.0.0/8, ::. Connecting to 0.0.0.0 reaches this host on Linux.
        case unspecified
        /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, and IPv6 site-local fec0::/10.
        case `private`
        /// 100.64.0.0/10, the carrier-grade NAT space (RFC 6598).
        case sharedAddressSpace
        /// 169.254.0.0/16 (cloud metadata at 169.254.169.254), fe80::/10, and link-local
        /// multicast 224.0.0.0/24, ff02::/16.
        case linkLocal
        /// IPv6 unique-local fc00::/7.
        case uniqueLocal
        /// Other multicast: 224.0.0.0/4, ff00::/8.
        case multicast
        /// 240.0.0.0/4 and the broadcast address.
        case reserved
    }

    /// The address in `text` (no brackets, no zone), or nil when `inet_pton` does not take it as
    /// an IPv4 or IPv6 literal. Forms such as `127.1` or `2130706433` are not literals here,
    /// nor for AsyncHTTPClient: they are names, which the resolver turns into addresses.
    public init?(_ text: String) {
        guard !text.utf8.contains(0) else { return nil }   // C would stop reading at the NUL
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self.init(v6)
    }

    /// The IPv6 address of a socket structure.
    init(_ address: in6_addr) {
        self = .v6(withUnsafeBytes(of: address) { bytes in bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) } })
    }

    /// The address as `inet_ntop` writes it (IPv6 without brackets), which `init(_:)` reads back.
    public var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\(value >> 16 & 0xff).\(value >> 8 & 0xff).\(value & 0xff)"
        case .v6(let value):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { bytes in
                for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: value >> (8 * (15 - index))) }
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The category of the address; for an IPv6 address that carries an IPv4 one (mapped,
    /// compatible, NAT64, 6to4, Teredo, ISATAP), the most restricted category among them.
    public var category: Category {
        switch self {
        case .v4(let value):
            return Self.category(ofV4: value)
        case .v6(let value):
            if value == 0 { return .unspecified }
            if value == 1 { return .loopback }
            if let own = Self.category(ofV6: value) { return own }
            let embedded = embeddedIPv4Addresses.map(\.category).filter { $0 != .global }
            return embedded.first ?? .global
        }
    }

    /// The IPv4 addresses an IPv6 address carries: IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
    /// `::a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo
    /// `2001::/32` (server and client) and ISATAP interface identifiers. Empty for IPv4.
    public var embeddedIPv4Addresses: [IPAddress] {
        guard case .v6(let value) = self else { return [] }
        let low32 = IPAddress.v4(UInt32(truncatingIfNeeded: value))
        let top96 = value >> 32
        if top96 == 0xffff || top96 == 0 { return [low32] }                           // mapped, compatible
        if top96 == 0x0064_ff9b_0000_0000_0000_0000 || value >> 80 == 0x0064_ff9b_0001 { return [low32] }   // NAT64
        if value >> 112 == 0x2002 { return [.v4(UInt32(truncatingIfNeeded: value >> 80))] }   // 6to4
        if value >> 96 == 0x2001_0000 {                                                  // Teredo
            return [.v4(UInt32(truncatingIfNeeded: value >> 64)), .v4(~UInt32(truncatingIfNeeded: value))]
        }
        let interfaceHigh = UInt32(truncatingIfNeeded: value >> 32) & 0xfdff_ffff       // ISATAP: [02]00:5efe
        if interfaceHigh == 0x0000_5efe { return [low32] }
        return []
    }

    private static let v4Ranges: [(network: UInt32, prefix: Int, category: Category)] = [
        (0x0000_0000, 8, .unspecified), (0x7f00_0000, 8, .loopback), (0x0a00_0000, 8, .private),
        (0xac10_0000, 12, .private), (0xc0a8_0000, 16, .private), (0x6440_0000, 10, .sharedAddressSpace),
        (0xa9fe_0000, 16, .linkLocal), (0xe000_0000, 24, .linkLocal), (0xe000_0000, 4, .multicast),
        (0xf000_0000, 4, .reserved),
    ]

    private static func category(ofV4 value: UInt32) -> Category {
        for range in v4Ranges where value >> (32 - range.prefix) == range.network >> (32 - range.prefix) {
            return range.category
        }
        return .global
    }

    /// The category of an IPv6 address by its own prefix; nil when that prefix says nothing.
    private static func category(ofV6 value: UInt128) -> Category? {
        let top16 = UInt16(truncatingIfNeeded: value >> 112)
        switch top16 {
        case 0xfc00...0xfdff: return .uniqueLocal
        case 0xfe80...0xfebf: return .linkLocal
        case 0xfec0...0xfeff: return .private
        case 0xff02, 0xff12, 0xff22, 0xff32: return .linkLocal
        case 0xff00...0xffff: return .multicast
        default: return nil
        }
    }
}

/// A network in CIDR notation (`10.0.0.0/8`, `fd00::/8`; a bare address is a network of one).
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's first address.
    public let address: IPAddress
    /// The number of leading bits that every address of the network shares.
    public let prefixLength: Int

    /// The network `text` names, or nil when it is not an address with an optional `/prefix`
    /// within the address's size.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(String(parts[0])) else { return nil }
        let bits = address.bitCount
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        self.address = address
        self.prefixLength = prefix
    }

    public var description: String { "\(address)/\(prefixLength)" }

    /// True when `candidate`, or an IPv4 address it carries, is in the network.
    public func contains(_ candidate: IPAddress) -> Bool {
        ([candidate] + candidate.embeddedIPv4Addresses).contains { matches($0) }
    }

    private func matches(_ candidate: IPAddress) -> Bool {
        switch (address, candidate) {
        case let (.v4(network), .v4(value)):
            return prefixLength == 0 || network >> (32 - prefixLength) == value >> (32 - prefixLength)
        case let (.v6(network), .v6(value)):
            return prefixLength == 0 || network >> (128 - prefixLength) == value >> (128 - prefixLength)
        default:
            return false
        }
    }
}

extension IPAddress {
    var bitCount: Int {
        if case .v4 = self { return 32 }
        return 128
    }
}
