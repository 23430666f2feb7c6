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
/// "Who may ask"): `Host` (421), `Origin` (403), too many wrong tokens from its client (429),
/// the bearer token (401), a JSON body (415). A refusal closes the connection; each is logged
/// with the client, at its 1st, 10th, 100th… time (a storm does not flood the journal).
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

    /// The refusal for this head, or nil when the request may go on.
    /// `pdfUpload`: the request is `POST /documents`, whose body is a PDF, not JSON.
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
                              + "(a web page reaching it through DNS rebinding is refused)", caller, kind: "Host \(host ?? "")")
            }
        }
        if let origin = headers.first(name: "Origin"), !access.originAllowed(origin) {
            return refuse(.forbidden, "requests from web pages (Origin: \(origin)) are refused; "
                          + "a page that must ask goes in [api] allowed_origins", caller, kind: "Origin \(origin)")
        }
        if let token {
            if let wait = limiter.withLock({ $0.retryAfter(caller.key, now: Self.now()) }) {
                var response = refuse(.tooManyRequests, "too many wrong bearer tokens from \(caller.key): try again in "
                                      + "\(Int(wait.rounded(.up))) s ([api] auth_failures, auth_failure_window)", caller, kind: "rate limited")
                response.headers.append(("Retry-After", String(Int(wait.rounded(.up)))))
                return response
            }
            if !token.admits(headers.first(name: "Authorization")) {
                let given = headers.first(name: "Authorization") == nil ? "missing" : "wrong"
                let blocked = limiter.withLock { $0.failed(caller.key, now: Self.now()) }
                var response = refuse(.unauthorized, "missing or wrong bearer token: send Authorization: Bearer <the token in [api] token_file>",
                                      caller, kind: "\(given) token" + (blocked == nil ? "" : "; its client is now held off for \(Int(blocked ?? 0)) s"))
                response.headers.append(("WWW-Authenticate", #"Bearer realm="inkkiosk""#))
                return response
            }
        }
        let contentType = headers.first(name: "Content-Type")
        if pdfUpload {
            guard APIAccess.isPDF(contentType) else {
                return refuse(.unsupportedMediaType, "POST /documents takes the PDF itself as the body: send Content-Type: application/pdf "
                              + "(got \(contentType.map { "'\($0)'" } ?? "none"))", caller, kind: "Content-Type \(contentType ?? "none") on /documents")
            }
            return nil
        }
        if !APIAccess.contentTypeAcceptable(method: head.method.rawValue, contentType: contentType, hasBody: hasBody) {
            return refuse(.unsupportedMediaType, "a \(head.method.rawValue) body must be JSON: send Content-Type: application/json "
                          + "(got \(contentType.map { "'\($0)'" } ?? "none"); only POST /documents takes application/pdf)", caller, kind: "Content-Type \(contentType ?? "none")")
        }
        return nil
    }

    private func refuse(_ status: HTTPResponseStatus, _ message: String, _ caller: Caller, kind: String) -> APIResponse {
        counts.withLock { $0[Int(status.code), default: 0] += 1 }
        note("refused \(status.code) (\(kind)) from \(caller.key)", detail: caller.description)
        return APIResponse.error(status, message)
    }

    /// Logs `line` at its 1st, 10th, 100th… time (per what and whom, in a table of at most 256),
    /// with `detail` (the client's port, pid).
    func note(_ line: String, detail: String = "") {
        let n = logged.withLock { table -> Int in
            if table.count >= 256 && table[line] == nil { table.removeAll() }
            table[line, default: 0] += 1
            return table[line] ?? 1
        }
        var power = 1
        while power < n { power *= 10 }
        guard power == n else { return }
        log.warning("signature API: \(line)\(detail.isEmpty ? "" : " (\(detail))")\(n > 1 ? ", \(n) times so far" : "")")
    }
}
