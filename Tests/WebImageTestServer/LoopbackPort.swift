import Foundation
import Glibc

/// A TCP port on 127.0.0.1 for a child process that cannot be told to pick one itself (nginx,
/// `--prometheus-bind`): the one the system gave a socket bound to port 0, closed at once.
/// Another process may take it in between; a caller that sees its bind fail asks again.
public enum FreePort {
    public struct Unavailable: Error {}

    public static func next() throws -> Int {
        let socket = try boundSocket()
        close(socket.descriptor)
        return socket.port
    }

    /// A TCP socket bound to a port of 127.0.0.1 the system chose, not listening.
    static func boundSocket() throws -> (descriptor: Int32, port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Unavailable() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            throw Unavailable()
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// A port on 127.0.0.1 where nothing listens and nothing else can until `close()`: a socket
/// bound to it that never listens, so a connection there is refused at once. A test server's
/// port just shut down is not that: another test's server may be given it meanwhile (CI saw
/// a "refused" connection answered 404 by a `webimage serve`).
public final class RefusingPort: Sendable {
    private let descriptor: Int32
    public let port: Int

    public init() throws {
        (descriptor, port) = try FreePort.boundSocket()
    }

    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    deinit {
        close(descriptor)
    }
}
