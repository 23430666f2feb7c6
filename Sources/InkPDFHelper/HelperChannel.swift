// SPDX-License-Identifier: Apache-2.0
import CCage
import FoundationEssentials
import Glibc
import InkCore
import InkStorage

/// One end of the socket between the kiosk and its PDF helper (SOCK_SEQPACKET: a message is
/// never split or merged), descriptors passed beside messages.
final class HelperChannel {
    enum Failure: Error, Equatable {
        /// The other end is gone (the helper died, or the kiosk did).
        case closed
        /// Nothing came before the deadline.
        case timedOut
        case protocolError(String)
        case system(String, Int32)
    }

    let fd: Int32
    init(fd: Int32) { self.fd = fd }

    /// Two connected ends, close-on-exec.
    static func pair() throws -> (HelperChannel, HelperChannel) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw Failure.system("socketpair", errno)
        }
        return (HelperChannel(fd: fds[0]), HelperChannel(fd: fds[1]))
    }

    func close() { _ = Glibc.close(fd) }

    func send(_ bytes: [UInt8], fds: [Int32] = []) throws {
        precondition(fds.count <= 4)
        while true {
            let n = bytes.withUnsafeBytes { b in fds.withUnsafeBufferPointer { f in
                ik_send_with_fds(fd, b.baseAddress, b.count, f.baseAddress, Int32(f.count))
            } }
            if n >= 0 { return }
            if errno == EINTR { continue }
            if errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN { throw Failure.closed }
            throw Failure.system("sendmsg", errno)
        }
    }

    /// The next message, waiting until `deadline`; any descriptors that came with it closed (the
    /// kiosk's side: a helper has none to give, and one taken over must not fill the kiosk's table).
    func receiveMessage(deadline: Double? = nil) throws -> [UInt8] {
        let message = try receive(deadline: deadline)
        for fd in message.fds { Glibc.close(fd) }
        return message.bytes
    }

    /// The next message and its descriptors (the caller owns them), waiting until `deadline`
    /// (monotonic seconds; nil: for ever).
    func receive(deadline: Double? = nil) throws -> (bytes: [UInt8], fds: [Int32]) {
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = deadline.map { Int32(max(0, min(Double(Int32.max), (($0 - monotonicNow()) * 1000).rounded(.up)))) } ?? -1
            let ready = poll(&poller, 1, wait)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { throw Failure.system("poll", errno) }
            if ready == 0 { throw Failure.timedOut }
            var buffer = [UInt8](repeating: 0, count: HelperWire.maxBytes)
            var fds: [Int32] = [-1, -1, -1, -1]
            var count: Int32 = 0
            let n = buffer.withUnsafeMutableBytes { b in
                fds.withUnsafeMutableBufferPointer { ik_receive_with_fds(fd, b.baseAddress, b.count, $0.baseAddress, &count) }
            }
            if n == -2 { throw Failure.protocolError("a message larger than \(HelperWire.maxBytes) bytes, or more than 4 descriptors") }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { throw Failure.closed }
                throw Failure.system("recvmsg", errno)
            }
            if n == 0 && count == 0 { throw Failure.closed }   // SEQPACKET: end of file
            return (Array(buffer[0..<n]), Array(fds[0..<Int(count)]))
        }
    }
}
