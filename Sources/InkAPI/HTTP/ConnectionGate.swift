import NIOCore
import Synchronization

/// Counts the connections the API serves, refuses those beyond `[api] max_connections` in all
/// or `max_connections_per_client` from one client, and can close them all when the server stops.
final class ConnectionGate: Sendable {
    private struct Open {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var tally: ConnectionTally
        var refused = 0
        var refusedPerClient = 0
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
    /// Connections open now from `client`.
    func open(from client: ClientKey) -> Int { state.withLock { $0.tally.byClient[client] ?? 0 } }

    /// Nil when `channel` may be served; it then counts until it closes.
    func admit(_ channel: any Channel, client: ClientKey) -> ConnectionTally.Refusal? {
        let refusal = state.withLock { s -> ConnectionTally.Refusal? in
            if let refusal = s.tally.admit(client) {
                if refusal == .total { s.refused += 1 } else { s.refusedPerClient += 1 }
                return refusal
            }
            s.channels[ObjectIdentifier(channel)] = channel
            return nil
        }
        if refusal == nil {
            channel.closeFuture.whenComplete { [weak self] _ in
                self?.state.withLock { s in
                    if s.channels.removeValue(forKey: ObjectIdentifier(channel)) != nil { s.tally.release(client) }
                }
            }
        }
        return refusal
    }

    func closeAll() {
        for channel in state.withLock({ Array($0.channels.values) }) { channel.close(promise: nil) }
    }
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
        case .total: "the kiosk serves \(capacity) connections at once ([api] max_connections): close idle ones and try again"
        case .perClient: "the kiosk serves \(perClient) connections at once from one client (\(client)) "
            + "([api] max_connections_per_client): close idle ones and try again"
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
