// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Where the signature API listens: a TCP address (IP literal and port) or a unix socket.
public enum APIAddress: Sendable, Equatable, CustomStringConvertible {
    /// `host` is an IPv4 or IPv6 literal; port 0 picks a free port (see `SignatureAPIServer.listeningAddress()`).
    case tcp(host: String, port: UInt16)
    case unix(path: String)

    /// `127.0.0.1:7300`, `localhost:7300`, `[::1]:7300`, `0.0.0.0:7300` (every interface), or
    /// `unix:/run/inkkiosk/api.sock`.
    public static func parse(_ text: String) throws(DeskError) -> APIAddress {
        let usage = "must be IP:PORT (127.0.0.1:7300), [IPv6]:PORT ([::1]:7300) or unix:/absolute/path.sock"
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst("unix:".count))
            guard path.hasPrefix("/") else { throw .badRequest("listen address '\(text)': the socket path must be absolute") }
            // sun_path holds 108 bytes with the terminating NUL.
            guard path.utf8.count < 108 else { throw .badRequest("listen address '\(text)': the socket path must be under 108 bytes") }
            return .unix(path: path)
        }
        guard let colon = text.lastIndex(of: ":") else { throw .badRequest("listen address '\(text)' \(usage)") }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard let port = UInt16(portText), port > 0 else {
            throw .badRequest("listen address '\(text)': port must be a number from 1 to 65535")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard isIPv6(host) else { throw .badRequest("listen address '\(text)': '\(host)' is not an IPv6 address") }
            return .tcp(host: host, port: port)
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard isIPv4(host) else {
            throw .badRequest("listen address '\(text)' \(usage); '\(host)' is not an IPv4 address (no host names)")
        }
        return .tcp(host: host, port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): Self.isIPv6(host) ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }

    /// Reachable only from this machine: a unix socket, 127.0.0.0/8, ::1 or ::ffff:127.x.x.x.
    public var isLocal: Bool {
        switch self {
        case .unix: return true
        case .tcp(let host, _):
            var v4 = in_addr()
            if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
            let mappedV4Loopback = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
            return bytes == loopback || mappedV4Loopback
        }
    }

    /// Why the API may not listen here; nil when it may. Anything but loopback and unix sockets
    /// (`0.0.0.0`, `[::]`, a LAN address) lets other machines in, so it takes both an explicit
    /// `allow_remote` and a token they must show.
    public func refusal(allowRemote: Bool, hasToken: Bool) -> String? {
        if isLocal { return nil }
        guard allowRemote else {
            return "\(self) is reachable from other machines; listen on loopback (127.0.0.1:PORT, [::1]:PORT) or a unix socket, "
                + "or set allow_remote = true (hosts then need the bearer token)"
        }
        guard hasToken else { return "\(self) is reachable from other machines: allow_remote needs a bearer token (remove token = \"none\")" }
        return nil
    }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}
