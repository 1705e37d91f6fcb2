import NIOCore
import NIOPosix
import WebImageSupport

/// A TCP server on 127.0.0.1 that answers each connection, once its first bytes arrive, with
/// raw bytes on a schedule, whatever was asked: the origins no HTTP library sends (a head a byte
/// a second, a `Content-Length` never honoured, 100,000 header fields, a body without end).
/// It counts connections, and a test waits on them (`waitUntilNoConnectionIsOpen`) to see that
/// the client let go.
public final class RawOrigin: Sendable {
    /// What one connection is sent: `prefix` in pieces of `pieceSize` bytes, then `repeating`
    /// for ever (nil: nothing more), each piece `interval` after the last one was written.
    /// After the last piece the connection stays open until the client closes it.
    public struct Reply: Sendable {
        public var prefix: [UInt8]
        public var pieceSize: Int
        public var repeating: [UInt8]?
        public var interval: Duration

        public init(prefix: [UInt8], pieceSize: Int = .max, repeating: [UInt8]? = nil, interval: Duration = .zero) {
            self.prefix = prefix
            self.pieceSize = max(1, pieceSize)
            self.repeating = repeating
            self.interval = interval
        }

        /// The `index`-th piece; nil after the last.
        func piece(_ index: Int) -> [UInt8]? {
            let pieces = prefix.isEmpty ? 0 : (prefix.count - 1) / pieceSize + 1
            guard index >= pieces else {
                let start = index * pieceSize
                return Array(prefix[start..<(start + min(pieceSize, prefix.count - start))])
            }
            return repeating
        }
    }

    /// The port on 127.0.0.1.
    public let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let connections: RawConnections

    private init(port: Int, channel: any Channel, group: MultiThreadedEventLoopGroup, connections: RawConnections) {
        self.port = port
        self.channel = channel
        self.group = group
        self.connections = connections
    }

    /// Starts an origin that answers every connection with `reply`, on a thread of its own.
    public static func start(_ reply: Reply) async throws -> RawOrigin {
        let connections = RawConnections()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawReplyHandler(reply: reply, connections: connections))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
            return RawOrigin(port: port, channel: channel, group: group, connections: connections)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? "" : "/")\(path)"
    }

    /// Connections accepted so far.
    public var acceptedConnections: Int { connections.state.withLock { $0.accepted } }

    /// Waits until no connection is open; false when `timeout` passes first.
    public func waitUntilNoConnectionIsOpen(timeout: Duration = .seconds(30)) async -> Bool {
        await connections.waitUntilNoneIsOpen(timeout: timeout)
    }

    /// Closes the listening socket and every connection (their event loop goes).
    public func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// A `RawOrigin`'s connections: accepted, open, and who waits for none to be open.
private final class RawConnections: Sendable {
    struct State {
        var accepted = 0
        var open = 0
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0
        /// Waits whose time ran out before they were registered.
        var expired: Set<UInt64> = []
    }

    let state = Locked(State())

    func opened() {
        state.withLock { state in
            state.accepted += 1
            state.open += 1
        }
    }

    func closed() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.open -= 1
            guard state.open == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    func waitUntilNoneIsOpen(timeout: Duration) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.expired.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let answer = state.withLock { state -> Bool? in
                if state.open == 0 { return true }
                if state.expired.remove(id) != nil { return false }
                state.waiters[id] = continuation
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }
}

/// Writes a `RawOrigin.Reply` on one connection once the client has sent something, each piece
/// after the last was written (a client that stops reading holds one piece here, not more).
/// Lives on its channel's event loop.
private final class RawReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let reply: RawOrigin.Reply
    private let connections: RawConnections
    private var started = false

    init(reply: RawOrigin.Reply, connections: RawConnections) {
        self.reply = reply
        self.connections = connections
    }

    func channelActive(context: ChannelHandlerContext) {
        connections.opened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.closed()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The request is read and dropped; the reply starts with its first bytes.
        guard !started else { return }
        started = true
        send(0, context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func send(_ index: Int, context: ChannelHandlerContext) {
        guard context.channel.isActive, let piece = reply.piece(index) else { return }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: piece))).assumeIsolated().whenSuccess {
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(self.reply.interval.nanoseconds)) {
                self.send(index + 1, context: context)
            }
        }
    }
}
