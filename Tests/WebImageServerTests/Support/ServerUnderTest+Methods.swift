import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@testable import WebImageServer
@testable import WebImageServerCore

extension ServerUnderTest {
    /// Sends `method` for `path` with `headers` and returns what came back (a `HEAD`'s body is
    /// empty, its headers those of the `GET`).
    func send(_ method: HTTPMethod, _ path: String, headers: [String: String] = [:], deadline: TimeAmount = .seconds(60)) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await Self.client.execute(request, timeout: deadline)
        let body = try await response.body.collect(upTo: 64 << 20)
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name.lowercased()] = value }
        return Reply(status: Int(response.status.code), headers: fields, body: Data(buffer: body))
    }
}
