import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// Bounds what one client connection may hold, as imgproxy's Go server does with its read, write
/// and idle deadlines: a request must arrive within `READ_REQUEST_TIMEOUT` (from its first byte,
/// or from the connection's opening for the first request, to the end of its body), a response
/// must reach the network within `WRITE_RESPONSE_TIMEOUT` (from its head written to its end
/// handed to the socket), and a connection may wait for its next request `KEEP_ALIVE_TIMEOUT`
/// (nil: no keep-alive, each response says `Connection: close` and closes its connection). Past a
/// limit the connection is closed; nothing is answered (the client is either too slow to take
/// an answer or has not asked for one). A request being processed has no limit here: `TIMEOUT`
/// bounds it.
///
/// A request or response that says `Connection: close` has its connection closed here, on the
/// event loop, once that response is out: Hummingbird closes it from the request's task, which a
/// busy task pool runs late, and the connection would meanwhile count as idle.
///
/// In the pipeline after the HTTP codec, so it sees request and response parts; the bytes of a
/// request whose head is not complete yet show as a `channelReadComplete` with no part. Bytes
/// of a next request that came in the same read as a whole one are only seen when more arrive
/// or, failing that, are bounded by `KEEP_ALIVE_TIMEOUT` once the answers are out.
final class ConnectionLimitsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The limits, as durations.
    struct Limits: Sendable {
        var readRequestTimeout: TimeAmount
        var writeResponseTimeout: TimeAmount
        /// nil: no keep-alive.
        var keepAliveTimeout: TimeAmount?
    }

    /// Which limit closed a connection: the setting's name, for the log.
    enum Limit: String, Sendable {
        case readRequestTimeout = "READ_REQUEST_TIMEOUT"
        case writeResponseTimeout = "WRITE_RESPONSE_TIMEOUT"
        case keepAliveTimeout = "KEEP_ALIVE_TIMEOUT"
    }

    // Times are the event loop's (`eventLoop.now`): a test's embedded loop moves its own clock.
    private let limits: Limits
    private let logger: Logger
    /// A request has begun (its first bytes, or the connection opened) and its end is not read.
    private var requestOpen = false
    /// Requests whose head was read and whose response has not reached the socket in full.
    private var unanswered = 0
    /// Responses whose head was written and whose end has not reached the socket.
    private var unsent = 0
    private var readDeadline: NIODeadline?
    private var writeDeadline: NIODeadline?
    private var keepAliveDeadline: NIODeadline?
    /// The one timer, set for the earliest deadline or before it (it then sets itself again).
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    /// The channel has gone: nothing more is timed (a write failed by the close reports after it).
    private var inactive = false
    /// A request said `Connection: close`: the connection ends once every request read is answered.
    private var requestSaidClose = false
    /// A response said `Connection: close`: the connection ends with it.
    private var responseSaidClose = false

    init(limits: Limits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTimer()
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        inactive = true
        readDeadline = nil
        writeDeadline = nil
        keepAliveDeadline = nil
        stopTimer()
        context.fireChannelInactive()
    }

    /// The first request's time starts when the connection opens (a client that connects and
    /// says nothing is a request that does not arrive), as Go's server counts it.
    private func opened(context: ChannelHandlerContext) {
        guard !requestOpen, unanswered == 0 else { return }
        beginRequest(context: context)
    }

    private func beginRequest(context: ChannelHandlerContext) {
        requestOpen = true
        keepAliveDeadline = nil
        if readDeadline == nil { readDeadline = context.eventLoop.now + limits.readRequestTimeout }
        scheduleTimer(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if !requestOpen { beginRequest(context: context) }
            unanswered += 1
            if Self.saysClose(head.headerFields) { requestSaidClose = true }
        case .body:
            break
        case .end:
            requestOpen = false
            readDeadline = nil
        }
        context.fireChannelRead(data)
    }

    /// Bytes arrived. On an idle connection they begin a request, whose head may still be
    /// incomplete (no part came of them).
    func channelReadComplete(context: ChannelHandlerContext) {
        if !requestOpen, unanswered == 0, unsent == 0 { beginRequest(context: context) }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            unsent += 1
            if Self.saysClose(head.headerFields) { responseSaidClose = true }
            if writeDeadline == nil {
                writeDeadline = context.eventLoop.now + limits.writeResponseTimeout
                scheduleTimer(context: context)
            }
            guard limits.keepAliveTimeout == nil else { break }
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        case .body:
            break
        case .end:
            // Done when the end reaches the socket (or fails to: the channel is closing then).
            let written = promise ?? context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { [self] _ in responseSent(context: context) }
            context.write(data, promise: written)
            return
        }
        context.write(data, promise: promise)
    }

    private func responseSent(context: ChannelHandlerContext) {
        guard !inactive else { return }
        unsent = max(0, unsent - 1)
        unanswered = max(0, unanswered - 1)
        // A response after it (pipelined) has its own time, from now.
        writeDeadline = unsent > 0 ? context.eventLoop.now + limits.writeResponseTimeout : nil
        guard let keepAliveTimeout = limits.keepAliveTimeout, !responseSaidClose, !(requestSaidClose && unanswered == 0) else {
            if unsent == 0 { context.close(promise: nil) }
            return
        }
        if !requestOpen, unanswered == 0, unsent == 0 { keepAliveDeadline = context.eventLoop.now + keepAliveTimeout }
        scheduleTimer(context: context)
    }

    /// Whether `fields` carry the `close` connection option (a comma-separated, case-insensitive list).
    private static func saysClose(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.filter { !$0.isWhitespace }.lowercased() == "close" }
        }
    }

    private func scheduleTimer(context: ChannelHandlerContext) {
        guard !inactive else { return }
        let deadlines = [readDeadline, writeDeadline, keepAliveDeadline].compactMap { $0 }
        guard let earliest = deadlines.min() else {
            stopTimer()
            return
        }
        // A timer set for earlier than needed stays: it sets itself again when it fires.
        if let timerDeadline, timerDeadline <= earliest { return }
        timer?.cancel()
        timerDeadline = earliest
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: earliest) { [self] in
            timer = nil
            timerDeadline = nil
            timerFired(context: context)
        }
    }

    private func stopTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func timerFired(context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        let passed: Limit? =
            if let readDeadline, readDeadline <= now { .readRequestTimeout }
            else if let writeDeadline, writeDeadline <= now { .writeResponseTimeout }
            else if let keepAliveDeadline, keepAliveDeadline <= now { .keepAliveTimeout }
            else { nil }
        guard let passed else {
            scheduleTimer(context: context)
            return
        }
        logger.debug(
            "closing a client connection: \(passed.rawValue) passed",
            metadata: ["limit": "\(passed.rawValue)", "peer": "\(context.channel.remoteAddress?.description ?? "?")"]
        )
        readDeadline = nil
        writeDeadline = nil
        keepAliveDeadline = nil
        context.close(promise: nil)
    }
}
