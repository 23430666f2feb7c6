// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
@testable import InkHTTPClient

/// The client against a real server: Python's http.server (which ignores Range, as some do),
/// on a port of its own; and against ports where nothing or no TLS listens.
@Suite(.serialized)
final class HTTPClientTests {
    let directory: String
    let server: Process
    let port: Int
    let payload: [UInt8]

    init() throws {
        directory = NSTemporaryDirectory() + "inkkiosk-http-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory + "/served", withIntermediateDirectories: true)
        var bytes = [UInt8](repeating: 0, count: 300_000)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
        payload = bytes
        FileManager.default.createFile(atPath: directory + "/served/bundle.raucb", contents: Data(bytes))
        FileManager.default.createFile(atPath: directory + "/served/doc.json", contents: Data(#"{"answer":42}"#.utf8))
        port = Self.freePort()
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-m", "http.server", "--bind", "127.0.0.1", "--directory", directory + "/served", String(port)]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        // Ready once it accepts a connection (bounded: it starts in well under a second).
        var tries = 0
        while !Self.accepts(port), tries < 400 { usleep(25_000); tries += 1 }
    }

    deinit {
        // SIGKILL: the test runner's children may inherit SIGTERM blocked, and Python then never ends.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    @Test func jsonIsFetchedAndDecoded() throws {
        struct Answer: Decodable { var answer: Int }
        #expect(try HTTPClient().json(.get, base + "/doc.json", as: Answer.self).answer == 42)
        #expect(throws: HTTPError.self) { try HTTPClient().json(.get, base + "/missing.json", as: Answer.self) }
        do { _ = try HTTPClient().json(.get, base + "/missing.json", as: Answer.self) } catch {
            #expect(error.description.hasPrefix("GET \(base)/missing.json: HTTP 404"))
        }
    }

    @Test func aDownloadArrivesWholeAndAPartialFileStartsOverWhenRangesAreIgnored() throws {
        let path = directory + "/bundle.part"
        let first = try HTTPClient().download(base + "/bundle.raucb", to: path, limits: DownloadLimits(maxBytes: 1 << 20))
        #expect(first == DownloadResult(bytes: 300_000, resumedFrom: 0))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == payload)
        var info = stat()
        stat(path, &info)
        #expect(info.st_mode & 0o777 == 0o600)
        // A partial file of other bytes: http.server answers the Range with 200 and everything.
        FileManager.default.createFile(atPath: path, contents: Data(repeating: 0xEE, count: 1000))
        let again = try HTTPClient().download(base + "/bundle.raucb", to: path, limits: DownloadLimits(maxBytes: 1 << 20, expectedBytes: 300_000))
        #expect(again.bytes == 300_000)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == payload)
    }

    @Test func aDownloadOverItsLimitStopsWithTheLimit() throws {
        let path = directory + "/big.part"
        do {
            _ = try HTTPClient().download(base + "/bundle.raucb", to: path, limits: DownloadLimits(maxBytes: 100_000))
            Issue.record("a 300000-byte download passed a 100000-byte limit")
        } catch {
            #expect(error.reason == .tooLarge(limit: 100_000))
            #expect(error.description == "GET \(base)/bundle.raucb: larger than the limit of 100000 bytes")
        }
    }

    @Test func noServerIsCurlsCodeAndMessageWithTheURL() throws {
        let closed = Self.freePort()
        do {
            _ = try HTTPClient().send(HTTPRequest(.get, "http://127.0.0.1:\(closed)/x"))
            Issue.record("a closed port answered")
        } catch {
            guard case .transfer(let code, let name, let message) = error.reason else { Issue.record("\(error)"); return }
            #expect(code == 7 && name == "Couldn't connect to server")
            #expect(message.contains("127.0.0.1 port \(closed)"))
            #expect(error.description.hasPrefix("GET http://127.0.0.1:\(closed)/x: curl error 7 (Couldn't connect to server)"))
            #expect(error.isTemporary)
        }
    }

    @Test func tlsIsRequiredWhereTheURLSaysHttps() throws {
        do {
            _ = try HTTPClient().send(HTTPRequest(.get, "https://127.0.0.1:\(port)/doc.json"))
            Issue.record("plain HTTP passed as TLS")
        } catch {
            guard case .transfer(let code, _, _) = error.reason else { Issue.record("\(error)"); return }
            #expect(code == 35)  // CURLE_SSL_CONNECT_ERROR
        }
    }

    @Test func aBodyOverTheMemoryLimitIsRefused() throws {
        var options = HTTPClient.Options()
        options.maxResponseBytes = 10_000
        #expect(throws: HTTPError(method: "GET", url: base + "/bundle.raucb", reason: .tooLarge(limit: 10_000))) {
            try HTTPClient(options).send(HTTPRequest(.get, base + "/bundle.raucb"))
        }
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
