// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore
import InkLoop

/// Who may use the API, judged on each request's head before its body is read (`[api]
/// allowed_hosts`, `allowed_origins`, `socket_users`, `socket_groups`; docs/API.md, "Who may ask").
/// Only decisions here, no I/O: the tests drive every case.
///
/// A web page the kiosk's browser (or any browser on the POS machine) opens must not reach the
/// API: DNS rebinding points a name of the attacker's at 127.0.0.1, so the browser sends that
/// name as `Host` (421); every request a browser makes carries `Sec-Fetch-*` headers (403, before
/// anything else); a page's `fetch` or form sends its `Origin` (403); a "simple" request
/// a browser sends without asking first carries `text/plain` or a form type, never JSON (415).
public struct APIAccess: Sendable, Equatable {
    /// Names (or IP literals) a request's `Host` may carry besides the listening address and
    /// the loopback names; lower case, without a port.
    public var allowedHosts: [String] = []
    /// Origins (`https://pos.example:8443`) whose requests are served; none by default.
    public var allowedOrigins: [String] = []
    /// Users (uids) who may connect to the unix socket; nil: root and the kiosk's own user.
    public var socketUsers: [UInt32]? = nil
    /// Groups (gids) whose members may connect to the unix socket.
    public var socketGroups: [UInt32] = []

    public init() {}

    /// What `Host` may always name: this machine.
    public static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "::1"]

    public enum HostVerdict: Equatable, Sendable {
        case allowed
        /// HTTP/1.1 without `Host` (RFC 9112 3.2: 400).
        case missing
        /// Not a name of this server: 421 Misdirected Request.
        case refused(String)
    }

    /// The host of a `Host` value, lower case, without its port or brackets; nil when it is no
    /// host at all (`a:b:c`, `[::1`, a port that is not a number).
    public static func hostName(_ value: String) -> String? {
        var text = Substring(value.trimmingSpaces().lowercased())
        guard !text.isEmpty else { return nil }
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            }
            text = text[text.index(after: text.startIndex)..<close]
            guard APIAddress.isIPv6(String(text)) else { return nil }
        } else if let colon = text.firstIndex(of: ":") {
            guard text[text.index(after: colon)...].firstIndex(of: ":") == nil else { return nil }   // an IPv6 literal needs brackets
            port = text[text.index(after: colon)...]
            text = text[..<colon]
        }
        if let port { guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else { return nil } }
        if text.hasSuffix(".") { text = text.dropLast() }   // "localhost." is "localhost"
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "@") }) else { return nil }
        return String(text)
    }

    /// Whether `host` (a `Host` header's value, nil when there is none) names this server:
    /// `listening` are its own addresses (the configured one and the one the client reached).
    /// The port is not judged: a proxy or a port forward may show another one; the name is what
    /// a rebinding attacker cannot choose.
    public func host(_ value: String?, http11: Bool, listening: [String]) -> HostVerdict {
        guard let value else { return http11 ? .missing : .allowed }
        guard let name = Self.hostName(value) else { return .refused("'\(value)' is not a host name") }
        if Self.loopbackNames.contains(name) || allowedHosts.contains(name) { return .allowed }
        if listening.contains(where: { $0.lowercased() == name && $0 != "0.0.0.0" && $0 != "::" }) { return .allowed }
        return .refused("'\(value)' is not this kiosk (allowed: the listening address, localhost, 127.0.0.1, [::1]"
                        + (allowedHosts.isEmpty ? "; more in [api] allowed_hosts)" : ", \(allowedHosts.joined(separator: ", ")))"))
    }

    /// An `Origin` as compared: lower case, without a trailing slash.
    public static func normalizedOrigin(_ origin: String) -> String {
        var text = origin.trimmingSpaces().lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// True when a request may come from `origin` (nil: it sent none, as every non-browser
    /// client). `Origin: null` (a sandboxed page, a file) is refused unless listed.
    public func originAllowed(_ origin: String?) -> Bool {
        guard let origin else { return true }
        let given = Self.normalizedOrigin(origin)
        return allowedOrigins.contains { Self.normalizedOrigin($0) == given }
    }

    /// The `Sec-Fetch-*` header that shows a browser made the request, when it is refused; nil
    /// when none is there, or the page's `Origin` is in `allowed_origins`. Browsers add these
    /// headers (Fetch Metadata) to every request they make, an image's or a form's too, and no
    /// page's script can leave them out; no POS program sends them. They are judged first: a
    /// page's request never reaches the token's count or a route.
    public func refusedBrowserHeader(_ names: some Sequence<String>, origin: String?) -> String? {
        guard let found = names.first(where: { $0.lowercased().hasPrefix("sec-fetch-") }) else { return nil }
        if let origin, !allowedOrigins.isEmpty, originAllowed(origin) { return nil }
        return found
    }

    /// True for `application/json`, with parameters (`; charset=utf-8`) or not, in any case.
    public static func isJSON(_ contentType: String?) -> Bool { mediaType(contentType) == "application/json" }

    /// True for `application/pdf`: only `POST /documents` takes it (a browser's "simple" request
    /// cannot send it either, so the rebinding defence holds there too).
    public static func isPDF(_ contentType: String?) -> Bool { mediaType(contentType) == "application/pdf" }

    /// The type without parameters, lower case.
    static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return type.trimmingSpaces().lowercased()
    }

    /// Whether a request with this method needs a JSON `Content-Type`: POST and PUT that carry a
    /// body, or name a type (a body-less POST without one, `curl -X POST`, is no browser's form).
    public static func contentTypeAcceptable(method: String, contentType: String?, hasBody: Bool) -> Bool {
        guard method == "POST" || method == "PUT" else { return true }
        if contentType == nil && !hasBody { return true }
        return isJSON(contentType)
    }

    /// Whether a unix-socket peer may use the API: its user is allowed, or its group (the
    /// process's own, from SO_PEERCRED), or one of the groups the user is a member of.
    public func peerAllowed(uid: UInt32, gid: UInt32, memberOf groups: [UInt32], ownUID: UInt32) -> Bool {
        let users = socketUsers ?? [0, ownUID]
        if users.contains(uid) { return true }
        return socketGroups.contains(gid) || groups.contains(where: socketGroups.contains)
    }
}

/// The supplementary groups of a user, from the group database (`getgrouplist`): the groups
/// an administrator put the POS user in (`usermod -aG inkkiosk pos`).
public func groupsOfUser(uid: UInt32) -> [UInt32] {
    var entry = passwd()
    var storage = [CChar](repeating: 0, count: 4096)
    var found: UnsafeMutablePointer<passwd>?
    guard getpwuid_r(uid_t(uid), &entry, &storage, storage.count, &found) == 0, found != nil, let name = entry.pw_name else { return [] }
    var count: Int32 = 64
    var groups = [gid_t](repeating: 0, count: Int(count))
    if getgrouplist(name, entry.pw_gid, &groups, &count) < 0 {
        groups = [gid_t](repeating: 0, count: Int(max(count, 1)))
        guard getgrouplist(name, entry.pw_gid, &groups, &count) >= 0 else { return [] }
    }
    return groups.prefix(Int(count)).map { UInt32($0) }
}
