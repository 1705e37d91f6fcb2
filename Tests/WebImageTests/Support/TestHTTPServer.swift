import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 (a port the system picks) answering fixed routes, for
/// tests of everything that fetches over the network. Unknown paths get 404.
final class TestHTTPServer: Sendable {
    struct Response: Sendable {
        var status: HTTPResponseStatus = .ok
        var headers: [(String, String)] = []
        var body: [UInt8] = []
    }

    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Starts serving `routes` (path → response).
    static func start(routes: [String: Response]) async throws -> TestHTTPServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(RouteHandler(routes: routes))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
        return TestHTTPServer(port: port, channel: channel)
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    func shutdown() async throws {
        try await channel.close()
    }

    /// Answers each request from the routes once its end has arrived.
    private final class RouteHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let routes: [String: Response]

        init(routes: [String: Response]) {
            self.routes = routes
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let request) = unwrapInboundIn(data) else { return }
            let path = String(request.uri.prefix { $0 != "?" })
            let response = routes[path] ?? Response(status: .notFound, body: Array("no route \(path)".utf8))
            var headers = HTTPHeaders(response.headers)
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
            let head = HTTPResponseHead(version: request.version, status: response.status, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
