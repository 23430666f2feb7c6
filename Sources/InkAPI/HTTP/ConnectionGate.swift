// SPDX-License-Identifier: Apache-2.0
import NIOCore
import Synchronization

/// Counts the connections the API serves, makes room for a newcomer beyond `[api]
/// max_connections` in all or `max_connections_per_client` from one client by closing one that
/// has not shown the token (`ConnectionTally` says which), refuses it only when every slot is
/// held by one that has, and can close them all when the server stops.
final class ConnectionGate: Sendable {
    private struct Open {
        var channels: [UInt64: any Channel] = [:]
        var tally: ConnectionTally
        var refused = 0
        var refusedPerClient = 0
        var evicted = 0
    }

    enum Admission {
        case admitted(ConnectionSlot, evicted: ConnectionTally.Eviction?)
        case refused(ConnectionTally.Refusal)
    }

    let capacity: Int
    let perClient: Int
    private let state: Mutex<Open>

    init(capacity: Int, perClient: Int) {
        self.capacity = capacity
        self.perClient = perClient
        state = Mutex(Open(tally: ConnectionTally(capacity: capacity, perClient: perClient)))
    }

    var count: Int { state.withLock { $0.channels.count } }
    /// Connections refused for being one too many (in all, and for their client), since the start.
    var refused: Int { state.withLock { $0.refused } }
    var refusedPerClient: Int { state.withLock { $0.refusedPerClient } }
    /// Connections closed to make room for a newcomer, since the start.
    var evicted: Int { state.withLock { $0.evicted } }
    /// Connections open now from `client`.
    func open(from client: ClientKey) -> Int { state.withLock { $0.tally.byClient[client] ?? 0 } }

    /// `channel` is served (it then counts until it closes), perhaps in the place of one closed
    /// for it; or refused.
    func admit(_ channel: any Channel, client: ClientKey) -> Admission {
        let (admission, victim) = state.withLock { s -> (ConnectionTally.Admission, (any Channel)?) in
            let admission = s.tally.admit(client)
            switch admission {
            case .refused(let refusal):
                if refusal == .total { s.refused += 1 } else { s.refusedPerClient += 1 }
                return (admission, nil)
            case .admitted(let number, let evicted):
                s.channels[number] = channel
                guard let evicted else { return (admission, nil) }
                s.evicted += 1
                return (admission, s.channels.removeValue(forKey: evicted.number))
            }
        }
        // Outside the lock: a channel's close runs its closeFuture's callbacks, which take it.
        victim?.close(promise: nil)
        switch admission {
        case .refused(let refusal):
            return .refused(refusal)
        case .admitted(let number, let evicted):
            channel.closeFuture.whenComplete { [weak self] _ in self?.release(number) }
            return .admitted(ConnectionSlot(gate: self, number: number), evicted: evicted)
        }
    }

    fileprivate func mark(_ number: UInt64, _ standing: ConnectionTally.Standing) {
        state.withLock { $0.tally.mark(number, standing) }
    }

    private func release(_ number: UInt64) {
        state.withLock { s in
            if s.channels.removeValue(forKey: number) != nil { s.tally.release(number) }
        }
    }

    func closeAll() {
        for channel in state.withLock({ Array($0.channels.values) }) { channel.close(promise: nil) }
    }
}

/// One admitted connection's place in the gate: the request's checks say when it has shown the
/// token (it keeps its slot) or was refused (it is the first to go).
final class ConnectionSlot: Sendable {
    private let gate: ConnectionGate
    private let number: UInt64

    fileprivate init(gate: ConnectionGate, number: UInt64) {
        self.gate = gate
        self.number = number
    }

    func proven() { gate.mark(number, .proven) }
    func closing() { gate.mark(number, .closing) }
}

/// The whole pipeline of a connection refused at once (beyond a connection limit, a unix-socket
/// peer not allowed): one answer, then the connection closes. It is not drained (that would
/// hold its descriptor longer), so a client that had already sent its request may see a reset
/// instead of the answer.
final class RefuseAtOnce: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let response: APIResponse
    private var sent = false

    init(_ response: APIResponse) {
        self.response = response
    }

    /// 503 with Retry-After: 1, for a connection over a limit.
    static func overCapacity(_ refusal: ConnectionTally.Refusal, capacity: Int, perClient: Int, client: ClientKey) -> RefuseAtOnce {
        let message = switch refusal {
        case .total: "the kiosk serves \(capacity) connections at once ([api] max_connections), and every one has shown "
            + "the token: close idle ones and try again"
        case .perClient: "the kiosk serves \(perClient) connections at once from one client (\(client)) "
            + "([api] max_connections_per_client), and every one has shown the token: close idle ones and try again"
        }
        var response = APIResponse.error(.serviceUnavailable, message)
        response.headers.append(("Retry-After", "1"))
        return RefuseAtOnce(response)
    }

    func channelActive(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        let written = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: response.serialized())))
        written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { channelActive(context: context) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
