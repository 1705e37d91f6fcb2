import Foundation
import WebImageSupport

/// A request as the test server saw it.
public struct TestRequest: Sendable {
    /// `GET`, `HEAD`, ...
    public let method: String
    /// The path, without the query.
    public let path: String
    /// The query's parameters (the last value of a repeated name).
    public let query: [String: String]
    /// The headers, in order.
    public let headers: [(String, String)]
    /// 1 for the first request to this path and query, 2 for the second, ...
    public let attempt: Int
    /// When the server read the request (wall clock, on the server's thread).
    public let receivedAt: Date

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }
}

/// What the test server answers, and how: delays, trickling, a dropped connection.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Headers besides `Content-Length` / `Transfer-Encoding`, which the server sets.
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]
    /// Wait before sending the head.
    public var headerDelay: Duration = .zero
    /// Send the body in pieces of this many bytes (nil: at once).
    public var chunkSize: Int?
    /// Wait between pieces.
    public var chunkDelay: Duration = .zero
    /// Close the connection after this many body bytes.
    public var dropAfter: Int?
    /// `Transfer-Encoding: chunked` instead of `Content-Length`.
    public var chunked = false
    /// With `chunkSize`: piece n (from 1) is sent only once the gate was opened n times, so a
    /// test paces the body by what the client did instead of by time.
    public var gate: TestGate?

    /// A response with `status`, `headers` and `body`.
    public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A body with its `Content-Type`.
    public static func content(_ body: [UInt8], type: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", type)], body: body)
    }

    /// A redirect to `location`.
    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [("Location", location)], body: [])
    }

    /// A short plain-text answer with `status`.
    public static func status(_ status: Int, _ text: String? = nil) -> TestResponse {
        .content(Array((text ?? "status \(status)").utf8), type: "text/plain", status: status)
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// Sets header `name`, replacing values already there.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.0.caseInsensitiveCompare(name) == .orderedSame }
        headers.append((name, value))
    }
}
