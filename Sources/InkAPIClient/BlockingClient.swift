// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkAPI
import InkCore
import InkLoop

/// An HTTP/1.1 client on a bare blocking socket, for the API's load benchmark and its tests:
/// it sends whatever bytes it is given (a megabyte of header, half a request, a lie in
/// Content-Length) and reads answers, each call bounded by a timeout. One thread at a time.
/// Sendable only to be handed over (tests make it on a thread and get it back through a continuation):
/// `pending` and `buffer` are unguarded, so the hand-over orders their uses; `fd` is set once in init.
public final class BlockingClient: @unchecked Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String
    }

    public let fd: Int32
    private var pending: [UInt8] = []
    /// Reused by every read: the load benchmark reads thousands of answers a second.
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    /// `source`: the IPv4 address this end binds to (`127.0.0.2`: another client on loopback).
    public init(_ address: APIAddress, timeout: Double = 10, source: String? = nil) throws {
        switch address {
        case .tcp(let host, let port):
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                guard bound == 0 else { let failure = SystemCallError("bind to", path: source); Glibc.close(fd); throw failure }
            }
            var inet = sockaddr_in()
            inet.sin_family = sa_family_t(AF_INET)
            inet.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &inet.sin_addr)
            let rc = withUnsafePointer(to: &inet) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard rc == 0 else { let failure = SystemCallError("connect to", path: "\(address)"); Glibc.close(fd); throw failure }
        case .unix(let path):
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var unix = sockaddr_un()
            unix.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &unix.sun_path) { raw in
                for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
            }
            let rc = withUnsafePointer(to: &unix) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            guard rc == 0 else { let failure = SystemCallError("connect to", path: "\(address)"); Glibc.close(fd); throw failure }
        }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    /// False once the server has closed or reset the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// The next response, or nil when the connection closed (or the timeout passed) first.
    public func response() -> Response? {
        while true {
            if let end = headEnd() {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
                var headers: [String: String] = [:]
                for line in lines where !line.isEmpty {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces()
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while pending.count < end + 4 + length { guard receive() else { return nil } }
                let body = String(decoding: pending[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                pending.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            guard receive() else { return nil }
        }
    }

    /// True when the server closes the connection (end of stream or reset) before the timeout.
    public func closedByServer() -> Bool {
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }

    public func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    private func headEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for i in 0...(pending.count - 4) where pending[i] == 13 && pending[i + 1] == 10 && pending[i + 2] == 13 && pending[i + 3] == 10 {
            return i
        }
        return nil
    }

    private func receive() -> Bool {
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return false }
        pending += buffer[..<n]
        return true
    }
}
