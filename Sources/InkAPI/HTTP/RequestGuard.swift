// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// The first handler on a connection, next to the socket: it sees the raw bytes before the HTTP
/// decoder does, so it is where a client's cost is bounded. It refuses a head too long (414,
/// 431) or with bytes a request line may not hold (400) as soon as it shows, keeps the
/// connection's clock (a whole request within `requestTimeout`, the next one within
/// `idleTimeout`), and when it refuses, closes the connection gently: the answer is sent, the
/// sending side shut, and what the client still sends is read and dropped for a moment, so that
/// the client sees the answer rather than a reset.
final class RequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How long a refused connection is drained before it is closed outright.
    static let lingering = TimeAmount.seconds(2)

    private enum Phase {
        /// Between requests: `fresh` until the first one, whose clock started with the connection.
        case between(fresh: Bool)
        case head(RequestHeadScanner)
        /// The head went to the decoder; the body follows.
        case body
        /// The request is with the routes; no clock runs (a long poll holds it on purpose).
        case answering
        /// Refused: input is dropped until the client closes or `lingering` ends.
        case closing
    }

    private let limits: APILimits
    /// The connection's place among the open ones: a refused connection is the first to go.
    private let slot: ConnectionSlot?
    private var phase = Phase.between(fresh: true)
    private var clock: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(limits: APILimits, slot: ConnectionSlot? = nil) {
        self.limits = limits
        self.slot = slot
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { startClock(limits.requestTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if deadline == nil { startClock(limits.requestTimeout) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopClock()
        clock?.cancel()
        clock = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopClock()
        clock?.cancel()
        clock = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        switch phase {
        case .closing:
            return
        case .body:
            context.fireChannelRead(data)
        case .between(let fresh):
            if !fresh { startClock(limits.requestTimeout) }   // a fresh connection's clock runs already
            scan(bytes, with: RequestHeadScanner(limits: limits), context: context)
        case .answering:
            // A pipelined request: its clock starts now; the decoder holds it until the answer before it is out.
            startClock(limits.requestTimeout)
            scan(bytes, with: RequestHeadScanner(limits: limits), context: context)
        case .head(let scanner):
            scan(bytes, with: scanner, context: context)
        }
    }

    private func scan(_ bytes: ByteBuffer, with scanner: RequestHeadScanner, context: ChannelHandlerContext) {
        var scanner = scanner
        switch scanner.feed(bytes.readableBytesView) {
        case .reading:
            phase = .head(scanner)
        case .complete:
            // What follows the head in this chunk (a body, a pipelined request) is the decoder's.
            phase = .body
        case .lineTooLong:
            refuse(.error(.uriTooLong, "the request line is longer than \(limits.maxRequestLine) bytes ([api] max_request_line)"))
            return
        case .headTooLarge:
            refuse(.error(.requestHeaderFieldsTooLarge,
                          "the request line and headers are longer than \(limits.maxHeaderBytes) bytes ([api] max_header_bytes)"))
            return
        case .badLineByte(let byte):
            refuse(.error(.badRequest, "the request line holds byte 0x\(String(byte, radix: 16, uppercase: true)): "
                          + "a request target is ASCII (percent-encode anything else)"))
            return
        }
        context.fireChannelRead(wrapInboundOut(bytes))
    }

    // MARK: told by the request handler

    /// The whole request arrived: the routes have it, and its clock stops.
    func requestReceived() {
        if case .closing = phase { return }
        stopClock()
        phase = .answering
    }

    /// The answer is out and the connection stays open for the next request.
    func answered() {
        guard case .answering = phase else { return }   // a pipelined request is on its way already
        phase = .between(fresh: false)
        startClock(limits.idleTimeout)
    }

    /// Answers with `response` (if any) ahead of the HTTP encoder and closes the connection gently.
    func refuse(_ response: APIResponse?) {
        guard let context, context.channel.isActive else { return }
        if case .closing = phase { return }
        phase = .closing
        slot?.closing()
        stopClock()
        if let response {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: response.serialized())), promise: nil)
        }
        context.close(mode: .output, promise: nil)
        clock?.cancel()
        timerDue = nil
        clock = context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingering) { [weak self] in
            self?.context?.close(promise: nil)
        }
    }

    // MARK: the clock

    /// When the running clock ends; nil when none runs. Moving it is only a store: the one timer
    /// re-arms itself when it finds the deadline moved later (a kept-alive client asking
    /// thousands of times a second would otherwise schedule and cancel a timer per request).
    private var deadline: NIODeadline?
    private var timerDue: NIODeadline?

    private func startClock(_ seconds: Double) {
        let due = NIODeadline.now() + .nanoseconds(Int64(seconds * 1e9))
        deadline = due
        if let timerDue, timerDue <= due { return }
        arm(at: due)
    }

    private func stopClock() {
        deadline = nil
    }

    private func arm(at due: NIODeadline) {
        guard let context else { return }
        clock?.cancel()
        timerDue = due
        clock = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [weak self] in
            self?.timerFired()
        }
    }

    private func timerFired() {
        clock = nil
        timerDue = nil
        guard let deadline else { return }
        if deadline > NIODeadline.now() { arm(at: deadline) } else { timeUp() }
    }

    private func timeUp() {
        deadline = nil
        switch phase {
        case .head, .body:
            refuse(.error(.requestTimeout, "the request did not arrive whole within \(formatSeconds(limits.requestTimeout)) s ([api] request_timeout)"))
        case .between, .answering, .closing:
            // Nothing of a request was sent (a connection opened and forgotten, or kept alive
            // past `idleTimeout`): there is nobody to answer.
            context?.close(promise: nil)
        }
    }
}
