// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Where a connection comes from, as the checks and the log see it.
struct Caller: Sendable {
    /// What the per-client limits count.
    var key: ClientKey
    /// False on the unix socket: there the URL's host is not used, and `Host` is not judged.
    var overTCP: Bool
    /// The address the client reached (TCP): a `Host` naming it is this server.
    var localIP: String?
    /// For the log: `127.0.0.1 port 51234`, `uid 1000 gid 1000 pid 4242`.
    var description: String
}

/// The checks every request's head passes before its body is read or a route sees it (docs/API.md,
/// "Who may ask"): a browser's `Sec-Fetch-*` headers (403, first of all), `Host` (421), `Origin`
/// (403), the bearer token (401; 429 for a wrong one from a client that sent too many), a JSON
/// body (415). The right token always passes, and a missing one is never counted: nothing a web
/// page or another local program sends can lock the host out. A refusal closes the connection;
/// each is logged with the client, at its 1st, 10th, 100th… time per kind and client (a storm
/// does not flood the journal, whatever values it varies).
final class RequestAccess: Sendable {
    let access: APIAccess
    let token: BearerToken?
    /// The configured listening host (`192.168.1.20` of `listen = "192.168.1.20:7300"`).
    let listeningHosts: [String]
    private let limiter: Mutex<AuthFailureLimiter>
    private let logged = Mutex<[String: Int]>([:])
    private let log: Logger
    /// Refusals since the start, by status code (tests and the probes read them).
    private let counts = Mutex<[Int: Int]>([:])

    init(access: APIAccess, token: BearerToken?, listening: APIAddress, limits: APILimits, log: Logger = Logger(label: "inkkiosk.api")) {
        self.access = access
        self.token = token
        if case .tcp(let host, _) = listening { listeningHosts = [host] } else { listeningHosts = [] }
        limiter = Mutex(AuthFailureLimiter(maxFailures: limits.authFailures, window: limits.authFailureWindow,
                                           capacity: limits.authClientsTracked))
        self.log = log
    }

    var refusals: [Int: Int] { counts.withLock { $0 } }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// 403 for a request a browser made (a `Sec-Fetch-*` header, and no `Origin` in
    /// `allowed_origins`): judged before anything else, its size too.
    func judgeBrowser(_ head: HTTPRequestHead, from caller: Caller) -> APIResponse? {
        guard let header = access.refusedBrowserHeader(head.headers.lazy.map(\.name), origin: head.headers.first(name: "Origin")) else {
            return nil
        }
        return refuse(.forbidden, "requests a browser makes (\(header)) are refused: a web page may not use the kiosk's API "
                      + "(a page that must goes in [api] allowed_origins)", caller, kind: "browser", shown: "a browser's \(header)")
    }

    /// The refusal for this head, or nil when the request may go on (`judgeBrowser` has passed it,
    /// and its length). `pdfUpload`: the request is `POST /documents`, whose body is a PDF, not JSON.
    func judge(_ head: HTTPRequestHead, hasBody: Bool, from caller: Caller, pdfUpload: Bool = false) -> APIResponse? {
        let headers = head.headers
        if caller.overTCP {
            let host = headers.first(name: "Host")
            switch access.host(host, http11: head.version.major == 1 && head.version.minor >= 1,
                               listening: listeningHosts + [caller.localIP].compactMap { $0 }) {
            case .allowed: break
            case .missing:
                return refuse(.badRequest, "an HTTP/1.1 request must name its Host", caller, kind: "no Host")
            case .refused(let why):
                return refuse(.misdirectedRequest, "Host \(why): the API answers only requests addressed to it "
                              + "(a web page reaching it through DNS rebinding is refused)", caller, kind: "Host", shown: "Host \(host ?? "")")
            }
        }
        if let origin = headers.first(name: "Origin"), !access.originAllowed(origin) {
            return refuse(.forbidden, "requests from web pages (Origin: \(origin)) are refused; "
                          + "a page that must ask goes in [api] allowed_origins", caller, kind: "Origin", shown: "Origin \(origin)")
        }
        if let token, let refusal = judgeToken(token, headers.first(name: "Authorization"), caller) { return refusal }
        let contentType = headers.first(name: "Content-Type")
        if pdfUpload {
            guard APIAccess.isPDF(contentType) else {
                return refuse(.unsupportedMediaType, "POST /documents takes the PDF itself as the body: send Content-Type: application/pdf "
                              + "(got \(contentType.map { "'\($0)'" } ?? "none"))", caller, kind: "Content-Type on /documents",
                              shown: "Content-Type \(contentType ?? "none") on /documents")
            }
            return nil
        }
        if !APIAccess.contentTypeAcceptable(method: head.method.rawValue, contentType: contentType, hasBody: hasBody) {
            return refuse(.unsupportedMediaType, "a \(head.method.rawValue) body must be JSON: send Content-Type: application/json "
                          + "(got \(contentType.map { "'\($0)'" } ?? "none"); only POST /documents takes application/pdf)", caller,
                          kind: "Content-Type", shown: "Content-Type \(contentType ?? "none")")
        }
        return nil
    }

    /// The token, in this order: none sent is 401, never counted (a page's image, a program that
    /// forgot it); the right one passes, also from a client held off; only a wrong one counts
    /// towards `auth_failures`, and only a wrong one is answered 429 while its client is held off.
    /// A guesser is slowed by nothing here: the token's 128 bits or more are what stop it.
    private func judgeToken(_ token: BearerToken, _ authorization: String?, _ caller: Caller) -> APIResponse? {
        let how = "send Authorization: Bearer <the token in [api] token_file>"
        guard let authorization else {
            return unauthorized("missing or wrong bearer token (none was sent): \(how)", caller, kind: "missing token")
        }
        if token.admits(authorization) { return nil }
        if let wait = limiter.withLock({ $0.retryAfter(caller.key, now: Self.now()) }) {
            let seconds = Int(wait.rounded(.up))
            var response = refuse(.tooManyRequests, "too many wrong bearer tokens from \(caller.key): a wrong one is refused for "
                                  + "\(seconds) s more ([api] auth_failures, auth_failure_window); the right token is served", caller,
                                  kind: "held off", shown: "wrong token from a client held off")
            response.headers.append(("Retry-After", String(seconds)))
            return response
        }
        let blocked = limiter.withLock { $0.failed(caller.key, now: Self.now()) }
        // The one that holds its client off is a kind of its own: logged the first time, whatever the count.
        return unauthorized("missing or wrong bearer token: \(how)", caller,
                            kind: "wrong token" + (blocked.map { "; its client's wrong tokens now get 429 for \(Int($0)) s" } ?? ""))
    }

    private func unauthorized(_ message: String, _ caller: Caller, kind: String) -> APIResponse {
        var response = refuse(.unauthorized, message, caller, kind: kind)
        response.headers.append(("WWW-Authenticate", #"Bearer realm="inkkiosk""#))
        return response
    }

    /// Counts and logs a refusal. `kind` is what the log counts by (with the client); `shown` (the
    /// kind with the value this request sent: a Host, an Origin) is what the line says: a storm
    /// that varies the value is still logged at its 1st, 10th, 100th… time, not at every request.
    private func refuse(_ status: HTTPResponseStatus, _ message: String, _ caller: Caller, kind: String, shown: String? = nil) -> APIResponse {
        counts.withLock { $0[Int(status.code), default: 0] += 1 }
        note("refused \(status.code) (\(shown ?? kind)) from \(caller.key)", key: "refused \(status.code) \(kind) \(caller.key)",
             detail: caller.description)
        return APIResponse.error(status, message)
    }

    /// Logs `line` at its 1st, 10th, 100th… time (counted by `key`, the line itself when nil, in
    /// a table of at most 256), with `detail` (the client's port, pid).
    func note(_ line: String, key: String? = nil, detail: String = "") {
        let key = key ?? line
        let n = logged.withLock { table -> Int in
            if table.count >= 256 && table[key] == nil { table.removeAll() }
            table[key, default: 0] += 1
            return table[key] ?? 1
        }
        var power = 1
        while power < n { power *= 10 }
        guard power == n else { return }
        log.warning("signature API: \(line)\(detail.isEmpty ? "" : " (\(detail))")\(n > 1 ? ", \(n) times so far" : "")")
    }
}
