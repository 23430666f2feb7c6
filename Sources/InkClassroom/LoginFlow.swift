// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkHTTPClient

/// Nextcloud's Login Flow v2: the tablet asks for a login, shows its URL (as a QR code), a teacher
/// or an admin logs in on a phone (two-factor and all, in the browser), and the tablet, polling,
/// receives an app password of its own, which the server's "Devices & sessions" can revoke alone.
/// The tablet never sees anyone's password.
public struct LoginFlow: Sendable {
    /// The server's base URL ("https://cloud.school.example", or with a path: ".../nextcloud").
    public let server: String
    let http: HTTPClient

    /// Seconds a flow stays open on Nextcloud (20 minutes), and between two polls of it.
    public static let lifetime: Int64 = 1200
    public static let pollEvery = 2.0

    public init(server: String, http: HTTPClient) {
        var trimmed = server
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.server = trimmed
        self.http = http
    }

    /// The server's answer to a start: the URL to show, and what to poll with.
    public struct Started: Codable, Sendable, Equatable {
        public struct Poll: Codable, Sendable, Equatable {
            public var token: String
            public var endpoint: String
        }
        public var poll: Poll
        public var login: String
    }

    /// What the poll returns once someone has logged in.
    public struct Granted: Codable, Sendable, Equatable {
        public var server: String
        public var loginName: String
        public var appPassword: String
    }

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// POST /index.php/login/v2. The URLs in the answer must be on the server's own origin: a
    /// tablet shows the login URL to a teacher, and sends its token to the poll endpoint.
    public func start() throws -> Started {
        let started = try http.json(.post, "\(server)/index.php/login/v2", as: Started.self)
        for url in [started.login, started.poll.endpoint] where !Self.sameOrigin(url, server) {
            throw Problem(description: "the server's login answer names \(url.debugDescription), not a URL of \(server): refused")
        }
        guard !started.poll.token.isEmpty, started.poll.token.utf8.count <= 512 else {
            throw Problem(description: "the server's login answer has no usable poll token")
        }
        return started
    }

    /// One poll: nil while nobody has logged in yet (404), the app password once someone has
    /// (the server gives it once, then forgets the flow).
    public func poll(_ started: Started) throws -> Granted? {
        let body = Array("token=\(Self.formEncoded(started.poll.token))".utf8)
        let response = try http.send(HTTPRequest(.post, started.poll.endpoint, headers: [
            HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json"),
        ], body: body))
        if response.status == 404 { return nil }
        guard response.status == 200 else {
            throw HTTPError(method: "POST", url: started.poll.endpoint, reason: .status(response.status, excerpt: response.excerpt))
        }
        let granted: Granted
        do {
            granted = try JSONDecoder().decode(Granted.self, from: Data(response.body))
        } catch {
            throw HTTPError(method: "POST", url: started.poll.endpoint, reason: .undecodable("\(error)", excerpt: ""))
        }
        guard Self.sameOrigin(granted.server, server), !granted.loginName.isEmpty, !granted.appPassword.isEmpty else {
            throw Problem(description: "the login's answer names another server or no login: refused")
        }
        return granted
    }

    /// Scheme, host and port the same ("https://a.example/x" and "https://a.example:443/" are).
    static func sameOrigin(_ a: String, _ b: String) -> Bool {
        guard let x = origin(a), let y = origin(b) else { return false }
        return x == y
    }

    static func origin(_ url: String) -> String? {
        let lower = url.lowercased()
        let scheme: String, defaultPort: String
        if lower.hasPrefix("https://") { scheme = "https"; defaultPort = "443" }
        else if lower.hasPrefix("http://") { scheme = "http"; defaultPort = "80" }
        else { return nil }
        let rest = lower.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let hasPort = authority.last(where: { $0 == ":" || $0 == "]" }) == ":"
        return "\(scheme)://" + (hasPort ? String(authority) : "\(authority):\(defaultPort)")
    }

    /// application/x-www-form-urlencoded's value: unreserved characters as they are, the rest %XX.
    static func formEncoded(_ value: String) -> String { PercentEncoding.encodeSegment(value) }
}
