import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Bounds what one client connection may hold, as imgproxy's Go server does with its read, write
/// and idle deadlines: a request must arrive within `READ_REQUEST_TIMEOUT` (from its first byte,
/// or from the connection's opening for the first request, to the end of its body), a response
/// must reach the network within `WRITE_RESPONSE_TIMEOUT` (from its head written to its end
/// handed to the socket), and a connection may wait for its next request `KEEP_ALIVE_TIMEOUT`
/// (nil: no keep-alive, each response says `Connection: close` and closes its connection). Past a
/// limit the connection is closed. A request whose head had begun to arrive is answered 408
/// first, and a head past `MAX_HEADER_FIELD_SIZE`, `MAX_HEADERS_SIZE` or `MAX_HEADER_COUNT` 431
/// (as Go's server answers a head past its one limit; NIO's decoder reports the three, and a
/// URL past the field size, as one error); otherwise nothing is answered (the client is either
/// too slow to take an answer or has not asked for one). Each such close is counted by limit
/// (`webimage_server_connections_closed_total`). A request being processed has no limit here:
/// `TIMEOUT` bounds it.
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

    /// Which limit closed a connection: the setting's name, for the log and the counter.
    enum Limit: String, Sendable, CaseIterable {
        case readRequestTimeout = "READ_REQUEST_TIMEOUT"
        case writeResponseTimeout = "WRITE_RESPONSE_TIMEOUT"
        case keepAliveTimeout = "KEEP_ALIVE_TIMEOUT"
        /// One of the three: the decoder does not say which.
        case headerLimits = "MAX_HEADER_FIELD_SIZE|MAX_HEADERS_SIZE|MAX_HEADER_COUNT"
    }

    /// How long a refused connection stays open, its output closed, for the client to read the
    /// answer before the close (Go's `rstAvoidanceDelay`): closed at once with the client's bytes
    /// unread, the kernel resets the connection, and the client may lose the answer.
    static let lingering = TimeAmount.milliseconds(500)

    // Times are the event loop's (`eventLoop.now`): a test's embedded loop moves its own clock.
    private let limits: Limits
    private let logger: Logger
    private let metrics: ServerMetrics?
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
    /// Bytes of the open request came.
    private var requestBytesCame = false
    /// The open request's head was read.
    private var requestHeadRead = false
    /// A head passed the header limits; answered 431 once the responses before it are out.
    private var headTooLarge = false
    /// The connection was answered by this handler (408 or 431): nothing more is read or timed.
    private var refused = false

    init(limits: Limits, logger: Logger, metrics: ServerMetrics? = nil) {
        self.limits = limits
        self.logger = logger
        self.metrics = metrics
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
        requestBytesCame = false
        requestHeadRead = false
        keepAliveDeadline = nil
        if readDeadline == nil { readDeadline = context.eventLoop.now + limits.readRequestTimeout }
        scheduleTimer(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused, !headTooLarge else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if !requestOpen { beginRequest(context: context) }
            requestHeadRead = true
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
        guard !refused else { return }
        if !requestOpen, unanswered == 0, unsent == 0 { beginRequest(context: context) }
        if requestOpen { requestBytesCame = true }
        context.fireChannelReadComplete()
    }

    /// A head past a header limit is answered 431 (after the responses before it, pipelined).
    /// Once this handler answered, or will, what the decoder reports (the bytes it no longer
    /// reads, a refused head sent after a 408) is dropped: the server would answer it 400.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let decoding = error is HTTPParserError || error is ByteToMessageDecoderError
        if refused || headTooLarge, decoding { return }
        if let error = error as? HTTPParserError, error == .headerOverflow {
            headTooLarge = true
            readDeadline = nil
            if unanswered == 0, unsent == 0 { refuse(.requestHeaderFieldsTooLarge, limit: .headerLimits, context: context) }
            return
        }
        context.fireErrorCaught(error)
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
        guard !inactive, !refused else { return }
        unsent = max(0, unsent - 1)
        unanswered = max(0, unanswered - 1)
        if headTooLarge {
            if unanswered == 0, unsent == 0 { refuse(.requestHeaderFieldsTooLarge, limit: .headerLimits, context: context) }
            return
        }
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
        // Most messages have no Connection field: nothing to gather.
        guard fields[.connection] != nil else { return false }
        return fields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.filter { !$0.isWhitespace }.lowercased() == "close" }
        }
    }

    private func scheduleTimer(context: ChannelHandlerContext) {
        guard !inactive, !refused else { return }
        // Without an array: this runs twice a request.
        guard let earliest = Self.earliest(Self.earliest(readDeadline, writeDeadline), keepAliveDeadline) else {
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

    private static func earliest(_ first: NIODeadline?, _ second: NIODeadline?) -> NIODeadline? {
        guard let first, let second else { return first ?? second }
        return min(first, second)
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
        // A head begun and not finished, with nothing answered on the connection meanwhile, is a
        // request the client is still sending: it hears why it ends.
        if passed == .readRequestTimeout, requestBytesCame, !requestHeadRead, unanswered == 0, unsent == 0 {
            refuse(.requestTimeout, limit: passed, context: context)
            return
        }
        closed(by: passed, context: context)
        readDeadline = nil
        writeDeadline = nil
        keepAliveDeadline = nil
        context.close(promise: nil)
    }

    /// Logs and counts a close by `limit`.
    private func closed(by limit: Limit, context: ChannelHandlerContext) {
        logger.debug(
            "closing a client connection: \(limit.rawValue) passed",
            metadata: ["limit": "\(limit.rawValue)", "peer": "\(context.channel.remoteAddress?.description ?? "?")"]
        )
        metrics?.connectionClosed(limit: limit.rawValue)
    }

    /// Answers `status` (no body, `Connection: close`) to a request nothing else will answer,
    /// closes the output once it is out, and the connection `lingering` later (or at the write
    /// timeout, for a client that does not take the answer); what the client sends meanwhile is
    /// dropped.
    private func refuse(_ status: HTTPResponse.Status, limit: Limit, context: ChannelHandlerContext) {
        refused = true
        closed(by: limit, context: context)
        readDeadline = nil
        writeDeadline = nil
        keepAliveDeadline = nil
        stopTimer()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.writeResponseTimeout) { context.close(promise: nil) }
        var head = HTTPResponse(status: status)
        head.headerFields[.connection] = "close"
        head.headerFields[.contentLength] = "0"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { [self] result in
            guard case .success = result, !inactive else { return }
            context.close(mode: .output, promise: nil)
            timer?.cancel()
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingering) { context.close(promise: nil) }
        }
    }
}
