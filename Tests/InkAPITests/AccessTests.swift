import Foundation
import Glibc
import InkLog
import Logging
import Synchronization
import Testing
@testable import InkAPI
import InkAPIClient

// MARK: the decisions, without sockets

@Suite struct HostOriginContentTypeDecisions {
    private let access = APIAccess()

    @Test func hostNamesAreReadWithOrWithoutPort() {
        #expect(APIAccess.hostName("127.0.0.1:7300") == "127.0.0.1")
        #expect(APIAccess.hostName("LOCALHOST") == "localhost")
        #expect(APIAccess.hostName("localhost.:7300") == "localhost")
        #expect(APIAccess.hostName("[::1]:7300") == "::1")
        #expect(APIAccess.hostName("[::1]") == "::1")
        #expect(APIAccess.hostName("pos.shop.example") == "pos.shop.example")
        for broken in ["", ":7300", "a:b:c", "[::1", "[::1]x", "host:", "host:port", "host:123456", "[nothex]:1", "a/b", "u@h"] {
            #expect(APIAccess.hostName(broken) == nil, "\(broken)")
        }
    }

    @Test func onlyThisServersNamesPass() {
        let listening = ["127.0.0.1"]
        for host in ["127.0.0.1:7300", "127.0.0.1", "localhost:7300", "localhost", "[::1]:7300", "[::1]", "LocalHost:1"] {
            #expect(access.host(host, http11: true, listening: listening) == .allowed, "\(host)")
        }
        for host in ["evil.example", "evil.example:7300", "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.1:7300", "0.0.0.0:7300"] {
            guard case .refused = access.host(host, http11: true, listening: listening + ["0.0.0.0"]) else { Issue.record("\(host) passed"); continue }
        }
        #expect(access.host(nil, http11: true, listening: listening) == .missing)
        #expect(access.host(nil, http11: false, listening: listening) == .allowed, "HTTP/1.0 need not send Host")
        // A LAN address the kiosk listens on (or the client reached), and names the config allows.
        #expect(access.host("192.168.1.20:7300", http11: true, listening: ["0.0.0.0", "192.168.1.20"]) == .allowed)
        var named = APIAccess()
        named.allowedHosts = ["kiosk-7.shop.lan"]
        #expect(named.host("Kiosk-7.shop.lan:7300", http11: true, listening: listening) == .allowed)
        guard case .refused(let why) = named.host("kiosk-8.shop.lan", http11: true, listening: listening) else { Issue.record("passed"); return }
        #expect(why.contains("kiosk-7.shop.lan"), "\(why)")
    }

    @Test func originsPassOnlyWhenListed() {
        #expect(access.originAllowed(nil), "no Origin: not a browser")
        for origin in ["http://evil.example", "null", "http://localhost:8080", "http://127.0.0.1:7300"] {
            #expect(!access.originAllowed(origin), "\(origin): none is allowed by default")
        }
        var listed = APIAccess()
        listed.allowedOrigins = ["https://pos.example:8443"]
        #expect(listed.originAllowed("https://pos.example:8443") && listed.originAllowed("HTTPS://POS.example:8443/"))
        #expect(!listed.originAllowed("https://pos.example") && !listed.originAllowed("http://pos.example:8443"))
    }

    @Test func bodiesMustBeJSON() {
        for type in ["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", " application/json "] {
            #expect(APIAccess.contentTypeAcceptable(method: "POST", contentType: type, hasBody: true), "\(type)")
            #expect(APIAccess.contentTypeAcceptable(method: "PUT", contentType: type, hasBody: true), "\(type)")
        }
        for type in ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                     "application/jsonx", "application/json-patch+json", ""] {
            #expect(!APIAccess.contentTypeAcceptable(method: "POST", contentType: type, hasBody: true), "\(type)")
            #expect(!APIAccess.contentTypeAcceptable(method: "POST", contentType: type, hasBody: false), "\(type), empty: a form that sends nothing")
        }
        #expect(!APIAccess.contentTypeAcceptable(method: "POST", contentType: nil, hasBody: true))
        #expect(APIAccess.contentTypeAcceptable(method: "POST", contentType: nil, hasBody: false), "curl -X POST: no body, no type")
        #expect(APIAccess.contentTypeAcceptable(method: "GET", contentType: "text/plain", hasBody: false))
        #expect(APIAccess.contentTypeAcceptable(method: "DELETE", contentType: nil, hasBody: false))
    }

    @Test func unixSocketPeersAreRootTheKioskOrListed() {
        let me: UInt32 = 999
        #expect(access.peerAllowed(uid: 0, gid: 0, memberOf: [], ownUID: me))
        #expect(access.peerAllowed(uid: me, gid: 5, memberOf: [], ownUID: me))
        #expect(!access.peerAllowed(uid: 1000, gid: 1000, memberOf: [998], ownUID: me))
        var groups = APIAccess()
        groups.socketGroups = [998]
        #expect(groups.peerAllowed(uid: 1000, gid: 998, memberOf: [], ownUID: me), "its own group")
        #expect(groups.peerAllowed(uid: 1000, gid: 1000, memberOf: [1000, 998], ownUID: me), "a group it is a member of")
        var users = APIAccess()
        users.socketUsers = [1000]
        #expect(users.peerAllowed(uid: 1000, gid: 1000, memberOf: [], ownUID: me))
        #expect(!users.peerAllowed(uid: 0, gid: 0, memberOf: [], ownUID: me), "listed users replace the default")
    }
}

@Suite struct TokenStrength {
    @Test func shortOrPlainTokensAreRefused() {
        for weak in ["k", "k1osk-t0ken", "s3cret-Token_1", String(repeating: "ab", count: 20), "0123456789abcdef0123456789abcde",
                     "Zm9vYmFyYmF6cXV4cXV1e", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"] {
            #expect(BearerToken.weakness(weak) != nil, "\(weak)")
            #expect(throws: (any Error).self) { try BearerToken(weak) }
        }
        #expect(BearerToken.weakness("k1osk-t0ken")?.contains("11 characters carry at most 66 bits") == true)
    }

    @Test func randomTokensOf128BitsPass() {
        for strong in ["0123456789abcdef0123456789abcdef", "Zm9vYmFyYmF6cXV4cXV1eDE", "arm64-vm-test-token-7f3c9a", BearerToken.generate()] {
            #expect(BearerToken.weakness(strong) == nil, "\(strong): \(BearerToken.weakness(strong) ?? "")")
        }
        #expect(BearerToken.estimatedBits("0123456789abcdef0123456789abcdef") == 128)
        #expect(BearerToken.estimatedBits("Zm9vYmFyYmF6cXV4cXV1eDE=") == 138)
    }

    @Test func generatedTokensAre256BitsOfHexAndDiffer() {
        let tokens = (0..<50).map { _ in BearerToken.generate() }
        #expect(Set(tokens).count == 50)
        #expect(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func aMissingTokenFileIsMadeOnceAtomicallyAndPrivately() throws {
        let dir = NSTemporaryDirectory() + "inkkiosk-token-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/api.token"
        let (made, created) = try BearerToken.loadOrCreate(path: path, group: getegid())
        #expect(created)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o640 && info.st_gid == getegid())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.count == 65 && text.hasSuffix("\n"))
        #expect(made.admits("Bearer \(text.dropLast())"))
        let (again, createdAgain) = try BearerToken.loadOrCreate(path: path)
        #expect(!createdAgain && again.admits("Bearer \(text.dropLast())"), "the second start reads the first one's token")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["api.token"], "no temporary file is left")
        // One the kiosk did not make, too weak: refused with the file's name.
        let weak = dir + "/weak.token"
        FileManager.default.createFile(atPath: weak, contents: Data("letmein\n".utf8), attributes: [.posixPermissions: 0o600])
        #expect { try BearerToken.loadOrCreate(path: weak) } throws: { "\($0)".contains("\(weak): the bearer token is too weak") }
        #expect { try BearerToken.loadOrCreate(path: "/nonexistent-dir/api.token") } throws: { "\($0)".contains("/nonexistent-dir") }
    }

    /// Whoever can write the token decides who may ask: a file or a directory another user could
    /// write to, or that another user owns, stops the kiosk at start with the path, the owner and the mode.
    @Test func aTokenFileOthersCouldChangeIsRefused() throws {
        let dir = NSTemporaryDirectory() + "inkkiosk-guard-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let secret = BearerToken.generate()
        func file(_ name: String, mode: Int, in directory: String? = nil) -> String {
            let path = "\(directory ?? dir)/\(name)"
            #expect(FileManager.default.createFile(atPath: path, contents: Data((secret + "\n").utf8)))
            #expect(chmod(path, mode_t(mode)) == 0)
            return path
        }
        #expect(try BearerToken.load(path: file("good", mode: 0o640)).admits("Bearer \(secret)"))
        let groupWritable = file("group-w", mode: 0o660)
        #expect { try BearerToken.load(path: groupWritable) } throws: {
            "\($0)".contains("\(groupWritable) may be written by its group (owner uid \(geteuid())") && "\($0)".contains("mode 660): chmod go-w")
        }
        let othersWritable = file("others-w", mode: 0o602)
        #expect { try BearerToken.load(path: othersWritable) } throws: { "\($0)".contains("may be written by every user") }
        // Another user's file: as root, one given to uid 4242; else ours, read by a kiosk of uid 4242.
        let foreign = file("foreign", mode: 0o600)
        let kiosk: UInt32 = geteuid() == 0 ? 0 : 4242
        if geteuid() == 0 { #expect(chown(foreign, 4242, 4242) == 0) }
        #expect { try BearerToken.load(path: foreign, kioskUser: kiosk) } throws: {
            "\($0)".contains("\(foreign) belongs to uid \(geteuid() == 0 ? 4242 : geteuid())") && "\($0)".contains("not to the kiosk's user (uid \(kiosk)")
                && "\($0)".contains("mode 600")
        }
        // A directory others may write to (not sticky): the file in it is refused, and none is made there.
        let open = dir + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        #expect(chmod(open, 0o777) == 0)
        let inOpen = file("api.token", mode: 0o600, in: open)
        #expect { try BearerToken.load(path: inOpen) } throws: {
            "\($0)".contains("its directory \(open) may be written by every user") && "\($0)".contains("mode 777")
        }
        #expect(unlink(inOpen) == 0)
        #expect { try BearerToken.loadOrCreate(path: inOpen) } throws: { "\($0)".contains("its directory \(open) may be written") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty, "no token was made where others could replace it")
        // Sticky, as /tmp: only an entry's owner may rename or remove it there.
        #expect(chmod(open, 0o1777) == 0)
        #expect(try BearerToken.loadOrCreate(path: inOpen).created)
        // Group-writable, reached through a symbolic link from a directory that is fine: judged as it really is.
        #expect(chmod(open, 0o770) == 0)
        let link = dir + "/link"
        #expect(symlink(open, link) == 0)
        #expect { try BearerToken.load(path: link + "/api.token") } throws: { "\($0)".contains("its directory \(open) may be written by its group") }
        if geteuid() == 0 {
            // Root's kiosk, a directory of another user's: that user could swap the file.
            let theirs = dir + "/theirs"
            try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            let inTheirs = file("api.token", mode: 0o600, in: theirs)
            #expect(chown(theirs, 4242, 4242) == 0)
            #expect { try BearerToken.load(path: inTheirs) } throws: { "\($0)".contains("its directory \(theirs) belongs to uid 4242") }
        }
    }
}

@Suite struct RateLimiterAndTallies {
    private let a = ClientKey(ip: "127.0.0.2"), b = ClientKey(ip: "127.0.0.1")

    @Test func fiveFailuresInTenSecondsHoldOffThatClientOnly() {
        var limiter = AuthFailureLimiter(maxFailures: 5, window: 10, capacity: 16)
        for i in 0..<4 { #expect(limiter.failed(a, now: Double(i)) == nil) }
        #expect(limiter.retryAfter(a, now: 4) == nil)
        #expect(limiter.failed(a, now: 4) == 10, "the fifth within 10 s")
        #expect(limiter.retryAfter(a, now: 5) == 9)
        #expect(limiter.retryAfter(b, now: 5) == nil, "another client is not touched")
        #expect(limiter.retryAfter(a, now: 14.5) == nil, "free again after the window")
        #expect(limiter.failed(a, now: 15) == nil, "and counting from zero")
    }

    @Test func failuresSpreadOverMoreThanTheWindowNeverHoldOff() {
        var limiter = AuthFailureLimiter(maxFailures: 5, window: 10, capacity: 16)
        for i in 0..<100 { #expect(limiter.failed(a, now: Double(i) * 2.6) == nil, "failure \(i)") }
    }

    @Test func theTableIsBoundedAndKeepsWhoIsHeldOff() {
        var limiter = AuthFailureLimiter(maxFailures: 2, window: 10, capacity: 16)
        limiter.failed(a, now: 0)
        limiter.failed(a, now: 0)
        for i in 0..<10_000 { limiter.failed(ClientKey(ip: "10.0.\(i / 256).\(i % 256)"), now: 1 + Double(i) / 10_000) }
        #expect(limiter.tracked <= 16)
        // Clients whose failures aged out go before any other.
        var aging = AuthFailureLimiter(maxFailures: 2, window: 10, capacity: 16)
        aging.failed(a, now: 0); aging.failed(a, now: 0)
        for i in 0..<15 { aging.failed(ClientKey(ip: "10.1.0.\(i)"), now: 0) }
        aging.failed(ClientKey(ip: "10.2.0.1"), now: 5)
        #expect(aging.retryAfter(a, now: 6) != nil, "a client held off stays held off while others' failures can go")
    }

    @Test func connectionsAreCappedPerClientAndInAll() {
        var tally = ConnectionTally(capacity: 5, perClient: 3)
        #expect((0..<3).map { _ in tally.admit(a) } == [nil, nil, nil])
        #expect(tally.admit(a) == .perClient)
        #expect(tally.admit(b) == nil && tally.admit(b) == nil)
        #expect(tally.admit(ClientKey(ip: "127.0.0.3")) == .total)
        tally.release(a)
        #expect(tally.admit(ClientKey(ip: "127.0.0.3")) == nil)
        for _ in 0..<10 { tally.release(a) }
        #expect(tally.byClient[a] == nil && tally.total == 3, "a client with nothing open leaves the table")
        #expect(ClientKey(ip: "::ffff:127.0.0.2") == a)
    }
}

// MARK: over the wire

private func withServer(_ transport: Transport, token: BearerToken? = nil, access: APIAccess = APIAccess(), limits: APILimits = APILimits(),
                        _ body: (APIAddress, SignatureAPIServer, @Sendable () -> [String]) async throws -> Void) async throws {
    let address: APIAddress = switch transport {
    case .tcp: .tcp(host: "127.0.0.1", port: 0)
    case .unix: .unix(path: NSTemporaryDirectory() + "inkkiosk-access-\(UUID().uuidString.prefix(8)).sock")
    }
    let lines = Mutex<[String]>([])
    let server = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: address, limits: limits, token: token,
                                    access: access, onGiveUp: { why in lines.withLock { $0.append("GAVE UP: \(why)") } },
                                    log: Logger(label: "inkkiosk.api") { label in
                                        KioskLogHandler(label: label, journal: false, level: .trace) { text in lines.withLock { $0.append(text) } }
                                    })
    try await server.start()
    let listening = try #require(await server.listeningAddress())
    do { try await body(listening, server, { lines.withLock { $0 } }) } catch { await server.stop(); throw error }
    await server.stop()
}

private func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        Thread { c.resume(with: Result { try work() }) }.start()
    }
}

/// One request on a fresh connection: its answer, and whether the server closed the connection after it.
private func ask(_ address: APIAddress, _ request: String, source: String? = nil) throws -> (status: Int?, body: String, headers: [String: String], closed: Bool) {
    let client = try BlockingClient(address, timeout: 5, source: source)
    client.send(request)
    let response = client.response()
    return (response?.status, response?.body ?? "", response?.headers ?? [:], client.closedByServer())
}

private let token = "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c"

private func post(host: String = "localhost", type: String? = "application/json", origin: String? = nil,
                  auth: String? = "Bearer \(token)", body: String = "{}") -> String {
    var text = "POST /signatures HTTP/1.1\r\nHost: \(host)\r\n"
    if let type { text += "Content-Type: \(type)\r\n" }
    if let origin { text += "Origin: \(origin)\r\n" }
    if let auth { text += "Authorization: \(auth)\r\n" }
    return text + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
}

@Suite(.serialized) struct AccessOverTheWire {
    @Test(arguments: Transport.allCases)
    func hostIsJudgedOnTCPOnly(_ transport: Transport) async throws {
        try await withServer(transport, token: try BearerToken(token)) { address, server, log in
            let replies = try await blocking {
                try ["evil.example", "evil.example:7300", "127.0.0.1.nip.io"].map { try ask(address, post(host: $0)) }
            }
            for reply in replies {
                if transport == .tcp {
                    #expect(reply.status == 421 && reply.closed && reply.body.contains("DNS rebinding"), "\(reply)")
                } else {
                    #expect(reply.status == 201 || reply.status == 409, "over the unix socket the URL's host is not used: \(reply)")
                }
            }
            if transport == .tcp {
                #expect(server.desk.latest() == nil, "nothing refused reached the desk")
                #expect(log().contains { $0.contains("refused 421 (Host evil.example) from 127.0.0.1") }, "\(log())")
                let missing = try await blocking { try ask(address, "GET /health HTTP/1.1\r\nAuthorization: Bearer \(token)\r\n\r\n") }
                #expect(missing.status == 400, "HTTP/1.1 without Host")
                let good = try await blocking { try ask(address, "GET /health HTTP/1.1\r\nHost: 127.0.0.1:1\r\nAuthorization: Bearer \(token)\r\n\r\n") }
                #expect(good.status == 200, "a Host naming the address with another port: \(good)")
            }
        }
    }

    @Test(arguments: Transport.allCases)
    func pagesAndTheirPlainTextAreRefused(_ transport: Transport) async throws {
        var allowed = APIAccess()
        allowed.allowedOrigins = ["https://pos.example"]
        try await withServer(transport, token: try BearerToken(token), access: allowed) { address, server, log in
            let replies = try await blocking {
                [try ask(address, post(origin: "http://evil.example")),
                 try ask(address, post(type: "text/plain;charset=UTF-8", origin: nil, body: #"{"prompt": "free money"}"#)),
                 try ask(address, post(type: "application/x-www-form-urlencoded", body: "a=b")),
                 try ask(address, post(type: nil, body: "{}")),
                 try ask(address, post(type: "text/plain", body: "")),
                 try ask(address, post(type: "text/plain", origin: "null"))]
            }
            #expect(replies.map(\.status) == [403, 415, 415, 415, 415, 403], "\(replies.map { "\($0.status ?? -1) \($0.body)" })")
            #expect(replies.allSatisfy { $0.closed })
            #expect(server.desk.latest() == nil, "no prompt reached the screen")
            #expect(log().contains { $0.contains("refused 403 (Origin http://evil.example)") }, "\(log())")
            let fine = try await blocking {
                [try ask(address, post(type: "application/json; charset=utf-8", origin: "https://pos.example")),
                 try ask(address, "DELETE /signatures/none HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n")]
            }
            #expect(fine.map(\.status) == [201, 404], "\(fine)")
        }
    }

    @Test(arguments: Transport.allCases)
    func aWrongTokenIs401AndClosesTheConnection(_ transport: Transport) async throws {
        try await withServer(transport, token: try BearerToken(token)) { address, _, log in
            let outcome = try await blocking {
                let client = try BlockingClient(address, timeout: 5)
                client.send("GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer nope\r\n\r\nGET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let first = client.response()
                let second = client.response()
                return (first, second, client.closedByServer())
            }
            #expect(outcome.0?.status == 401 && outcome.0?.headers["connection"] == "close")
            #expect(outcome.0?.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            #expect(outcome.1 == nil && outcome.2, "nothing more is read on that connection")
            #expect(log().contains { $0.contains("refused 401 (wrong token)") }, "\(log())")
        }
    }

    @Test func aWrongTokenStormHoldsOffItsClientOnly() async throws {
        try await withServer(.tcp, token: try BearerToken(token)) { address, server, log in
            let outcome = try await blocking {
                let storm = try (0..<8).map { _ in try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer guess\r\n\r\n", source: "127.0.0.2") }
                let right = try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n", source: "127.0.0.2")
                let other = try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n", source: "127.0.0.1")
                return (storm, right, other)
            }
            #expect(outcome.0.map(\.status) == [401, 401, 401, 401, 401, 429, 429, 429])
            #expect(outcome.0.last?.headers["retry-after"].flatMap(Int.init).map { (1...10).contains($0) } == true)
            #expect(outcome.1.status == 429, "held off: even the right token is not looked at")
            #expect(outcome.2.status == 200, "another client is served")
            #expect(server.refusals[429] == 4 && server.refusals[401] == 5)
            #expect(log().contains { $0.contains("from 127.0.0.2") && $0.contains("held off for 10 s") }, "\(log())")
        }
    }

    @Test func connectionsAreCappedPerClient() async throws {
        var limits = APILimits()
        limits.maxConnectionsPerClient = 3
        try await withServer(.tcp, limits: limits) { address, server, _ in
            let outcome = try await blocking {
                let held = try (0..<3).map { _ in try BlockingClient(address, source: "127.0.0.2") }
                for _ in 0..<2000 where server.connections.open < 3 { usleep(5_000) }
                let fourth = try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", source: "127.0.0.2")
                let other = try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", source: "127.0.0.1")
                _ = held
                return (fourth, other)
            }
            #expect(outcome.0.status == 503 && outcome.0.body.contains("max_connections_per_client") && outcome.0.closed)
            #expect(outcome.1.status == 200)
            #expect(server.refusedPerClient == 1 && server.connections.refused == 0)
        }
    }

    /// A refusal is logged, and nothing else: with `onGiveUp` as a trailing closure (as the kiosk
    /// writes it) a logged refusal once stopped the kiosk.
    @Test func aRefusalDoesNotStopTheServer() async throws {
        let gaveUp = Mutex(false)
        let server = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: .tcp(host: "127.0.0.1", port: 0),
                                        token: try BearerToken(token)) { _ in gaveUp.withLock { $0 = true } }
        try await server.start()
        let address = try #require(await server.listeningAddress())
        let replies = try await blocking {
            [try ask(address, post(host: "evil.example")), try ask(address, post(auth: "Bearer nope")),
             try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n")]
        }
        #expect(replies.map(\.status) == [421, 401, 200])
        #expect(!gaveUp.withLock { $0 } && server.failure == nil)
        await server.stop()
    }

    @Test func aUnixSocketPeerNotAllowedIsClosedAndLogged() async throws {
        var access = APIAccess()
        access.socketUsers = [geteuid() == 0 ? 4242 : 0]   // not this process's user
        try await withServer(.unix, access: access) { address, _, log in
            let reply = try await blocking { try ask(address, "GET /health HTTP/1.1\r\nHost: kiosk\r\n\r\n") }
            #expect(reply.status == 403 && reply.closed, "\(reply)")
            #expect(log().contains { $0.contains("refused a unix-socket peer: uid \(geteuid()) gid \(getegid()) pid \(getpid())") }, "\(log())")
        }
        // Its group makes it welcome.
        access.socketGroups = [getegid()]
        try await withServer(.unix, access: access) { address, _, _ in
            let reply = try await blocking { try ask(address, "GET /health HTTP/1.1\r\nHost: kiosk\r\n\r\n") }
            #expect(reply.status == 200, "\(reply)")
        }
    }
}
