import NIOCore
import NIOHTTP1

/// Answers one connection's requests as their `TestResponse` says: waits, trickles, drops.
/// Lives on its channel's event loop (NIO handlers are confined to it).
final class TestServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let core: TestServerCore
    /// False on HTTP/2 streams: their connection is counted by `TestServerConnectionCounter`.
    private let countsConnection: Bool
    private var pending: (method: String, uri: String, headers: [(String, String)], version: HTTPVersion)?
    /// The response being sent: its path, until it ends.
    private var answering: String?
    /// The gate the next piece waits on, with the wait's id.
    private var gateWait: (gate: TestGate, id: Int)?

    init(core: TestServerCore, countsConnection: Bool) {
        self.core = core
        self.countsConnection = countsConnection
    }

    func channelActive(context: ChannelHandlerContext) {
        if countsConnection { core.connectionOpened() }
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added to an HTTP/2 stream or after TLS negotiation, the channel is active already.
        if context.channel.isActive, countsConnection { core.connectionOpened() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let (gate, id) = gateWait {
            gateWait = nil
            gate.cancel(id)
        }
        if let path = answering {
            answering = nil
            core.responseEnded(path: path, completed: false)
        }
        if countsConnection { core.connectionClosed() }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            pending = (head.method.rawValue, head.uri, head.headers.map { ($0.name, $0.value) }, head.version)
        case .body:
            break
        case .end:
            guard let request = pending else { return }
            pending = nil
            let (seen, response) = core.receive(method: request.method, uri: request.uri, headers: request.headers)
            answering = seen.path
            respond(response, path: seen.path, head: request.method == "HEAD", version: request.version, context: context)
        }
    }

    private func respond(_ response: TestResponse, path: String, head isHead: Bool, version: HTTPVersion, context: ChannelHandlerContext) {
        let loop = context.eventLoop.assumeIsolated()
        loop.scheduleTask(in: .nanoseconds(Int64(response.headerDelay.nanoseconds))) {
            guard context.channel.isActive else { return }
            var headers = HTTPHeaders(response.headers)
            if response.chunked {
                headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            } else {
                headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
            }
            let status = HTTPResponseStatus(statusCode: response.status)
            context.writeAndFlush(self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
            let body = isHead || response.status == 304 ? [] : response.body
            self.sendBody(body, from: 0, response: response, path: path, context: context)
        }
    }

    private func sendBody(_ body: [UInt8], from offset: Int, response: TestResponse, path: String, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        if let drop = response.dropAfter, offset >= drop {
            context.close(promise: nil)
            return
        }
        guard offset < body.count else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            if answering == path {
                answering = nil
                core.responseEnded(path: path, completed: true)
            }
            return
        }
        if let gate = response.gate, offset > 0, let size = response.chunkSize {
            // Piece n waits for the n-th opening; the body is sent from the channel's event loop.
            let loop = context.eventLoop
            let piece = offset / size
            let handler = NIOLoopBound(self, eventLoop: loop)
            let boundContext = NIOLoopBound(context, eventLoop: loop)
            let id = gate.whenOpened(piece) {
                loop.execute {
                    handler.value.gateWait = nil
                    handler.value.sendPiece(body, from: offset, response: response, path: path, context: boundContext.value)
                }
            }
            if let id { gateWait = (gate, id) }
            return
        }
        sendPiece(body, from: offset, response: response, path: path, context: context)
    }

    private func sendPiece(_ body: [UInt8], from offset: Int, response: TestResponse, path: String, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var end = min(body.count, offset + (response.chunkSize ?? body.count))
        if let drop = response.dropAfter { end = min(end, max(drop, offset + 1)) }
        let delay = end < body.count ? response.chunkDelay : .zero
        // The next piece waits until this one is written: a slow reader holds one piece per
        // connection here, not the whole body.
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body[offset..<end])))))
            .assumeIsolated().whenComplete { _ in
                context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay.nanoseconds))) {
                    self.sendBody(body, from: end, response: response, path: path, context: context)
                }
            }
    }
}

/// Counts an HTTP/2 connection (its streams are not connections).
final class TestServerConnectionCounter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    private let core: TestServerCore

    init(core: TestServerCore) {
        self.core = core
    }

    func handlerAdded(context: ChannelHandlerContext) {
        core.connectionOpened()
    }

    func channelInactive(context: ChannelHandlerContext) {
        core.connectionClosed()
        context.fireChannelInactive()
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
