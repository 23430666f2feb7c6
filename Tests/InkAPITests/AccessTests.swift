// SPDX-License-Identifier: Apache-2.0
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

    @Test func aClientsFullSlotsMakeRoomByClosingItsOldestUnprovenConnection() {
        var tally = ConnectionTally(capacity: 10, perClient: 3)
        let numbers = (0..<3).map { _ in admitted(tally.admit(a)) }
        tally.mark(numbers[1], .proven)
        // The fourth from a: the oldest that has not shown the token goes.
        guard case .admitted(let fourth, let evicted) = tally.admit(a) else { Issue.record("refused"); return }
        #expect(evicted == .init(number: numbers[0], entry: .init(client: a, standing: .unproven), limit: .perClient))
        #expect(tally.byClient[a] == 3 && tally.total == 3)
        // A refused connection goes before an older one still to show its token.
        tally.mark(fourth, .closing)
        guard case .admitted(_, let second) = tally.admit(a) else { Issue.record("refused"); return }
        #expect(second?.number == fourth && second?.entry.standing == .closing)
        // Another client's connections are not touched by a's limit.
        let other = admitted(tally.admit(b))
        tally.mark(numbers[2], .proven)
        guard case .admitted(_, let third) = tally.admit(a) else { Issue.record("refused"); return }
        #expect(third?.entry.client == a && third?.number != numbers[1] && third?.number != numbers[2], "proven ones keep their slots")
        #expect(tally.entries[other] != nil)
    }

    @Test func provenConnectionsKeepTheirSlotsAndTheNewcomerIsRefused() {
        var tally = ConnectionTally(capacity: 5, perClient: 3)
        for _ in 0..<3 { tally.mark(admitted(tally.admit(a)), .proven) }
        #expect(tally.admit(a) == .refused(.perClient))
        for _ in 0..<2 { tally.mark(admitted(tally.admit(b)), .proven) }
        #expect(tally.admit(ClientKey(ip: "127.0.0.3")) == .refused(.total))
        // Closing is for good, and a proven connection is not made unproven.
        let number = tally.entries.keys.min()!
        tally.mark(number, .closing)
        tally.mark(number, .proven)
        #expect(tally.entries[number]?.standing == .closing)
        guard case .admitted(_, let evicted) = tally.admit(ClientKey(ip: "127.0.0.3")) else { Issue.record("refused"); return }
        #expect(evicted?.number == number && evicted?.limit == .total)
        #expect(ClientKey(ip: "::ffff:127.0.0.2") == a)
    }

    @Test func theServersFullSlotsMakeRoomFromTheClientHoldingTheMost() {
        var tally = ConnectionTally(capacity: 6, perClient: 4)
        let few = admitted(tally.admit(b))
        let many = (0..<4).map { _ in admitted(tally.admit(a)) }
        _ = admitted(tally.admit(ClientKey(ip: "127.0.0.3")))
        guard case .admitted(_, let evicted) = tally.admit(ClientKey(ip: "127.0.0.4")) else { Issue.record("refused"); return }
        #expect(evicted?.number == many[0] && evicted?.limit == .total, "not b's older one: a holds four")
        #expect(tally.entries[few] != nil && tally.total == 6)
    }

    /// Whatever comes and goes, the table never holds more than its limits, and its counts agree.
    @Test func theTallyStaysWithinItsLimitsUnderAnyChurn() {
        var tally = ConnectionTally(capacity: 16, perClient: 5)
        var generator = SplitMix(seed: 7)
        let clients = (1...6).map { ClientKey(ip: "127.0.0.\($0)") }
        var open: [UInt64] = []
        for _ in 0..<20_000 {
            switch generator.next() % 4 {
            case 0, 1:
                if case .admitted(let number, let evicted) = tally.admit(clients[Int(generator.next() % 6)]) {
                    open.append(number)
                    if let evicted { open.removeAll { $0 == evicted.number } }
                }
            case 2 where !open.isEmpty:
                tally.mark(open[Int(generator.next() % UInt64(open.count))], generator.next() % 3 == 0 ? .closing : .proven)
            default:
                if !open.isEmpty { tally.release(open.remove(at: Int(generator.next() % UInt64(open.count)))) }
            }
            #expect(tally.total <= 16 && tally.byClient.values.allSatisfy { $0 <= 5 && $0 > 0 })
            #expect(tally.byClient.values.reduce(0, +) == tally.total && Set(open) == Set(tally.entries.keys))
        }
    }

    private func admitted(_ admission: ConnectionTally.Admission) -> UInt64 {
        guard case .admitted(let number, _) = admission else { Issue.record("refused: \(admission)"); return 0 }
        return number
    }
}

/// A small seeded generator: the churn test is the same on every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
                  auth: String? = "Bearer \(token)", body: String = "{}", close: Bool = false) -> String {
    var text = "POST /signatures HTTP/1.1\r\nHost: \(host)\r\n" + (close ? "Connection: close\r\n" : "")
    if let type { text += "Content-Type: \(type)\r\n" }
    if let origin { text += "Origin: \(origin)\r\n" }
    if let auth { text += "Authorization: \(auth)\r\n" }
    return text + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
}

/// GET /health as the host asks it, on a connection it closes after the answer.
private let hostHealth = "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\r\n"

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

    @Test func wrongTokensHoldOffTheirClientButNeverTheRightToken() async throws {
        try await withServer(.tcp, token: try BearerToken(token)) { address, server, log in
            let outcome = try await blocking {
                let health = "GET /health HTTP/1.1\r\nHost: localhost\r\n"
                let storm = try (0..<8).map { _ in try ask(address, health + "Authorization: Bearer guess\r\n\r\n", source: "127.0.0.2") }
                let right = try ask(address, hostHealth, source: "127.0.0.2")
                let missing = try ask(address, health + "\r\n", source: "127.0.0.2")
                let wrongAgain = try ask(address, health + "Authorization: Bearer guess\r\n\r\n", source: "127.0.0.2")
                let other = try ask(address, health + "Authorization: Bearer guess\r\n\r\n", source: "127.0.0.1")
                return (storm, right, missing, wrongAgain, other)
            }
            #expect(outcome.0.map(\.status) == [401, 401, 401, 401, 401, 429, 429, 429])
            #expect(outcome.0.last?.headers["retry-after"].flatMap(Int.init).map { (1...10).contains($0) } == true)
            #expect(outcome.0.allSatisfy { $0.closed })
            #expect(outcome.1.status == 200, "held off: the right token is still served: \(outcome.1)")
            #expect(outcome.2.status == 401, "held off: no token is 401, not 429 (it was no guess)")
            #expect(outcome.3.status == 429, "the right token did not lift the hold on wrong ones")
            #expect(outcome.4.status == 401, "another client is not held off")
            #expect(server.refusals[429] == 4 && server.refusals[401] == 7)
            #expect(log().contains { $0.contains("from 127.0.0.2") && $0.contains("wrong tokens now get 429 for 10 s") }, "\(log())")
            #expect(log().contains { $0.contains("refused 429 (wrong token from a client held off) from 127.0.0.2") }, "\(log())")
        }
    }

    /// A page's images, a program that forgot the header: 401 as often as they like, and the host's
    /// next request is served; the count of wrong tokens does not move.
    @Test func aMissingTokenIsNeverCounted() async throws {
        var limits = APILimits()
        limits.authFailures = 2
        try await withServer(.tcp, token: try BearerToken(token), limits: limits) { address, server, log in
            let outcome = try await blocking {
                let missing = try (0..<40).map { _ in try ask(address, "GET /signature.png HTTP/1.1\r\nHost: localhost\r\n\r\n") }
                let wrong = try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer guess\r\n\r\n")
                let host = try ask(address, post(close: true))
                return (missing, wrong, host)
            }
            #expect(Set(outcome.0.map(\.status)) == [401])
            #expect(outcome.0.allSatisfy { $0.headers["www-authenticate"]?.hasPrefix("Bearer") == true && $0.body.contains("none was sent") })
            #expect(outcome.1.status == 401, "the first wrong token after 40 missing ones is the first counted")
            #expect(outcome.2.status == 201, "\(outcome.2)")
            #expect(server.refusals[429] == nil && server.refusals[401] == 41)
            // A storm is logged at its 1st, 10th… time, not 40 times.
            #expect(log().filter { $0.contains("refused 401 (missing token)") }.count == 2, "\(log())")
        }
    }

    /// Fetch Metadata: whatever else the request has wrong, a browser's request is 403 and counts
    /// for nothing, its size is not judged, and nothing of it reaches the desk.
    @Test(arguments: Transport.allCases)
    func aBrowsersRequestIsRefusedBeforeAnythingElse(_ transport: Transport) async throws {
        var limits = APILimits()
        limits.authFailures = 1
        try await withServer(transport, token: try BearerToken(token), limits: limits) { address, server, log in
            let replies = try await blocking {
                [try ask(address, "GET /signatures/latest HTTP/1.1\r\nHost: evil.example\r\nSec-Fetch-Dest: image\r\n"
                         + "Sec-Fetch-Mode: no-cors\r\nSec-Fetch-Site: cross-site\r\nAuthorization: Bearer guess\r\n\r\n"),
                 try ask(address, "POST /signatures HTTP/1.1\r\nHost: localhost\r\nsec-fetch-site: same-origin\r\n"
                         + "Content-Type: text/plain\r\nContent-Length: 99999999\r\n\r\n"),
                 try ask(address, post(origin: "https://pos.example")),
                 try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\nSec-Fetch-User: ?1\r\nAuthorization: Bearer \(token)\r\n\r\n"),
                 try ask(address, hostHealth)]
            }
            #expect(replies.map(\.status) == [403, 403, 403, 403, 200], "\(replies.map { "\($0.status ?? -1) \($0.body)" })")
            #expect(replies[0].body.contains("Sec-Fetch") && replies[0].closed)
            #expect(replies[1].body.contains("sec-fetch-site"), "not 413: the size is judged after")
            #expect(replies[2].body.contains("Origin"), "an Origin alone is the Origin's 403")
            #expect(replies[3].body.contains("Sec-Fetch-User"), "even with the right token: a page must not drive the API")
            #expect(server.refusals[401] == nil && server.refusals[429] == nil, "no token was looked at")
            #expect(server.desk.latest() == nil)
            #expect(log().contains { $0.contains("refused 403 (a browser's Sec-Fetch-Dest)") }, "\(log())")
        }
    }

    /// A page the config lets ask keeps working: its Sec-Fetch-* headers come with its Origin.
    @Test func aListedPageMaySendFetchMetadata() async throws {
        var access = APIAccess()
        access.allowedOrigins = ["https://pos.example"]
        try await withServer(.tcp, token: try BearerToken(token), access: access) { address, _, _ in
            let replies = try await blocking {
                let fetch = "GET /health HTTP/1.1\r\nHost: localhost\r\nSec-Fetch-Mode: cors\r\nSec-Fetch-Site: cross-site\r\n"
                    + "Connection: close\r\nAuthorization: Bearer \(token)\r\n"
                return [try ask(address, fetch + "Origin: https://pos.example\r\n\r\n"),
                        try ask(address, fetch + "Origin: https://other.example\r\n\r\n"),
                        try ask(address, fetch + "\r\n")]
            }
            #expect(replies.map(\.status) == [200, 403, 403], "a listed Origin; another; an image (no Origin)")
        }
    }

    @Test func theBrowserDecision() {
        let none = APIAccess()
        #expect(none.refusedBrowserHeader(["Host", "Authorization"], origin: nil) == nil)
        #expect(none.refusedBrowserHeader(["Host", "SEC-FETCH-DEST"], origin: nil) == "SEC-FETCH-DEST")
        #expect(none.refusedBrowserHeader(["Sec-Fetch-Site"], origin: "https://pos.example") == "Sec-Fetch-Site")
        var listed = APIAccess()
        listed.allowedOrigins = ["https://pos.example"]
        #expect(listed.refusedBrowserHeader(["Sec-Fetch-Site"], origin: "https://pos.example/") == nil)
        #expect(listed.refusedBrowserHeader(["Sec-Fetch-Site"], origin: "null") == "Sec-Fetch-Site")
        #expect(listed.refusedBrowserHeader(["Sec-Fetch-Dest"], origin: nil) == "Sec-Fetch-Dest")
        #expect(listed.refusedBrowserHeader(["Sec-Fetch"], origin: nil) == nil, "only the Sec-Fetch-* family")
    }

    /// A program that varies what it sends (a Host, an Origin each time) is still logged at its
    /// 1st, 10th, 100th… time per kind, not once per value.
    @Test func aStormThatVariesItsValuesIsLoggedSparingly() async throws {
        try await withServer(.tcp, token: try BearerToken(token)) { address, server, log in
            try await blocking {
                for i in 0..<120 {
                    _ = try ask(address, "GET /health HTTP/1.1\r\nHost: evil\(i).example\r\n\r\n")
                    _ = try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\nOrigin: http://page\(i).example\r\n\r\n")
                }
            }
            #expect(server.refusals[421] == 120 && server.refusals[403] == 120)
            let hosts = log().filter { $0.contains("refused 421") }, origins = log().filter { $0.contains("refused 403") }
            #expect(hosts.count == 3 && origins.count == 3, "\(hosts) \(origins)")
            #expect(hosts.first?.contains("Host evil0.example") == true && hosts.last?.contains("100 times so far") == true)
        }
    }

    /// Idle connections, half-sent heads and refused ones from the host's own address: a newcomer
    /// takes the place of a refused one first, then of the oldest still to show its token, and the
    /// host's requests are served.
    @Test(arguments: Transport.allCases)
    func connectionsThatShowNoTokenMakeRoomForTheHost(_ transport: Transport) async throws {
        var limits = APILimits()
        limits.maxConnectionsPerClient = 3
        try await withServer(transport, token: try BearerToken(token), limits: limits) { address, server, log in
            let outcome = try await blocking {
                // Three that never send, each counted before the next comes (the order is their age).
                var held: [BlockingClient] = []
                for n in 1...3 {
                    held.append(try BlockingClient(address, timeout: 5))
                    for _ in 0..<2000 where server.connections.open < n { usleep(5_000) }
                }
                // The youngest asks without the token: refused, it lingers (this end keeps it open).
                held[2].send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let refused = held[2].response()?.status
                let host = try ask(address, post(close: true))
                let evictedFirst = server.evicted
                // The oldest silent one was not the one to go: it shows the token now, and keeps its slot.
                held[0].send("GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n")
                let oldest = held[0].response()?.status
                // Half a head (slowloris) takes the third slot; the host's next request closes the
                // oldest still silent (the second), not the newer slowloris.
                let slow = try BlockingClient(address, timeout: 5)
                slow.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n")
                for _ in 0..<2000 where server.connections.open < 3 { usleep(5_000) }
                let again = try ask(address, hostHealth)
                let secondClosed = held[1].closedByServer()
                slow.send("Connection: close\r\nAuthorization: Bearer \(token)\r\n\r\n")
                let slowFinished = slow.response()?.status
                return (refused, host, evictedFirst, oldest, again, secondClosed, slowFinished, server.connections.open)
            }
            #expect(outcome.0 == 401)
            #expect(outcome.1.status == 201, "\(outcome.1)")
            #expect(outcome.2 == 1 && outcome.3 == 200, "the refused connection went first; the oldest silent one stayed")
            #expect(outcome.4.status == 200 && outcome.5, "then the oldest still silent was closed")
            #expect(outcome.6 == 200, "the slowloris, younger, kept its slot and finished its request")
            #expect(outcome.7 <= 3, "never more than max_connections_per_client open")
            #expect(server.refusedPerClient == 0 && server.evicted == 2)
            let from = transport == .tcp ? "127.0.0.1" : "uid \(geteuid())"
            #expect(log().contains { $0.contains("closed a refused connection from \(from) to make room for one from \(from)") }, "\(log())")
            #expect(log().contains { $0.contains("closed a connection that had not shown the token from \(from) to make room") }, "\(log())")
        }
    }

    /// Connections that have shown the token keep their slots: a silent newcomer is refused (503)
    /// and each of them is served again afterwards.
    @Test func connectionsThatShowedTheTokenKeepTheirSlots() async throws {
        var limits = APILimits()
        limits.maxConnectionsPerClient = 3
        try await withServer(.tcp, token: try BearerToken(token), limits: limits) { address, server, _ in
            let outcome = try await blocking {
                let health = "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n"
                let kept = try (0..<3).map { _ in try BlockingClient(address, timeout: 5, source: "127.0.0.2") }
                let first = kept.map { client in client.send(health); return client.response()?.status }
                let newcomer = try ask(address, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", source: "127.0.0.2")
                let again = kept.map { client in client.send(health); return client.response()?.status }
                let elsewhere = try ask(address, hostHealth, source: "127.0.0.3")
                return (first, newcomer, again, elsewhere)
            }
            #expect(outcome.0 == [200, 200, 200] && outcome.2 == [200, 200, 200])
            #expect(outcome.1.status == 503 && outcome.1.body.contains("every one has shown the token") && outcome.1.closed)
            #expect(outcome.3.status == 200, "another client has slots of its own")
            #expect(server.refusedPerClient == 1 && server.evicted == 0)
        }
    }

    /// When the server's slots are full, the client holding the most gives one up.
    @Test func aFullServerMakesRoomFromTheBiggestHolder() async throws {
        var limits = APILimits()
        limits.maxConnections = 5
        limits.maxConnectionsPerClient = 4
        try await withServer(.tcp, token: try BearerToken(token), limits: limits) { address, server, _ in
            let outcome = try await blocking {
                var held: [BlockingClient] = []
                for (n, source) in ["127.0.0.3", "127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.2"].enumerated() {
                    held.append(try BlockingClient(address, timeout: 5, source: source))
                    for _ in 0..<2000 where server.connections.open < n + 1 { usleep(5_000) }
                }
                let host = try ask(address, hostHealth, source: "127.0.0.4")
                return (host, held[1].closedByServer(), server.connections.open, held.count)
            }
            #expect(outcome.0.status == 200)
            #expect(outcome.1, "127.0.0.2's oldest went, not 127.0.0.3's older one")
            #expect(outcome.2 <= 5)
        }
    }

    /// The issue's case, on loopback: busy clients without a token, a program sending wrong
    /// tokens and more idle connections than a client may hold, all from 127.0.0.1 (the host's
    /// own address), while the host asks: every one of the host's requests is served.
    @Test func noLocalProgramLocksTheHostOut() async throws {
        var limits = APILimits()
        limits.maxConnectionsPerClient = 16
        limits.maxConnections = 32
        try await withServer(.tcp, token: try BearerToken(token), limits: limits) { address, server, _ in
            let stop = Mutex(false)
            let host = try await blocking {
                let idle = try (0..<40).map { _ in try BlockingClient(address, timeout: 5) }
                for i in 0..<6 {
                    Thread {
                        var n = 0
                        while !stop.withLock({ $0 }) {
                            let auth = i < 2 ? "Authorization: Bearer wrong\(n)\r\n" : ""
                            _ = try? ask(address, "GET /signature.png HTTP/1.1\r\nHost: localhost\r\n\(auth)\r\n")
                            n += 1
                        }
                    }.start()
                }
                var statuses: [Int?] = []
                for i in 0..<60 {
                    let request = i % 10 == 0 ? post(close: true) : hostHealth
                    statuses.append(try ask(address, request).status)
                    usleep(10_000)
                }
                stop.withLock { $0 = true }
                _ = idle
                return statuses
            }
            #expect(host.allSatisfy { $0 == 200 || $0 == 201 || $0 == 409 }, "\(host)")
            #expect(server.refusedPerClient == 0 && server.connections.refused == 0 && server.evicted >= 24)
            #expect((server.refusals[401] ?? 0) > 0 && (server.refusals[429] ?? 0) > 0, "the storms were refused: \(server.refusals)")
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
