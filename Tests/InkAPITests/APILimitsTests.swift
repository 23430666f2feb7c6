// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
@testable import InkAPI
import InkAPIClient

enum Transport: String, CaseIterable, CustomTestStringConvertible {
    case tcp, unix
    var testDescription: String { rawValue }
}

/// The real server, on loopback TCP or a unix socket, with `limits`, for the length of `body`.
private func withServer(_ transport: Transport, _ limits: APILimits = APILimits(), desk: SignatureDesk? = nil,
                        _ body: (APIAddress, SignatureAPIServer) async throws -> Void) async throws {
    let address: APIAddress = switch transport {
    case .tcp: .tcp(host: "127.0.0.1", port: 0)
    case .unix: .unix(path: NSTemporaryDirectory() + "inkkiosk-limits-\(UUID().uuidString.prefix(8)).sock")
    }
    let server = SignatureAPIServer(desk: try desk ?? SignatureDesk(defaultTimeout: nil), address: address, limits: limits)
    try await server.start()
    let listening = try #require(await server.listeningAddress())
    do {
        try await body(listening, server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Runs blocking socket work on a thread of its own, so that it never holds one of the few
/// threads the server's tasks need.
private func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        Thread { c.resume(with: Result { try work() }) }.start()
    }
}

private func get(_ path: String, keepAlive: Bool = true) -> String {
    "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(keepAlive ? "" : "Connection: close\r\n")\r\n"
}

/// Each limit of `[api]`, driven over both transports with requests no well-behaved client
/// sends: every one is answered with its status (or the connection closed), and the server
/// answers a good request afterwards.
@Suite(.serialized) struct APILimitsOverTheWire {
    /// With every slot held by a connection that was served (no token is asked here: a served
    /// request is the proof), one more is answered 503 and closed at once.
    @Test(arguments: Transport.allCases)
    func oneConnectionTooManyIsRefusedAtOnce(_ transport: Transport) async throws {
        var limits = APILimits()
        limits.maxConnections = 4
        try await withServer(transport, limits) { address, server in
            let status = try await blocking {
                let served = try (0..<4).map { _ in try BlockingClient(address) }
                let answered = served.map { client in client.send(get("/health")); return client.response()?.status }
                let fifth = try BlockingClient(address)
                let refused = fifth.response()
                let closed = fifth.closedByServer()
                served[0].close()
                for _ in 0..<2000 where server.connections.open > 3 { usleep(5_000) }
                let next = try BlockingClient(address)
                next.send(get("/health"))
                return (answered, refused?.status, refused?.headers["retry-after"], closed, next.response()?.status, server.connections.refused)
            }
            #expect(status.0 == [200, 200, 200, 200])
            #expect(status.1 == 503, "the fifth connection is answered 503")
            #expect(status.2 == "1")
            #expect(status.3, "and closed")
            #expect(status.4 == 200, "a place freed is a place for the next client")
            #expect(status.5 == 1)
        }
    }

    /// Connections that never sent a request make room: the oldest is closed for the newcomer,
    /// and the open ones never exceed the limit.
    @Test(arguments: Transport.allCases)
    func silentConnectionsMakeRoomForANewcomer(_ transport: Transport) async throws {
        var limits = APILimits()
        limits.maxConnections = 4
        try await withServer(transport, limits) { address, server in
            let outcome = try await blocking {
                var silent: [BlockingClient] = []
                for n in 1...4 {
                    silent.append(try BlockingClient(address))
                    for _ in 0..<2000 where server.connections.open < n { usleep(5_000) }
                }
                let newcomer = try BlockingClient(address)
                newcomer.send(get("/health"))
                let answer = newcomer.response()?.status
                return (answer, silent[0].closedByServer(), server.connections.open, server.evicted, silent.count)
            }
            #expect(outcome.0 == 200)
            #expect(outcome.1, "the oldest silent one was closed")
            #expect(outcome.2 <= 4 && outcome.3 == 1 && server.connections.refused == 0)
        }
    }

    @Test(arguments: Transport.allCases)
    func aMegabyteHeaderLineIs431(_ transport: Transport) async throws {
        try await withServer(transport) { address, _ in
            let reply = try await blocking {
                let client = try BlockingClient(address)
                let sender = Thread { client.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Long: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n") }
                sender.start()
                return (client.response(), client.closedByServer())
            }
            #expect(reply.0?.status == 431)
            #expect(reply.0?.body.contains("max_header_bytes") == true, "\(reply.0?.body ?? "")")
            #expect(reply.1, "the connection is closed after the answer")
        }
    }

    @Test(arguments: Transport.allCases)
    func aMegabytePathIs414(_ transport: Transport) async throws {
        try await withServer(transport) { address, _ in
            let reply = try await blocking {
                let client = try BlockingClient(address)
                let sender = Thread { client.send("GET /" + String(repeating: "p", count: 1 << 20) + " HTTP/1.1\r\nHost: localhost\r\n\r\n") }
                sender.start()
                return client.response()
            }
            #expect(reply?.status == 414)
            #expect(reply?.body.contains("max_request_line") == true)
        }
    }

    @Test(arguments: Transport.allCases)
    func aBodyTooLargeIsRefusedBeforeItIsSent(_ transport: Transport) async throws {
        try await withServer(transport) { address, _ in
            let replies = try await blocking {
                // Only the head: the answer must not wait for ten megabytes that never come.
                let announced = try BlockingClient(address)
                announced.send("POST /signatures HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n")
                let first = announced.response()
                // Chunked carries no length: it is counted as it comes.
                let chunked = try BlockingClient(address)
                let chunk = String(repeating: " ", count: 10_000)
                chunked.send("POST /signatures HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                             + "2710\r\n\(chunk)\r\n2710\r\n\(chunk)\r\n0\r\n\r\n")
                return (first, chunked.response())
            }
            #expect(replies.0?.status == 413)
            #expect(replies.0?.body.contains("max_body_bytes") == true)
            #expect(replies.1?.status == 413)
        }
    }

    @Test(arguments: Transport.allCases)
    func whatTheDecoderCannotReadIs400(_ transport: Transport) async throws {
        try await withServer(transport) { address, _ in
            let statuses: [Int?] = try await blocking {
                let requests: [[UInt8]] = [
                    Array("POST /signatures HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\n".utf8),
                    Array("this is not HTTP\r\n\r\n".utf8),
                    Array("GET /signatures/".utf8) + [0xC3, 0x28, 0xFF] + Array(" HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8),
                ]
                return try requests.map { request in
                    let client = try BlockingClient(address)
                    client.send(request)
                    let status = client.response()?.status
                    return client.closedByServer() ? status : -1
                }
            }
            #expect(statuses == [400, 400, 400], "negative length, not HTTP, invalid UTF-8 in the path: 400, then closed (-1: left open)")
        }
    }

    @Test(arguments: Transport.allCases)
    func aRequestThatStallsIs408AndAnIdleConnectionCloses(_ transport: Transport) async throws {
        var limits = APILimits()
        limits.requestTimeout = 0.5
        limits.idleTimeout = 0.5
        try await withServer(transport, limits) { address, server in
            let outcome = try await blocking {
                let stalled = try BlockingClient(address)
                stalled.send("GET /hea")
                let timedOut = stalled.response()
                let silent = try BlockingClient(address)   // opened and forgotten: closed without a word
                let silentClosed = silent.closedByServer()
                let kept = try BlockingClient(address)
                kept.send(get("/health"))
                let first = kept.response()
                let idleClosed = kept.closedByServer()
                return (timedOut?.status, silentClosed, first?.status, idleClosed)
            }
            #expect(outcome.0 == 408)
            #expect(outcome.1, "a connection that never sends is closed after request_timeout")
            #expect(outcome.2 == 200)
            #expect(outcome.3, "a kept-alive connection is closed after idle_timeout")
            for _ in 0..<2000 where server.connections.open > 0 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(server.connections.open == 0)
        }
    }

    @Test(arguments: Transport.allCases)
    func keptAliveAndPipelinedRequestsAreAnsweredInOrder(_ transport: Transport) async throws {
        try await withServer(transport) { address, _ in
            let statuses = try await blocking {
                let client = try BlockingClient(address)
                client.send(get("/health") + get("/nowhere") + get("/signatures/latest"))
                return [client.response()?.status, client.response()?.status, client.response()?.status]
            }
            #expect(statuses == [200, 404, 404])
        }
    }

    @Test(arguments: Transport.allCases)
    func longPollsAreCappedInNumberAndLength(_ transport: Transport) async throws {
        var limits = APILimits()
        limits.maxWaits = 2
        limits.longestWait = 1
        let desk = try SignatureDesk(defaultTimeout: nil)
        let id = try desk.start(prompt: nil, timeout: nil).id
        try await withServer(transport, limits, desk: desk) { address, server in
            let replies = try await blocking {
                let holders = try (0..<2).map { _ in try BlockingClient(address) }
                for holder in holders { holder.send(get("/signatures/\(id)?wait=100")) }
                // The third finds both places taken.
                for _ in 0..<2000 where desk.longPolls < 2 { usleep(5_000) }
                let third = try BlockingClient(address)
                third.send(get("/signatures/\(id)?wait=100"))
                let refused = third.response()
                // wait=100 was cut to longest_wait: the holders are answered, still waiting.
                let held = holders.map { $0.response() }
                return (refused, held)
            }
            #expect(replies.0?.status == 503)
            #expect(replies.0?.body.contains("max_waits") == true)
            #expect(replies.1.map { $0?.status } == [200, 200])
            #expect(replies.1.allSatisfy { $0?.body.contains(#""state" : "waiting""#) == true }, "\(replies.1.map { $0?.body ?? "" })")
            _ = server
        }
    }
}

/// The request head as it arrives, in chunks of any size.
@Suite struct RequestHeadScanning {
    private func verdict(_ text: String, chunk: Int, line: Int = 64, head: Int = 256) -> RequestHeadScanner.Verdict {
        var limits = APILimits()
        limits.maxRequestLine = line
        limits.maxHeaderBytes = head
        var scanner = RequestHeadScanner(limits: limits)
        let bytes = Array(text.utf8)
        var last = RequestHeadScanner.Verdict.reading
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            last = scanner.feed(bytes[start..<min(bytes.count, start + chunk)])
            if last != .reading { return last }
        }
        return last
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func theEndIsFoundAcrossChunks(_ chunk: Int) {
        let request = "GET / HTTP/1.1\r\nHost: k\r\n\r\n"
        let found = verdict(request + "BODY", chunk: chunk)
        if case .complete(let at) = found {
            let whole = request.utf8.count
            #expect((whole - 1) % chunk + 1 == at, "the head ends inside the chunk that holds its last byte")
        } else {
            Issue.record("\(found)")
        }
        #expect(verdict("GET / HTTP/1.0\n\n", chunk: chunk) != .reading, "bare line feeds end a head too")
        #expect(verdict("\r\n\r\nGET / HTTP/1.1\r\n\r\n", chunk: chunk) != .reading, "blank lines before a request are skipped")
    }

    @Test func limitsAreJudgedAsBytesArrive() {
        #expect(verdict("GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\n\r\n", chunk: 10) == .lineTooLong)
        #expect(verdict("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 300) + "\r\n\r\n", chunk: 10) == .headTooLarge)
        #expect(verdict("GET /\u{7F} HTTP/1.1\r\n\r\n", chunk: 4) == .badLineByte(0x7F))
        #expect(verdict("GET /é HTTP/1.1\r\n\r\n", chunk: 4) == .badLineByte(0xC3))
        // Header values may hold bytes the line may not (obs-text): the decoder judges those.
        if case .complete = verdict("GET / HTTP/1.1\r\nX: é\r\n\r\n", chunk: 4) {} else { Issue.record("a UTF-8 header value was refused") }
    }
}
