// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import NIOHTTP1
import InkCore
import Synchronization

/// The HTTP side of the desk: JSON in and out, one status code per outcome.
struct SignatureRoutes: Sendable {
    let desk: SignatureDesk
    /// Long polls held at once, across connections.
    var waits: WaitCount
    /// Seconds a `?wait=` may hold its connection; longer ones are cut to this.
    var longestWait: Double
    /// How long DELETE waits for the kiosk to confirm the cancel before answering 202.
    var cancelGrace = 2.0
    /// The last `/health` and `/signatures/latest` answers: a health check asked many times a
    /// second finds the same state, and encoding it again would cost more than serving it.
    private let health = LastAnswer<Health>()
    private let latest = LastAnswer<CaptureStatus>()
    /// The host's PDFs (`/documents`); nil: this server keeps none.
    let documents: DocumentStore?
    /// What the kiosk requires of a document's signing, whatever the host asks.
    let policy: DocumentPolicy
    /// The disk image's slot and version, when the machine booted from one (`/health`).
    let image: BootedImage?

    /// Who may ask was judged before (`RequestAccess`: host, origin, token, content type).
    init(desk: SignatureDesk, waits: WaitCount, longestWait: Double, documents: DocumentStore? = nil,
         policy: DocumentPolicy = DocumentPolicy(), image: BootedImage? = nil) {
        self.desk = desk
        self.image = image
        self.waits = waits
        self.longestWait = longestWait
        self.documents = documents
        self.policy = policy
    }

    /// What the routes make of a request: an answer now (on the event loop: most requests cost
    /// microseconds, and a hop to another thread would cost more), or work that waits (a long
    /// poll, a cancel waiting for the kiosk), run on a task.
    enum Answer {
        case now(APIResponse)
        case later(@Sendable () async -> APIResponse)
    }

    func answer(_ request: APIRequest) -> Answer {
        do {
            return try route(request)
        } catch {
            return .now(Self.response(for: error))
        }
    }

    /// The answer, waiting for it if need be (tests, and anything not on an event loop).
    func handle(_ request: APIRequest) async -> APIResponse {
        switch answer(request) {
        case .now(let response): response
        case .later(let work): await work()
        }
    }

    static func response(for error: APIProblem) -> APIResponse {
        var response = APIResponse.json(error.status, ErrorBody(error))
        if let allow = error.allow { response.headers.append(("Allow", allow.map(\.rawValue).joined(separator: ", "))) }
        if error.challenge { response.headers.append(("WWW-Authenticate", #"Bearer realm="inkkiosk""#)) }
        if error.status == .serviceUnavailable { response.headers.append(("Retry-After", "1")) }
        return response
    }

    /// Runs `work` later; its refusal becomes its answer.
    static func later(_ work: @escaping @Sendable () async throws(APIProblem) -> APIResponse) -> Answer {
        .later {
            do throws(APIProblem) { return try await work() } catch { return response(for: error) }
        }
    }

    private func route(_ request: APIRequest) throws(APIProblem) -> Answer {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch parts {
        case ["health"]:
            try only([.GET], request)
            return .now(health.answer(Health(waiting: desk.latest().flatMap { $0.state == .waiting ? $0.id : nil }, image: image)))
        case ["signatures"]:
            try only([.POST], request)
            return try start(request)
        case ["signatures", "latest"]:
            try only([.GET], request)
            guard let status = desk.latest() else { throw APIProblem(.notFound, "no signature has been requested yet") }
            return .now(latest.answer(status))
        case let path where path.count == 2 && path[0] == "signatures":
            try only([.GET, .DELETE], request)
            return request.method == .DELETE ? try cancel(path[1]) : try status(path[1], request)
        case let path where path.count == 3 && path[0] == "signatures":
            try only([.GET], request)
            return .now(try file(path[2], of: path[1]))
        case let path where path.first == "documents" && path.count <= 2:
            return try documentRoute(path, request)
        default:
            throw APIProblem(.notFound, "no such endpoint: \(request.method.rawValue) \(request.path) "
                             + "(there are /health, /signatures, /signatures/latest, /signatures/{id}, "
                             + "/signatures/{id}/{png,svg,inkml,json,pdf}, /documents and /documents/{id})")
        }
    }

    func only(_ methods: [HTTPMethod], _ request: APIRequest) throws(APIProblem) {
        guard methods.contains(request.method) else {
            var problem = APIProblem(.methodNotAllowed, "\(request.path) takes \(methods.map(\.rawValue).joined(separator: " or ")), "
                                     + "not \(request.method.rawValue)")
            problem.allow = methods
            throw problem
        }
    }

    /// The body's size was checked before it was read (`[api] max_body_bytes`). On a document,
    /// later: its file may have to be read again.
    private func start(_ request: APIRequest) throws(APIProblem) -> Answer {
        let body = try StartBody.decode(request.body)
        if let document = body.document { return try start(body, on: document) }
        do { return .now(.json(.created, try desk.start(prompt: body.prompt, timeout: body.timeout))) } catch { throw APIProblem(error) }
    }

    private func status(_ id: String, _ request: APIRequest) throws(APIProblem) -> Answer {
        for item in request.query where item.name != "wait" {
            throw APIProblem(.badRequest, "unknown query parameter '\(item.name)' (known: wait)")
        }
        let seconds = try waitSeconds(request.query("wait"))
        // Final (or unknown) already, or no wait asked for: nothing to wait for.
        guard let current = desk.status(id: id) else { throw APIProblem(DeskError.unknown(id: id)) }
        guard seconds > 0, !current.state.isFinal else { return .now(.json(.ok, current)) }
        let (desk, waits) = (self.desk, self.waits)
        return Self.later { () async throws(APIProblem) -> APIResponse in
            guard let waited = await waits.holding({ await desk.wait(id: id, seconds: seconds) }) else {
                throw APIProblem(.serviceUnavailable, "\(waits.limit) requests are already waiting with ?wait= ([api] max_waits): "
                                 + "ask again, or without wait")
            }
            guard let status = waited else { throw APIProblem(DeskError.unknown(id: id)) }
            return .json(.ok, status)
        }
    }

    /// One of an accepted capture's files, as written to the outbox: the host need not share
    /// the kiosk's user to read the 0600 files. Encrypted files as they are (`CaptureDownload`).
    private func file(_ kind: String, of id: String) throws(APIProblem) -> APIResponse {
        guard CaptureDownload.types[kind] != nil else {
            throw APIProblem(.notFound, "no such file '\(kind)' (there are png, svg, inkml, json, and pdf for a signed document)")
        }
        guard let status = desk.status(id: id) else { throw APIProblem(DeskError.unknown(id: id)) }
        if kind == "pdf" && status.document == nil {
            throw APIProblem(.notFound, "signature \(id) was not asked on a document, so it has no PDF (POST /signatures with \"document\")")
        }
        guard status.state == .accepted else {
            throw APIProblem(.notFound, "signature \(id) has no files: it is \(status.state.rawValue)")
        }
        guard let files = status.files else {
            let why = status.acknowledged.map { "the host acknowledged it at \($0)" } ?? "the outbox's retention removed them"
            throw APIProblem(.gone, "signature \(id)'s files were removed: \(why)")
        }
        if kind == "pdf" && files.pdf == nil {
            // `[signature] keep_signed_pdf = false`: never on the kiosk's disk, served from memory while it is held.
            guard let held = desk.heldPDF(id: id) else {
                throw APIProblem(.gone, "signature \(id)'s signed PDF is not kept on the kiosk ([signature] keep_signed_pdf = false): "
                                 + "it was held in memory only until the capture was acknowledged, the next signature was asked for, "
                                 + "or the kiosk stopped")
            }
            return APIResponse(status: .ok, headers: [("Content-Type", "application/pdf"), ("Cache-Control", "no-store")], body: Data(held))
        }
        let download = CaptureDownload(kind: kind, of: files)
        guard let download, let data = FileManager.default.contents(atPath: download.path) else {
            throw APIProblem(.gone, "\(download?.path ?? files.directory) is no longer in the outbox")
        }
        return APIResponse(status: .ok, headers: [("Content-Type", download.contentType), ("Cache-Control", "no-store")]
                           + download.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                           body: data)
    }

    private func waitSeconds(_ text: String?) throws(APIProblem) -> Double {
        guard let text else { return 0 }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            throw APIProblem(.badRequest, "wait must be a number of seconds from 0 to \(formatSeconds(longestWait)) (got '\(text)')")
        }
        return min(seconds, longestWait)
    }

    /// DELETE: a waiting capture is cancelled; an accepted one is acknowledged (its files removed).
    private func cancel(_ id: String) throws(APIProblem) -> Answer {
        if desk.status(id: id)?.state == .accepted {
            do { _ = try desk.acknowledge(id: id) } catch { throw APIProblem(error) }
            return .now(APIResponse(status: .noContent, headers: [("Cache-Control", "no-store")]))
        }
        let asked: CaptureStatus
        do { asked = try desk.cancel(id: id) } catch { throw APIProblem(error) }
        let (desk, grace) = (self.desk, cancelGrace)
        return .later {
            let now = await desk.wait(id: id, seconds: grace) ?? asked
            return .json(now.state.isFinal ? .ok : .accepted, now)
        }
    }
}

/// An answer other than success: status code, message, and what helps the host act on it.
struct APIProblem: Error {
    var status: HTTPResponseStatus
    var message: String
    /// With 409 busy: the capture that is waiting.
    var current: String?
    /// With 409 finished: the capture as it ended.
    var capture: CaptureStatus?
    /// With 405: the methods the path takes.
    var allow: [HTTPMethod]?
    /// With 401: ask for a bearer token (WWW-Authenticate).
    var challenge = false

    init(_ status: HTTPResponseStatus, _ message: String) {
        self.status = status; self.message = message
    }

    init(_ error: DeskError) {
        switch error {
        case .busy(let current): self.init(.conflict, error.description); self.current = current
        case .unknown: self.init(.notFound, error.description)
        case .finished(let status): self.init(.conflict, error.description); capture = status
        case .badRequest: self.init(.badRequest, error.description)
        case .unavailable: self.init(.serviceUnavailable, error.description)
        }
    }
}

private struct ErrorBody: Encodable {
    var error: String
    var current: String?
    var capture: CaptureStatus?

    init(_ problem: APIProblem) {
        error = problem.message; current = problem.current; capture = problem.capture
    }
}

/// A 200 with `value` as JSON, encoded again only when `value` changed.
private final class LastAnswer<Value: Encodable & Equatable & Sendable>: Sendable {
    private let last = Mutex<(value: Value, response: APIResponse)?>(nil)

    func answer(_ value: Value) -> APIResponse {
        if let cached = last.withLock({ $0 }), cached.value == value { return cached.response }
        let response = APIResponse.json(.ok, value)
        last.withLock { $0 = (value, response) }
        return response
    }
}

private struct Health: Encodable, Equatable, Sendable {
    var ok = true
    var waiting: String?
    /// null on a machine that did not boot from the disk image.
    var image: BootedImage?

    enum CodingKeys: String, CodingKey { case ok, waiting, image }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ok, forKey: .ok)
        try c.encode(waiting, forKey: .waiting)   // null when idle, not left out
        try c.encode(image, forKey: .image)       // null too: the question was asked, the answer is "none"
    }
}
