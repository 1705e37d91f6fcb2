import NIOCore
import NIOPosix
import WebImageSupport

/// A TCP server on 127.0.0.1 that answers each connection, once its first bytes arrive, with
/// raw bytes on a schedule, whatever was asked: the origins no HTTP library sends (a head a byte
/// a second, a `Content-Length` never honoured, 100,000 header fields, a body without end).
/// A test waits for the replies it started to end (`waitUntilNoReplyIsInProgress`) to see that
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
    private let replies: RawReplies

    private init(port: Int, channel: any Channel, group: MultiThreadedEventLoopGroup, replies: RawReplies) {
        self.port = port
        self.channel = channel
        self.group = group
        self.replies = replies
    }

    /// Starts an origin that answers every connection with `reply`, on a thread of its own.
    public static func start(_ reply: Reply) async throws -> RawOrigin {
        let replies = RawReplies()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawReplyHandler(reply: reply, replies: replies))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
            return RawOrigin(port: port, channel: channel, group: group, replies: replies)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? "" : "/")\(path)"
    }

    /// Waits until every reply started has ended with its connection (a connection that never
    /// sent a request, such as one a client pool opened and keeps idle, has no reply); false
    /// when `timeout` (stretched by `TestAllowance.timeScale`) passes first. The close is seen
    /// in milliseconds; the default bound is a hang guard (`TestAllowance.eventWait`), as
    /// `TestServer.wait`'s.
    public func waitUntilNoReplyIsInProgress(timeout: Duration = TestAllowance.eventWait) async -> Bool {
        await replies.waitUntilNoneIsInProgress(timeout: timeout)
    }

    /// Closes the listening socket and every connection (their event loop goes).
    public func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// A `RawOrigin`'s replies in progress (started, their connection still open), and who waits
/// for none to be.
private final class RawReplies: Sendable {
    struct State {
        var inProgress = 0
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0
        /// Waits whose time ran out before they were registered.
        var expired: Set<UInt64> = []
    }

    let state = Locked(State())

    func started() {
        state.withLock { $0.inProgress += 1 }
    }

    func ended() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.inProgress -= 1
            guard state.inProgress == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    func waitUntilNoneIsInProgress(timeout: Duration) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task {
            guard (try? await Task.sleep(for: TestAllowance.time(timeout))) != nil else { return }
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
                if state.inProgress == 0 { return true }
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
    private let replies: RawReplies
    private var started = false

    init(reply: RawOrigin.Reply, replies: RawReplies) {
        self.reply = reply
        self.replies = replies
    }

    func channelInactive(context: ChannelHandlerContext) {
        if started { replies.ended() }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The request is read and dropped; the reply starts with its first bytes.
        guard !started else { return }
        started = true
        replies.started()
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
