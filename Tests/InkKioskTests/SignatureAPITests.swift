// SPDX-License-Identifier: Apache-2.0
import InkConfig
import Foundation
import Glibc
import Synchronization
import Testing
import InkStorage
import InkLoop
@testable import InkKiosk
@testable import InkAPI
import InkTestSupport
import InkCore

/// The kiosk's side of the desk in a few lines: a thread asleep in poll() on `wakeFD` that takes
/// the messages and finishes captures as the signature screen will (cancel and timeout at once,
/// accept when the test says the signer pressed Accept).
private final class StandInKiosk: @unchecked Sendable {
    let desk: SignatureDesk
    let outbox: String
    private let lock = NSLock()
    private var messages: [DeskMessage] = []
    private var acceptRequested: String?
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)

    init(desk: SignatureDesk, outbox: String = StandInKiosk.outbox) {
        self.desk = desk
        self.outbox = outbox
        let thread = Thread { [self] in loop() }
        thread.name = "stand-in kiosk"
        thread.start()
    }

    var received: [DeskMessage] { lock.withLock { messages } }

    /// The signer presses Accept (the kiosk thread calls `finish`).
    func accept(_ id: String) { lock.withLock { acceptRequested = id } }

    func stop() {
        lock.withLock { stopping = true }
        stopped.wait()
    }

    static let outbox = NSTemporaryDirectory() + "inkkiosk-api-outbox"

    static let strokes = try! replay("pressure").pipeline.document.strokes

    /// The capture's files, written as the kiosk writes them (once: later calls find them).
    static func files(_ id: String, in outbox: String = outbox) -> CaptureFiles {
        if SignatureCapture.stored(outbox: outbox).captures[id] == nil {
            let capture = SignatureCapture(name: id, strokes: strokes, screen: screenSize, dpi: 96, device: "Test Pen",
                                           started: Date(timeIntervalSinceNow: -3), ended: Date(), exporter: CairoCaptureExporter())
            _ = try? capture.write(to: outbox)
        }
        guard let stored = SignatureCapture.stored(outbox: outbox).captures[id] else {
            return CaptureFiles(directory: "", png: "", svg: "", inkml: "", json: "", samples: -1)
        }
        return OutboxArchive.files(stored)
    }

    private func loop() {
        var limits: [String: Double] = [:]
        while !lock.withLock({ stopping }) {
            // Short timeout only so that `accept` and `stop` are noticed; messages wake it at once.
            var waiting = pollfd(fd: desk.wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&waiting, 1, 20)
            for message in desk.takeMessages() {
                lock.withLock { messages.append(message) }
                switch message {
                case .start(let request): limits[request.id] = request.timeout
                case .cancel(let id): desk.finish(id: id, state: .cancelled, reason: CaptureReason.cancelledByHost, files: nil)
                case .timeout(let id):
                    desk.finish(id: id, state: .timedOut, reason: CaptureReason.noSignature(within: limits[id] ?? 0), files: nil)
                }
            }
            if let id = lock.withLock({ () -> String? in defer { acceptRequested = nil }; return acceptRequested }) {
                desk.finish(id: id, state: .accepted, reason: nil, files: Self.files(id, in: outbox))
            }
        }
        stopped.signal()
    }
}

/// How curl reaches the server: a TCP port or a unix socket.
private struct Endpoint: Sendable {
    var base: String
    var curlOptions: [String] = []

    init(_ address: APIAddress) {
        switch address {
        case .tcp(let host, let port): base = "http://\(host):\(port)"
        case .unix(let path): base = "http://kiosk"; curlOptions = ["--unix-socket", path]
        }
    }
}

private struct Reply {
    var code: Int
    var body: String

    func status() throws -> CaptureStatus { try JSONDecoder().decode(CaptureStatus.self, from: Data(body.utf8)) }
    func error() throws -> ErrorReply { try JSONDecoder().decode(ErrorReply.self, from: Data(body.utf8)) }
    func object() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "\(body)")
    }
}

private struct ErrorReply: Decodable {
    var error: String
    var current: String?
    var capture: CaptureStatus?
}

/// The real curl, on a thread of its own so that a blocking child never holds one of the few
/// threads the server's tasks run on.
private func curl(_ method: String, _ path: String, _ body: String? = nil, at endpoint: Endpoint,
                  headers: [String] = []) async throws -> Reply {
    var arguments = endpoint.curlOptions + ["-s", "-S", "--max-time", "60", "-w", "\n%{http_code}", "-X", method]
    for header in headers { arguments += ["-H", header] }
    if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
    arguments.append(endpoint.base + path)
    let result = try await withCheckedThrowingContinuation { (c: CheckedContinuation<(status: Int32, stdout: String, stderr: String), any Error>) in
        let args = arguments
        Thread { c.resume(with: Result { try run("/usr/bin/curl", args) }) }.start()
    }
    try #require(result.status == 0, "curl \(arguments.joined(separator: " ")): \(result.stderr)")
    let cut = try #require(result.stdout.lastIndex(of: "\n"))
    return Reply(code: Int(result.stdout[result.stdout.index(after: cut)...]) ?? -1, body: String(result.stdout[..<cut]))
}

/// True when GET /health answers 200; a refused connection is no failure here (a retry loop asks).
private func healthAnswers(at endpoint: Endpoint) async -> Bool {
    let arguments = endpoint.curlOptions + ["-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", endpoint.base + "/health"]
    let result = await withCheckedContinuation { (c: CheckedContinuation<String?, Never>) in
        Thread { c.resume(returning: (try? run("/usr/bin/curl", arguments))?.stdout) }.start()
    }
    return result == "200"
}

private func onAThread(_ work: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
        Thread { c.resume(with: Result { try work() }) }.start()
    }
}

/// Waits until `done` holds (a request has reached the desk, …), checking every 5 ms for at
/// most `seconds`; false if it never did.
private func eventually(within seconds: Double = 10, _ done: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !done() {
        guard Date() < deadline else { return false }
        try await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// A fresh outbox for one test.
private func temporaryOutbox() throws -> String {
    try Fixtures.outputDirectory("api-outbox-\(UUID().uuidString.prefix(8))")
}

/// A desk that keeps its record in `outbox` (as the kiosk's does), the server in front of it and
/// the stand-in kiosk behind it, for the length of `body`.
private func withAPI(_ address: APIAddress = .tcp(host: "127.0.0.1", port: 0), defaultTimeout: Double? = 90,
                     outbox: String? = nil, _ body: (Endpoint, StandInKiosk) async throws -> Void) async throws {
    let outbox = try outbox ?? temporaryOutbox()
    _ = try SignatureCapture.sweep(outbox: outbox)
    let archive = OutboxArchive(outbox: outbox, retention: Retention(keep: 1000, maxAgeDays: 30))
    let desk = try SignatureDesk(defaultTimeout: defaultTimeout, archive: archive)
    let server = SignatureAPIServer(desk: desk, address: address)
    try await server.start()
    let kiosk = StandInKiosk(desk: desk, outbox: outbox)
    let listening = try #require(await server.listeningAddress())
    do {
        try await body(Endpoint(listening), kiosk)
    } catch {
        kiosk.stop(); await server.stop()
        throw error
    }
    kiosk.stop()
    await server.stop()
}

@Suite(.serialized) struct SignatureAPI {
    @Test func aSignatureIsRequestedAcceptedAndCollected() async throws {
        try await withAPI { api, kiosk in
            let idle = try await curl("GET", "/health", at: api)
            #expect(idle.code == 200)
            #expect(try idle.object()["ok"] as? Bool == true && idle.object()["waiting"] is NSNull, "\(idle.body)")
            #expect(try idle.object()["image"] is NSNull, "not booted from the disk image: said, not guessed: \(idle.body)")

            let started = try await curl("POST", "/signatures", #"{"prompt": "Total 42.00 EUR: please sign", "timeout": 60}"#, at: api)
            #expect(started.code == 201, "\(started.body)")
            let capture = try started.status()
            #expect(capture.state == .waiting && capture.prompt == "Total 42.00 EUR: please sign" && capture.timeout == 60)
            #expect(capture.id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } && !capture.id.isEmpty, "a file name: \(capture.id)")
            #expect(capture.finished == nil && capture.files == nil)

            let second = try await curl("POST", "/signatures", "{}", at: api)
            #expect(second.code == 409)
            #expect(try second.error().current == capture.id && second.error().error.contains(capture.id), "\(second.body)")

            let busy = try await curl("GET", "/health", at: api)
            #expect(try busy.object()["waiting"] as? String == capture.id)

            // The host long-polls; the signer accepts meanwhile; the poll answers with the files.
            async let polled = curl("GET", "/signatures/\(capture.id)?wait=30", at: api)
            // Accepted while the poll waits, not before it arrives (it would then answer at once).
            #expect(try await eventually { kiosk.desk.longPolls == 1 }, "the long poll reached the desk")
            kiosk.accept(capture.id)
            let done = try await polled
            #expect(done.code == 200)
            let accepted = try done.status()
            let files = StandInKiosk.files(capture.id, in: kiosk.outbox)
            #expect(accepted.state == .accepted && accepted.files == files && files.directory == "\(kiosk.outbox)/\(capture.id)", "\(done.body)")
            #expect(accepted.finished != nil && accepted.reason == nil && accepted.created == capture.created)

            #expect(try await curl("GET", "/signatures/\(capture.id)", at: api).status() == accepted)
            #expect(try await curl("GET", "/signatures/latest", at: api).status() == accepted)
            #expect(try await curl("GET", "/health", at: api).object()["waiting"] is NSNull)
            #expect(kiosk.received == [.start(CaptureRequest(id: capture.id, prompt: "Total 42.00 EUR: please sign", timeout: 60))])

            // The files come through the API too (the host need not read the kiosk's 0600 files).
            let png = try await curl("GET", "/signatures/\(capture.id)/png", at: api)
            #expect(png.code == 200 && !png.body.isEmpty)
            for (ext, path) in [("svg", files.svg), ("inkml", files.inkml), ("json", files.json)] {
                let file = try await curl("GET", "/signatures/\(capture.id)/\(ext)", at: api)
                #expect(try file.code == 200 && file.body == (String(contentsOfFile: path, encoding: .utf8)), "\(ext): \(file.body)")
            }
            let pdf = try await curl("GET", "/signatures/\(capture.id)/pdf", at: api)
            #expect(pdf.code == 404 && pdf.body.contains("not asked on a document"), "a plain request has no PDF: \(pdf.body)")
            let other = try await curl("GET", "/signatures/\(capture.id)/tiff", at: api)
            #expect(other.code == 404 && other.body.contains("png, svg, inkml, json"), "\(other.body)")

        }
    }

    /// The host acknowledges what it took: the files leave the outbox, the outcome stays.
    @Test func deleteOfAnAcceptedCaptureRemovesItsFilesAndKeepsTheOutcome() async throws {
        let outbox = try temporaryOutbox()
        var acknowledged: CaptureStatus?
        try await withAPI(outbox: outbox) { api, kiosk in
            let capture = try await curl("POST", "/signatures", at: api).status()
            kiosk.accept(capture.id)
            let accepted = try await curl("GET", "/signatures/\(capture.id)?wait=30", at: api).status()
            #expect(accepted.state == .accepted && accepted.acknowledged == nil)
            #expect(FileManager.default.fileExists(atPath: "\(outbox)/\(capture.id)/\(capture.id).png"))

            let ack = try await curl("DELETE", "/signatures/\(capture.id)", at: api)
            #expect(ack.code == 204 && ack.body.isEmpty, "\(ack.body)")
            #expect(!FileManager.default.fileExists(atPath: "\(outbox)/\(capture.id)"), "the biometric data is gone")
            let after = try await curl("GET", "/signatures/\(capture.id)", at: api)
            let status = try after.status()
            #expect(after.code == 200 && status.state == .accepted && status.files == nil && status.acknowledged != nil, "\(after.body)")
            #expect(try after.object()["acknowledged"] is String && after.object()["files"] is NSNull)
            let gone = try await curl("GET", "/signatures/\(capture.id)/png", at: api)
            #expect(gone.code == 410 && gone.body.contains("acknowledged"), "\(gone.body)")
            #expect(try await curl("DELETE", "/signatures/\(capture.id)", at: api).code == 204, "again: the same answer")
            acknowledged = status

            // A capture that ended otherwise has nothing to acknowledge.
            let other = try await curl("POST", "/signatures", at: api).status()
            _ = try await curl("DELETE", "/signatures/\(other.id)", at: api)
            let late = try await curl("DELETE", "/signatures/\(other.id)", at: api)
            #expect(late.code == 409 && late.body.contains("already cancelled"), "\(late.body)")
        }
        // After a restart the outcome is the same, and the files stay gone.
        try await withAPI(outbox: outbox) { api, _ in
            let id = try #require(acknowledged?.id)
            #expect(try await curl("GET", "/signatures/\(id)", at: api).status() == acknowledged)
        }
    }

    /// A new desk and server on the same outbox (the kiosk restarted) answer what the old one did;
    /// a request that never ended answers `interrupted`, not 404.
    @Test func aRestartKeepsTheOutcomes() async throws {
        let outbox = try temporaryOutbox()
        var before: [CaptureStatus] = []
        var pending = ""
        try await withAPI(outbox: outbox) { api, kiosk in
            let signed = try await curl("POST", "/signatures", #"{"prompt": "Parcel 7", "timeout": 60}"#, at: api).status()
            kiosk.accept(signed.id)
            before.append(try await curl("GET", "/signatures/\(signed.id)?wait=30", at: api).status())
            let walkedAway = try await curl("POST", "/signatures", at: api).status()
            before.append(try await curl("DELETE", "/signatures/\(walkedAway.id)", at: api).status())
            // The kiosk dies while this one waits (and its Accept, say, was half written).
            pending = try await curl("POST", "/signatures", #"{"prompt": "Sign"}"#, at: api).status().id
            try FileManager.default.createDirectory(atPath: "\(outbox)/.\(pending).partial", withIntermediateDirectories: false)
        }
        #expect(before.map(\.state) == [.accepted, .cancelled])
        try await withAPI(outbox: outbox) { api, _ in
            for status in before {
                let reply = try await curl("GET", "/signatures/\(status.id)", at: api)
                #expect(try reply.code == 200 && reply.status() == status, "\(reply.body)")
            }
            let lost = try await curl("GET", "/signatures/\(pending)", at: api)
            let status = try lost.status()
            #expect(lost.code == 200 && status.state == .interrupted && status.prompt == "Sign" && status.files == nil, "\(lost.body)")
            #expect(status.reason?.contains("ask again") == true)
            #expect(!FileManager.default.fileExists(atPath: "\(outbox)/.\(pending).partial"))
            let file = try await curl("GET", "/signatures/\(before[0].id)/json", at: api)
            #expect(file.code == 200 && file.body.contains(before[0].id))
            #expect(try await curl("GET", "/signatures/latest", at: api).status().id == pending)
        }
    }

    @Test func theHostCancelsAndTheKioskConfirms() async throws {
        try await withAPI(defaultTimeout: 90) { api, kiosk in
            let started = try await curl("POST", "/signatures", at: api)   // no body at all: every default
            #expect(started.code == 201, "\(started.body)")
            let capture = try started.status()
            #expect(capture.timeout == 90 && capture.prompt == nil)

            let cancelled = try await curl("DELETE", "/signatures/\(capture.id)", at: api)
            #expect(cancelled.code == 200, "\(cancelled.body)")
            let status = try cancelled.status()
            #expect(status.state == .cancelled && status.reason == "cancelled by host" && status.files == nil)
            #expect(kiosk.received == [.start(CaptureRequest(id: capture.id, prompt: nil, timeout: 90)), .cancel(id: capture.id)])

            let again = try await curl("DELETE", "/signatures/\(capture.id)", at: api)
            #expect(again.code == 409 && again.body.contains("already cancelled"), "\(again.body)")

            // The screen is free for the next request.
            #expect(try await curl("POST", "/signatures", #"{"prompt": "Next"}"#, at: api).code == 201)
        }
    }

    @Test func anUnsignedCaptureTimesOut() async throws {
        try await withAPI { api, kiosk in
            let capture = try await curl("POST", "/signatures", #"{"timeout": 1}"#, at: api).status()
            #expect(capture.timeout == 1)
            let polled = try await curl("GET", "/signatures/\(capture.id)?wait=20", at: api)
            #expect(polled.code == 200)
            let status = try polled.status()
            #expect(status.state == .timedOut && status.reason == "no signature within 1 s", "\(polled.body)")
            #expect(kiosk.received.contains(.timeout(id: capture.id)))
            // A long poll on a final capture answers at once.
            #expect(try await curl("GET", "/signatures/\(capture.id)?wait=120", at: api).status() == status)
        }
    }

    @Test func badRequestsSayWhatIsWrong() async throws {
        try await withAPI { api, kiosk in
            let refused: [(String, String, String?, Int, String)] = [
                ("POST", "/signatures", "{not json", 400, "not valid JSON"),
                ("POST", "/signatures", #"{"prompt": "x", "timout": 5}"#, 400, "unknown field 'timout'"),
                ("POST", "/signatures", #"{"timeout": 0}"#, 400, "timeout must be a number between 1 and 3600 seconds"),
                ("POST", "/signatures", #"{"timeout": 5000}"#, 400, "timeout must be a number between 1 and 3600 seconds"),
                ("POST", "/signatures", #"{"timeout": "60"}"#, 400, "timeout must be a number"),
                ("POST", "/signatures", #"{"prompt": 42}"#, 400, "prompt must be a string"),
                ("POST", "/signatures", #"{"prompt": "\#(String(repeating: "x", count: 201))"}"#, 400, "prompt must be at most 200 characters"),
                ("POST", "/signatures", "[1, 2]", 400, "must be a JSON object"),
                ("POST", "/signatures", #"{"timeout": null}"#, 400, "timeout: null is not allowed"),
                ("POST", "/signatures", #"{"prompt": null, "timeout": 60}"#, 400, "prompt: null is not allowed"),
                ("POST", "/signatures", #"{"timeout": 5, "timeout": 3600}"#, 400, "timeout: given more than once"),
                ("POST", "/signatures", #"{"prompt": "a", "\u0070rompt": "b"}"#, 400, "prompt: given more than once"),
                ("POST", "/signatures", #"{"prompt": {"x": 1, "x": 2}}"#, 400, "prompt.x: given more than once"),
                ("POST", "/signatures", #"{"prompt": {"x": 1}}"#, 400, "prompt must be a string"),
                ("POST", "/signatures", #"{"prompt": ["Sign"]}"#, 400, "prompt must be a string"),
                ("POST", "/signatures", #"{"timeout": true}"#, 400, "timeout must be a number"),
                ("POST", "/signatures", #"{"prompt": "x", "extra": null}"#, 400, "unknown field 'extra'"),
                ("GET", "/signatures/20990101T000000Z-abcdef", nil, 404, "20990101T000000Z-abcdef"),
                ("GET", "/signatures/nope?wait=2", nil, 404, "no signature with id 'nope'"),
                ("GET", "/signatures/nope?wait=soon", nil, 400, "wait must be a number of seconds"),
                ("GET", "/signatures/nope?wiat=2", nil, 400, "unknown query parameter 'wiat'"),
                ("DELETE", "/signatures/nope", nil, 404, "no signature with id 'nope'"),
                ("GET", "/signatures/latest", nil, 404, "no signature has been requested yet"),
                ("PUT", "/signatures", "{}", 405, "takes POST"),
                ("POST", "/health", "{}", 405, "takes GET"),
                ("GET", "/signature", nil, 404, "no such endpoint"),
            ]
            for (method, path, body, code, message) in refused {
                let reply = try await curl(method, path, body, at: api)
                #expect(reply.code == code, "\(method) \(path) \(body ?? ""): \(reply.body)")
                #expect(try reply.error().error.contains(message), "\(method) \(path) \(body ?? ""): \(reply.body)")
            }
            #expect(kiosk.received.isEmpty, "nothing refused reached the kiosk")
        }
    }

    @Test func overAUnixSocket() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inkkiosk-api-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/api.sock"
        try await withAPI(.unix(path: path)) { api, kiosk in
            #expect(api.curlOptions == ["--unix-socket", path])
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            #expect(mode == 0o660, "socket mode \(String(mode, radix: 8))")
            #expect(try await curl("GET", "/health", at: api).code == 200)
            let capture = try await curl("POST", "/signatures", #"{"prompt": "Sign for parcel 7"}"#, at: api).status()
            kiosk.accept(capture.id)
            let done = try await curl("GET", "/signatures/\(capture.id)?wait=30", at: api).status()
            #expect(done.state == .accepted && done.files?.png == "\(kiosk.outbox)/\(capture.id)/\(capture.id).png")
        }
        #expect(!FileManager.default.fileExists(atPath: path), "stop removes the socket")

        // Something at the path that is not a socket is not ours to replace.
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))
        let blocked = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: .unix(path: path))
        await #expect { try await blocked.start() } throws: { "\($0)".contains("is not a socket") }
    }

    @Test func aPortInUseIsAnErrorNotAHang() async throws {
        try await withAPI { api, _ in
            let port = try #require(UInt16(api.base.split(separator: ":").last.map(String.init) ?? ""))
            let second = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: .tcp(host: "127.0.0.1", port: port))
            await #expect { try await second.start() } throws: { "\($0)".contains("cannot listen on 127.0.0.1:\(port)") }
        }
    }

    /// Booted from the disk image: /health says which slot and which version, as the kernel
    /// command line did (an engineer or a fleet check asks the kiosk, not the boot loader).
    @Test func healthNamesTheBootedSlotAndVersion() async throws {
        let booted = try #require(try BootedImage(KernelCommandLine("console=tty1 ik.version=1.0.0+v2 rauc.slot=B")))
        let server = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: .tcp(host: "127.0.0.1", port: 0), image: booted)
        try await server.start()
        let api = Endpoint(try #require(await server.listeningAddress()))
        let health = try await curl("GET", "/health", at: api)
        let image = try #require(try health.object()["image"] as? [String: Any], "\(health.body)")
        #expect(health.code == 200 && image["slot"] as? String == "B" && image["version"] as? String == "1.0.0+v2", "\(health.body)")
        await server.stop()
    }

    /// With no kiosk to confirm, DELETE answers 202 and the capture stays waiting until the kiosk finishes it.
    @Test func aCancelTheKioskHasNotConfirmedYetIsAccepted() async throws {
        let desk = try SignatureDesk(defaultTimeout: nil)
        let server = SignatureAPIServer(desk: desk, address: .tcp(host: "127.0.0.1", port: 0))
        try await server.start()
        let api = Endpoint(try #require(await server.listeningAddress()))
        let capture = try await curl("POST", "/signatures", at: api).status()
        let asked = try await curl("DELETE", "/signatures/\(capture.id)", at: api)
        let stillWaiting = try asked.status()
        #expect(asked.code == 202 && stillWaiting == capture, "\(asked.body)")
        #expect(desk.takeMessages() == [.start(CaptureRequest(id: capture.id, prompt: nil, timeout: nil)), .cancel(id: capture.id)])
        desk.finish(id: capture.id, state: .cancelled, reason: nil, files: nil)
        let after = try await curl("GET", "/signatures/\(capture.id)", at: api).status()
        #expect(after.state == .cancelled && after.reason == "cancelled by host")
        await server.stop()
    }

    @Test func stoppingAnswersALongPollInsteadOfDroppingIt() async throws {
        let desk = try SignatureDesk(defaultTimeout: nil)
        let server = SignatureAPIServer(desk: desk, address: .tcp(host: "127.0.0.1", port: 0))
        try await server.start()
        let api = Endpoint(try #require(await server.listeningAddress()))
        let capture = try desk.start(prompt: nil, timeout: nil)
        async let polled = curl("GET", "/signatures/\(capture.id)?wait=60", at: api)
        #expect(try await eventually { desk.longPolls == 1 }, "the long poll reached the desk before the server stops")
        await server.stop()
        let reply = try await polled
        let status = try reply.status()
        #expect(reply.code == 200 && status.state == .waiting, "\(reply.body)")
    }

    /// The kiosk's main thread is not a task: it starts and stops the server blocking.
    @Test func aPlainThreadStartsAndStopsIt() async throws {
        let server = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: .tcp(host: "127.0.0.1", port: 0))
        try await onAThread { try server.startBlocking() }
        let api = Endpoint(try #require(await server.listeningAddress()))
        #expect(try await curl("GET", "/health", at: api).code == 200)
        try await onAThread { server.stopBlocking() }
        #expect(await server.listeningAddress() == nil)
        await #expect { try await server.start() } throws: { "\($0)".contains("already started") }
    }

    @Test func listenAddresses() throws {
        #expect(try APIAddress.parse("127.0.0.1:7300") == .tcp(host: "127.0.0.1", port: 7300))
        #expect(try APIAddress.parse("localhost:7300") == .tcp(host: "127.0.0.1", port: 7300))
        #expect(try APIAddress.parse("[::1]:7300") == .tcp(host: "::1", port: 7300))
        #expect(try APIAddress.parse("0.0.0.0:80") == .tcp(host: "0.0.0.0", port: 80))
        #expect(try APIAddress.parse("unix:/run/inkkiosk/api.sock") == .unix(path: "/run/inkkiosk/api.sock"))
        #expect(APIAddress.tcp(host: "::1", port: 7300).description == "[::1]:7300")
        let wrong: [(String, String)] = [
            ("7300", "must be IP:PORT"), ("127.0.0.1", "must be IP:PORT"), ("127.0.0.1:0", "port must be a number"),
            ("127.0.0.1:70000", "port must be a number"), ("kiosk.local:7300", "'kiosk.local' is not an IPv4 address"),
            ("[::g]:7300", "not an IPv6 address"), ("unix:api.sock", "must be absolute"),
            ("unix:/\(String(repeating: "d", count: 120))", "under 108 bytes"),
        ]
        for (text, message) in wrong {
            #expect { try APIAddress.parse(text) } throws: { "\($0)".contains(message) }
        }
    }
}

/// The desk without HTTP: who decides, what the kiosk is told, what is kept.
@Suite struct SignatureAPIDesk {
    private func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }

    @Test func theKioskIsWokenAndTheFirstFinishWins() throws {
        let desk = try SignatureDesk(defaultTimeout: nil)
        #expect(!readable(desk.wakeFD))
        let capture = try desk.start(prompt: "Sign", timeout: nil)
        #expect(capture.timeout == nil)
        #expect(readable(desk.wakeFD))
        #expect(desk.takeMessages() == [.start(CaptureRequest(id: capture.id, prompt: "Sign", timeout: nil))])
        #expect(!readable(desk.wakeFD), "taking the messages quiets the eventfd")

        // Accept and a cancel cross: the cancel message is moot once the kiosk has accepted.
        _ = try desk.cancel(id: capture.id)
        desk.finish(id: capture.id, state: .accepted, reason: nil, files: StandInKiosk.files(capture.id))
        desk.finish(id: capture.id, state: .cancelled, reason: nil, files: nil)
        #expect(desk.status(id: capture.id)?.state == .accepted)
        #expect(desk.takeMessages().isEmpty)
        #expect(throws: DeskError.finished(try #require(desk.status(id: capture.id)))) { try desk.cancel(id: capture.id) }
    }

    @Test func reasonsDefaultToWhoEndedIt() throws {
        let desk = try SignatureDesk(defaultTimeout: 30)
        let onScreen = try desk.start(prompt: nil, timeout: nil)
        desk.finish(id: onScreen.id, state: .cancelled, reason: nil, files: nil)
        #expect(desk.status(id: onScreen.id)?.reason == "cancelled on screen")
        let byHost = try desk.start(prompt: nil, timeout: nil)
        _ = try desk.cancel(id: byHost.id)
        desk.finish(id: byHost.id, state: .cancelled, reason: nil, files: nil)
        #expect(desk.status(id: byHost.id)?.reason == "cancelled by host")
        let late = try desk.start(prompt: nil, timeout: 2.5)
        desk.finish(id: late.id, state: .timedOut, reason: nil, files: nil)
        #expect(desk.status(id: late.id)?.reason == "no signature within 2.5 s")
    }

    @Test func aWaitEndsAtItsTimeStillWaiting() async throws {
        let desk = try SignatureDesk(defaultTimeout: nil)
        let capture = try desk.start(prompt: nil, timeout: nil)
        #expect(await desk.wait(id: capture.id, seconds: 0.2)?.state == .waiting)
        #expect(await desk.wait(id: "unknown", seconds: 5) == nil)
        // A cancelled request stops waiting at once.
        let waiting = Task { await desk.wait(id: capture.id, seconds: 100) }
        waiting.cancel()
        #expect(await waiting.value?.state == .waiting)
    }

    @Test func theHistoryIsBounded() throws {
        let desk = try SignatureDesk(defaultTimeout: nil)
        var ids: [String] = []
        for _ in 0..<(CaptureLimits.history + 5) {
            let capture = try desk.start(prompt: nil, timeout: nil)
            desk.finish(id: capture.id, state: .cancelled, reason: nil, files: nil)
            ids.append(capture.id)
        }
        #expect(Set(ids).count == ids.count, "ids are unique")
        #expect(desk.status(id: ids[0]) == nil && desk.status(id: ids[5]) != nil)
        #expect(desk.latest()?.id == ids.last)
    }

    @Test func aBadDefaultTimeoutIsRefused() {
        #expect(throws: DeskError.self) { try SignatureDesk(defaultTimeout: 0) }
    }
}

/// Who may reach the API: the address rules, the bearer token, over real sockets.
@Suite(.serialized) struct SignatureAPIAccess {
    @Test func onlyLoopbackAndUnixSocketsAreLocal() throws {
        for text in ["127.0.0.1:1", "127.1.2.3:1", "localhost:1", "[::1]:1", "[::ffff:127.0.0.1]:1", "unix:/run/a.sock"] {
            #expect(try APIAddress.parse(text).isLocal, "\(text)")
            #expect(try APIAddress.parse(text).refusal(allowRemote: false, hasToken: false) == nil, "\(text)")
        }
        for text in ["0.0.0.0:1", "[::]:1", "192.168.1.5:1", "10.0.0.1:1", "[fe80::1]:1", "[::ffff:10.0.0.1]:1", "128.0.0.1:1"] {
            let address = try APIAddress.parse(text)
            #expect(!address.isLocal, "\(text)")
            #expect(address.refusal(allowRemote: false, hasToken: true)?.contains("reachable from other machines") == true, "\(text)")
            #expect(address.refusal(allowRemote: true, hasToken: false)?.contains("allow_remote needs a bearer token") == true, "\(text)")
            #expect(address.refusal(allowRemote: true, hasToken: true) == nil, "\(text)")
        }
    }

    @Test func theServerRefusesAnOpenAddressWithoutAToken() async throws {
        let server = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: .tcp(host: "0.0.0.0", port: 0))
        await #expect { try await server.start() } throws: { "\($0)".contains("needs a bearer token") }
        #expect(await server.listeningAddress() == nil)
    }

    @Test func theConfigRefusesAnOpenAddressWithFileLineAndKey() throws {
        func problems(_ text: String) -> [String] {
            do { _ = try KioskConfig.parse(text, file: "k.toml"); return [] } catch let e as ConfigError {
                return e.problems.map(\.description)
            } catch { return ["\(error)"] }
        }
        #expect(problems("[api]\nenabled = true\nlisten = \"0.0.0.0:7300\"\n")
                == ["k.toml:3: api.listen: 0.0.0.0:7300 is reachable from other machines; listen on loopback (127.0.0.1:PORT, [::1]:PORT) or a unix socket, or set allow_remote = true (hosts then need the bearer token)"])
        #expect(problems("[api]\nlisten = \"[::]:7300\"\nallow_remote = true\ntoken = \"none\"\n")
                == ["k.toml:2: api.listen: [::]:7300 is reachable from other machines: allow_remote needs a bearer token (remove token = \"none\")"])
        #expect(problems("[api]\n\nlisten = \"kiosk.local:7300\"\n").first?.hasPrefix("k.toml:3: api.listen: listen address 'kiosk.local:7300'") == true)
        #expect(problems("[api]\nlisten = \"unix:api.sock\"\n").first?.contains("k.toml:2: api.listen: listen address 'unix:api.sock': the socket path must be absolute") == true)
        #expect(problems("[api]\ntoken_file = \"token\"\n") == ["k.toml:2: api.token_file: must be an absolute path (got \"token\")"])
        let open = try KioskConfig.parse("[api]\nenabled = true\nlisten = \"0.0.0.0:7300\"\nallow_remote = true\ntoken_file = \"/etc/inkkiosk/token\"\n", file: "k.toml")
        #expect(open.screen.api.address == "0.0.0.0:7300" && open.screen.api.allowRemote && open.screen.api.tokenFile == "/etc/inkkiosk/token")
        let plain = try KioskConfig.parse("[api]\nenabled = true\n", file: "k.toml")
        #expect(plain.screen.api.address == "127.0.0.1:7300" && !plain.screen.api.allowRemote && plain.screen.api.tokenFile == nil)
    }

    @Test func aTokenFileIsReadOnceAndMustBePrivate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inkkiosk-token-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func write(_ name: String, _ text: String, mode: Int) -> String {
            let path = "\(dir)/\(name)"
            FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
            return path
        }
        let secret = "s3cret-Token_1-kQ9vX2mZ7pL4w"
        let good = try BearerToken.load(path: write("good", secret + "\n", mode: 0o640))
        #expect(good.admits("Bearer \(secret)") && good.admits("bearer \(secret)"))
        for wrong in [nil, "", "Bearer", "Bearer ", "Bearer \(secret.dropLast())", "Bearer \(secret)2", "Bearer S\(secret.dropFirst())",
                      "Basic \(secret)", secret] {
            #expect(!good.admits(wrong), "\(wrong ?? "no header")")
        }
        let worldReadable = write("open", "s3cret\n", mode: 0o644)
        #expect { try BearerToken.load(path: worldReadable) } throws: { "\($0)".contains("\(worldReadable) is readable by every user (mode 644)") }
        let empty = write("empty", " \n", mode: 0o600)
        #expect { try BearerToken.load(path: empty) } throws: { "\($0)".contains("\(empty) is empty") }
        let spaced = write("spaced", "two words\n", mode: 0o600)
        #expect { try BearerToken.load(path: spaced) } throws: { "\($0)".contains("one word") }
        #expect { try BearerToken.load(path: "\(dir)/missing") } throws: { "\($0)".contains("\(dir)/missing: No such file") }
    }

    @Test func requestsMustShowTheToken() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inkkiosk-api-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let token = try BearerToken("k1osk-t0ken-7Hq2Lm9xVb4Rt")
        for address in [APIAddress.tcp(host: "127.0.0.1", port: 0), .unix(path: "\(dir)/api.sock")] {
            let desk = try SignatureDesk(defaultTimeout: nil)
            let server = SignatureAPIServer(desk: desk, address: address, token: token)
            try await server.start()
            let api = Endpoint(try #require(await server.listeningAddress()))
            for headers in [[], ["Authorization: Bearer k1osk-t0ken-7Hq2Lm9xVb4R"], ["Authorization: Bearer k1osk-t0ken-7Hq2Lm9xVb4RtX"],
                            ["Authorization: Basic k1osk-t0ken-7Hq2Lm9xVb4Rt"]] {
                let refused = try await curl("POST", "/signatures", "{}", at: api, headers: headers)
                #expect(refused.code == 401, "\(address) \(headers): \(refused.body)")
                #expect(try refused.error().error.contains("missing or wrong bearer token"), "\(refused.body)")
            }
            #expect(desk.takeMessages().isEmpty, "nothing refused reached the kiosk")
            let health = try await curl("GET", "/health", at: api, headers: ["Authorization: Bearer k1osk-t0ken-7Hq2Lm9xVb4Rt"])
            #expect(health.code == 200, "\(address): \(health.body)")
            let started = try await curl("POST", "/signatures", "{}", at: api, headers: ["Authorization: Bearer k1osk-t0ken-7Hq2Lm9xVb4Rt"])
            #expect(started.code == 201, "\(address): \(started.body)")
            await server.stop()
        }
    }
}

/// Duplicate keys, which the decoders never report.
@Suite struct JSONKeyChecks {
    private func check(_ text: String) -> JSONKeyCheck.Finding? { JSONKeyCheck.check(Data(text.utf8)) }

    @Test func distinctKeysPass() {
        for text in [#"{}"#, #"{"a": 1, "b": [1, 2, {"a": 3}], "c": {"a": null}}"#, #"[{"k": 1}, {"k": 1}]"#,
                     #"{"a": {"k": 1}, "b": {"k": 1}}"#, #"{"a": "\"a\": 1, \"a\": 2", "b": "}{]["}"#, #"  "x"  "#, "42", "true",
                     #"{"a\\": 1, "a": 2}"#, #"{"\u00e9": 1, "e\u0301x": 2}"#] {
            #expect(check(text) == nil, "\(text)")
        }
    }

    @Test func aRepeatedKeyIsFoundWithItsPath() {
        let cases: [(String, String)] = [
            (#"{"a": 1, "a": 2}"#, "a"),
            (#"{"timeout": 5, "prompt": "x", "timeout": 3600}"#, "timeout"),
            (#"{"a": 1, "\u0061": 2}"#, "a"),
            (#"{"a\"b": 1, "a\u0022b": 2}"#, "a\"b"),
            (#"{"tab\t": 1, "tab\u0009": 2}"#, "tab\t"),
            (#"{"\ud83d\ude00": 1, "😀": 2}"#, "😀"),
            (#"{"outer": {"in": 1, "in": 2}}"#, "outer.in"),
            (#"{"list": [1, {"k": 1}, {"k": 2, "k": 3}]}"#, "list[2].k"),
            (#"[[{"x": {"y": 1, "y": 1}}]]"#, "[0][0].x.y"),
            (#"{"s": "{\"k\": 1}", "s": 2}"#, "s"),
        ]
        for (text, path) in cases {
            #expect(check(text) == .duplicate(path: path), "\(text)")
        }
    }

    @Test func whatIsNotJSONIsLeftToTheDecoder() {
        for text in ["", "{", #"{"a": }"#, #"{"a" 1}"#, #"{"a": 1,}"#, #"{"a": "unterminated}"#, #"{"a\q": 1}"#, #"{"\u12": 1}"#] {
            #expect(check(text) == nil, "\(text)")
        }
    }

    @Test func deepNestingIsRefusedNotFollowed() {
        #expect(check(String(repeating: "[", count: 10_000)) == .tooDeep)
        #expect(check(String(repeating: "[", count: JSONKeyCheck.deepest) + String(repeating: "]", count: JSONKeyCheck.deepest)) == nil)
    }
}

/// What the server does when its listener fails.
@Suite struct ListenerRecoveries {
    private let emfile = ListenerFailure(stage: .accept, errno: EMFILE, text: "Too many open files (EMFILE)")

    @Test func pausesDoubleTo1sAndStartSmallAfterASteadyRun() {
        var recovery = ListenerRecovery()
        var pauses: [Duration] = []
        for second in 0..<9 {
            guard case .listenAgain(let pause, _) = recovery.failed(emfile, at: Double(second)) else { Issue.record("gave up on EMFILE"); return }
            pauses.append(pause)
        }
        #expect(pauses == [10, 20, 40, 80, 160, 320, 640, 1000, 1000].map { Duration.milliseconds($0) })
        guard case .listenAgain(let notSteady, _) = recovery.failed(emfile, at: 17) else { Issue.record("gave up"); return }
        #expect(notSteady == .seconds(1), "9 s without a failure is not steady yet")
        guard case .listenAgain(let pause, _) = recovery.failed(emfile, at: 27) else { Issue.record("gave up"); return }
        #expect(pause == .milliseconds(10), "10 s without a failure is")
    }

    @Test func eachDistinctErrorIsLoggedOnceThenWithItsCount() {
        var recovery = ListenerRecovery()
        var logged: [String] = []
        for _ in 0..<1000 {
            if case .listenAgain(_, let line?) = recovery.failed(emfile, at: 0) { logged.append(line) }
        }
        let aborted = ListenerFailure(stage: .accept, errno: ECONNABORTED, text: "Software caused connection abort (ECONNABORTED)")
        if case .listenAgain(_, let line?) = recovery.failed(aborted, at: 0) { logged.append(line) }
        #expect(logged.count == 5, "\(logged)")
        #expect(logged.first == "accept failed: Too many open files (EMFILE); accepting again in 10 ms")
        #expect(logged[1].hasPrefix("accept failed: Too many open files (EMFILE) (10 times so far)"))
        #expect(logged[3].hasPrefix("accept failed: Too many open files (EMFILE) (1000 times so far); accepting again in 1 s"))
        #expect(logged[4].hasPrefix("accept failed: Software caused connection abort (ECONNABORTED); accepting again in"))
        #expect(recovery.counts.values.sorted() == [1, 1000])
    }

    @Test func onlyAListenThatCannotSucceedGivesUp() {
        var recovery = ListenerRecovery()
        for code in [EMFILE, ENFILE, ENOBUFS, ENOMEM] {
            let step = recovery.failed(ListenerFailure(stage: .listen, errno: code, text: "shortage"), at: 0)
            guard case .listenAgain = step else { Issue.record("gave up on \(code)"); continue }
        }
        for code in [EINVAL, EPROTO, EPERM, ECONNABORTED] {
            guard case .listenAgain = recovery.failed(ListenerFailure(stage: .accept, errno: code, text: "accept"), at: 0) else {
                Issue.record("an accept error (\(code)) stopped the server"); continue
            }
        }
        if case .giveUp = recovery.failed(ListenerFailure(stage: .closed, errno: nil, text: "the listening socket closed"), at: 0) {
            Issue.record("a listening socket that closed stopped the server")
        }
        #expect(recovery.failed(ListenerFailure(stage: .listen, errno: EADDRINUSE, text: "Address already in use (EADDRINUSE)"), at: 0)
                == .giveUp("cannot listen again: Address already in use (EADDRINUSE)"))
        #expect(recovery.failed(ListenerFailure(stage: .listen, errno: nil, text: "/x exists and is not a socket"), at: 0)
                == .giveUp("cannot listen again: /x exists and is not a socket"))
    }
}

/// The real server, its listening socket failing under it: after `shutdown` its accept fails
/// for good (EINVAL) and the event loop closes it; the server must listen again.
@Suite(.serialized) struct SignatureAPIListenerFailures {
    /// The listening socket of this process bound to `address`.
    private func listeningSocket(_ address: APIAddress) throws -> Int32 {
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
        for fd in fds {
            var listening: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 1 else { continue }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            guard named == 0 else { continue }
            switch (address, Int32(storage.ss_family)) {
            case (.tcp(_, let port), AF_INET):
                let inet = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
                if UInt16(bigEndian: inet.sin_port) == port { return fd }
            case (.unix(let path), AF_UNIX):
                var unix = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_un.self) }
                let name = withUnsafeBytes(of: &unix.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == path { return fd }
            default: continue
            }
        }
        throw NoListeningSocket(address: "\(address)")
    }

    @Test func anAcceptFailureDoesNotStopTheAPI() async throws {
        let gaveUp = Mutex<String?>(nil)
        let server = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: .tcp(host: "127.0.0.1", port: 0)) { why in
            gaveUp.withLock { $0 = why }
        }
        try await server.start()
        let address = try #require(await server.listeningAddress())
        let api = Endpoint(address)
        #expect(try await curl("GET", "/health", at: api).code == 200)
        for round in 1...3 {
            let fd = try listeningSocket(address)
            #expect(shutdown(fd, Int32(SHUT_RDWR)) == 0)
            // Until it listens again a connection is refused: retry for up to 5 s.
            var answered = false
            for _ in 0..<50 where !answered {
                try await Task.sleep(for: .milliseconds(100))
                answered = await healthAnswers(at: api)
            }
            #expect(answered, "round \(round): the API answers again on the same port")
            #expect(try listeningSocket(address) >= 0)
        }
        #expect(gaveUp.withLock { $0 } == nil && server.failure == nil)
        await server.stop()
    }

    @Test func aListenerThatCannotComeBackStopsForGoodAndSaysSo() async throws {
        let gaveUp = DispatchSemaphore(value: 0)
        // Two seconds between the failure and the next listen, for this test to take the port.
        let server = SignatureAPIServer(desk: try SignatureDesk(defaultTimeout: nil), address: .tcp(host: "127.0.0.1", port: 0),
                                        firstRetryPause: .seconds(2)) { _ in gaveUp.signal() }
        try await server.start()
        let address = try #require(await server.listeningAddress())
        guard case .tcp(_, let port) = address else { Issue.record("\(address)"); return }
        #expect(shutdown(try listeningSocket(address), Int32(SHUT_RDWR)) == 0)
        // Another program takes the port: listening again fails with EADDRINUSE, which no wait mends.
        let squatter = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(squatter) }
        var inet = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian, sin_addr: in_addr(s_addr: UInt32(0x7F00_0001).bigEndian), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var bound = false
        for _ in 0..<100 where !bound {
            bound = withUnsafePointer(to: &inet) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(squatter, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
            if !bound { try await Task.sleep(for: .milliseconds(10)) }
        }
        try #require(bound && listen(squatter, 1) == 0, "the test took the port while the server waited")
        let signalled = Mutex(false)
        try await onAThread { signalled.withLock { $0 = gaveUp.wait(timeout: .now() + 10) == .success } }
        #expect(signalled.withLock { $0 }, "onGiveUp was called")
        let failure = try #require(server.failure)
        #expect(failure.contains("signature API on 127.0.0.1:\(port) stopped for good: cannot listen again:") && failure.contains("in use"), "\(failure)")
        await server.stop()
    }
}

extension SignatureAPI {
    /// With `[signature] encrypt_to`, the host gets the files as they are stored: encrypted,
    /// marked, and named for `inkkiosk decrypt`.
    @Test func encryptedFilesAreServedAsTheyAreStored() async throws {
        let outbox = try temporaryOutbox()
        let pair = try opensslKeyPair(in: outbox + "/..", "api-\(UUID().uuidString.prefix(8))")
        let key = try SealingKey.load(path: pair.pub)
        var capture = SignatureCapture(name: "sig-enc", strokes: StandInKiosk.strokes, screen: screenSize, dpi: 96, device: "Test Pen",
                                       started: Date(timeIntervalSinceNow: -3), ended: Date(), exporter: CairoCaptureExporter())
        capture.encryptTo = key
        let paths = try capture.write(to: outbox)
        try await withAPI(outbox: outbox) { api, _ in
            let status = try await curl("GET", "/signatures/sig-enc", at: api)
            let files = try #require(try status.status().files, "\(status.body)")
            #expect(files.encryptedTo == key.fingerprint && files.png == paths[0] && files.png.hasSuffix(".png.hpke"), "\(status.body)")
            #expect(status.body.contains("\"encryptedTo\" : \"\(key.fingerprint)\""), "\(status.body)")

            let dir = outbox + "/../api-download-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (kind, path) in [("png", paths[0]), ("svg", paths[1]), ("inkml", paths[2]), ("json", paths[3])] {
                let arguments = api.curlOptions + ["-s", "-S", "-D", "\(dir)/\(kind).headers", "-o", "\(dir)/\(kind).body",
                                                   "\(api.base)/signatures/sig-enc/\(kind)"]
                try await onAThread {
                    let fetched = try run("/usr/bin/curl", arguments)
                    #expect(fetched.status == 0, "\(fetched.stderr)")
                }
                let headers = try String(contentsOfFile: "\(dir)/\(kind).headers", encoding: .utf8).lowercased()
                #expect(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(kind).body")) == Data(contentsOf: URL(fileURLWithPath: path)))
                if kind == "json" {
                    #expect(headers.contains("content-type: application/json") && !headers.contains("inkkiosk-encrypted-to"), "\(headers)")
                } else {
                    #expect(headers.contains("content-type: application/octet-stream"), "\(headers)")
                    #expect(headers.contains("inkkiosk-encrypted-to: \(key.fingerprint)"), "\(headers)")
                    #expect(headers.contains("content-disposition: attachment; filename=\"sig-enc.\(kind).hpke\""), "\(headers)")
                }
            }
            // What the host downloaded opens with its private key.
            try FileManager.default.moveItem(atPath: "\(dir)/inkml.body", toPath: "\(dir)/sig-enc.inkml.hpke")
            let opened = try SealedFile.decrypt(file: "\(dir)/sig-enc.inkml.hpke", with: try OpeningKey.load(path: pair.key))
            #expect(try String(contentsOfFile: opened, encoding: .utf8).contains("<ink"))
        }
    }
}

/// `[api]`'s keys for who may ask, read and checked with file and line.
@Suite struct APIAccessConfig {
    private func problems(_ text: String) -> [String] {
        do { _ = try KioskConfig.parse(text, file: "k.toml"); return [] } catch let e as ConfigError {
            return e.problems.map(\.description)
        } catch { return ["\(error)"] }
    }

    @Test func theKeysAreRead() throws {
        let c = try KioskConfig.parse("""
            [signature]
            outbox = "/srv/kiosk/outbox"
            [api]
            allowed_hosts = ["Kiosk-7.shop.lan", "192.168.1.20:7300"]
            allowed_origins = ["https://POS.example:8443/"]
            socket_users = ["root", 1000]
            socket_groups = [0]
            token_group = 0
            max_connections_per_client = 8
            auth_failures = 3
            auth_failure_window = 30
            auth_clients_tracked = 512
            """, file: "k.toml")
        #expect(c.screen.api.access.allowedHosts == ["kiosk-7.shop.lan", "192.168.1.20"])
        #expect(c.screen.api.access.allowedOrigins == ["https://pos.example:8443"])
        #expect(c.screen.api.access.socketUsers == [0, 1000] && c.screen.api.access.socketGroups == [0] && c.screen.api.tokenGroup == 0)
        #expect(c.screen.api.limits.maxConnectionsPerClient == 8 && c.screen.api.limits.authFailures == 3)
        #expect(c.screen.api.limits.authFailureWindow == 30 && c.screen.api.limits.authClientsTracked == 512)
        #expect(c.screen.apiTokenPath == "/srv/kiosk/api.token", "next to the outbox, in the state directory")
        #expect(c.screen.api.needsToken(.tcp(host: "127.0.0.1", port: 1)) && !c.screen.api.needsToken(.unix(path: "/run/a.sock")))
        let none = try KioskConfig.parse("[api]\nenabled = true\ntoken = \"none\"\n", file: "k.toml")
        #expect(none.screen.api.tokenNone && !none.screen.api.needsToken(.tcp(host: "127.0.0.1", port: 1)))
        #expect(KioskConfig().screen.apiTokenPath == "/var/lib/inkkiosk/api.token")
    }

    @Test func mistakesAreRefusedWithTheirLines() {
        #expect(problems("[api]\ntoken = \"letmein\"\n") == [#"k.toml:2: api.token: may only be "none" (no token: every program on this machine may use the API); a token goes in token_file, never in this file"#])
        #expect(problems("[api]\ntoken_file = \"/x/t\"\ntoken = \"none\"\n") == [#"k.toml:3: api.token: token = "none" and token_file contradict each other: keep one"#])
        #expect(problems("[api]\nallowed_hosts = [\"*.example\"]\n") == [#"k.toml:2: api.allowed_hosts: "*.example" is not a host name or IP address (no wildcards)"#])
        #expect(problems("[api]\n\nallowed_origins = [\"pos.example\"]\n").first?.hasPrefix(#"k.toml:3: api.allowed_origins: "pos.example" is not an origin"#) == true)
        #expect(problems("[api]\nsocket_users = [\"no-such-user-here\"]\n") == [#"k.toml:2: api.socket_users: "no-such-user-here" is not a user of this system (a name or a number)"#])
        #expect(problems("[api]\nsocket_groups = [\"no-such-group-here\"]\n") == [#"k.toml:2: api.socket_groups: "no-such-group-here" is not a group of this system (a name or a number)"#])
        #expect(problems("[api]\nmax_connections = 10\nmax_connections_per_client = 20\n")
                == ["k.toml:3: api.max_connections_per_client: max_connections_per_client (20) must not be more than max_connections (10)"])
    }

    @Test func aWeakTokenFileStopsTheStartWithFileAndLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inkkiosk-weak-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        FileManager.default.createFile(atPath: "\(dir)/api.token", contents: Data("x\n".utf8), attributes: [.posixPermissions: 0o600])
        let found = problems("[api]\nenabled = true\n\ntoken_file = \"\(dir)/api.token\"\n")
        #expect(found.count == 1 && found[0].hasPrefix("k.toml:4: api.token_file: [api] token_file \(dir)/api.token: the bearer token is too weak: 1 characters carry at most 6 bits"), "\(found)")
        // The default place (next to the outbox) is read too when the API is on.
        let outbox = problems("[signature]\noutbox = \"\(dir)/outbox\"\n[api]\nenabled = true\n")
        #expect(outbox.count == 1 && outbox[0].hasPrefix("k.toml:3: api: [api] token_file \(dir)/api.token: the bearer token is too weak"), "\(outbox)")
    }
}

/// The kiosk holds no listening socket at the address the test expected.
struct NoListeningSocket: Error, CustomStringConvertible {
    let address: String
    var description: String { "no listening socket for \(address)" }
}
