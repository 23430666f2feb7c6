import NIOCore
import Synchronization

/// Counts the connections the API serves, refuses those beyond `[api] max_connections`, and can
/// close them all when the server stops.
final class ConnectionGate: Sendable {
    private struct Open {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var refused = 0
    }

    let capacity: Int
    private let state = Mutex(Open())

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { state.withLock { $0.channels.count } }
    /// Connections refused for being one too many, since the start.
    var refused: Int { state.withLock { $0.refused } }

    /// True when `channel` may be served; it then counts until it closes.
    func admit(_ channel: any Channel) -> Bool {
        let admitted = state.withLock { s in
            guard s.channels.count < capacity else { s.refused += 1; return false }
            s.channels[ObjectIdentifier(channel)] = channel
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { [weak self] _ in
                self?.state.withLock { _ = $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }
        return admitted
    }

    func closeAll() {
        for channel in state.withLock({ Array($0.channels.values) }) { channel.close(promise: nil) }
    }
}

/// The whole pipeline of a connection beyond the limit: one 503, then the connection closes.
/// It is not drained (that would hold its descriptor longer), so a client that had already sent
/// its request may see a reset instead of the answer.
final class OverCapacity: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    func channelActive(context: ChannelHandlerContext) {
        let answer = APIResponse.error(.serviceUnavailable, "the kiosk serves \(capacity) connections at once ([api] max_connections): "
                                       + "close idle ones and try again")
        var response = answer
        response.headers.append(("Retry-After", "1"))
        let written = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: response.serialized())))
        written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
