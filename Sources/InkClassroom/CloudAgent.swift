// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkHTTPClient
import InkStorage
import Logging

/// What the agent tells the kiosk (a synced file in the state folder, read by the screen):
/// whether the tablet waits to be enrolled and with which URL, and how the server answered last.
public struct CloudStatus: Codable, Sendable, Equatable {
    /// While enrolling: the URL a teacher opens (the screen shows it as a QR code), and until when.
    public var loginURL: String?
    public var loginExpires: Int64?
    /// The last problem reaching the server, for the status line; nil when the last request worked.
    public var problem: String?
    public var updated: Int64

    public init(loginURL: String? = nil, loginExpires: Int64? = nil, problem: String? = nil, updated: Int64) {
        self.loginURL = loginURL; self.loginExpires = loginExpires; self.problem = problem; self.updated = updated
    }
}

/// `inkkiosk cloud-agent`: the classroom's link to the school's cloud, in a process of its own so
/// that the kiosk never waits on the network. Enrols the tablet (Login Flow v2) when it has no
/// credentials, keeps the hand-out and return folders' worksheets on the tablet, sends the
/// outbox's hand-ins, and wipes the tablet's class data when the server says so.
public final class CloudAgent {
    let settings: CloudSettings
    let http: HTTPClient
    let log: Logger
    let files: CloudFiles
    private var failures = 0
    private var generator = SystemRandomNumberGenerator()

    public init(settings: CloudSettings, log: Logger = Logger(label: "inkkiosk.cloud-agent")) {
        self.settings = settings
        self.log = log
        var options = HTTPClient.Options()
        options.caFile = settings.caFile
        // Nextcloud names the device's app password after it ("Devices & sessions"): the admin sees which tablet.
        options.userAgent = "inkkiosk (\(settings.deviceName))"
        options.maxResponseBytes = max(settings.maxFileMB << 20, 1 << 20)
        http = HTTPClient(options)
        files = CloudFiles(settings)
    }

    /// Runs for ever: one round, then a wait for the poll interval (or the outbox's next item).
    public func run() throws {
        try DurableFile.prepareDirectory(settings.stateDirectory)
        try DurableFile.prepareDirectory(files.outbox.directory)
        // A hand-in the kiosk's save thread renames into the outbox goes out at once, without a busy poll.
        let watch = DirectoryWatch(files.outbox.directory, events: UInt32(IN_MOVED_TO))
        log.info("cloud agent: \(settings.share ?? settings.server ?? "-") as \(settings.deviceName); hand-out \(settings.handOutFolder.debugDescription), hand-in \(settings.handInFolder.debugDescription)")
        let schedule = PollSchedule(pollInterval: settings.pollInterval, backoffMax: settings.backoffMax)
        while true {
            let wait: Double
            do {
                try round()
                if failures > 0 { log.notice("the school's server answers again after \(failures) failed rounds") }
                failures = 0
                wait = schedule.afterAnswer(serverSleep: nil, random: random())
            } catch {
                failures += 1
                wait = schedule.afterFailure(failures, random: random())
                log.warning("round failed (\(failures) in a row), next in \(Int(wait)) s: \(error)")
                writeStatus(CloudStatus(problem: "\(error)", updated: now()))
            }
            watch.wait(seconds: wait)
            _ = watch.drain()
        }
    }

    /// One round: credentials (enrolling if there are none), hand-out, returned work, hand-ins.
    public func round() throws {
        guard let dav = try connect() else { return }
        do {
            // Returned work: only this tablet's own (DEVICE-…), never another pupil's.
            for (folder, local, state, prefix) in [(settings.handOutFolder, settings.handOutDirectory, files.handOutState, nil),
                                                   (settings.returnFolder, settings.returnDirectory, files.returnState, settings.deviceName + "-")] {
                let sync = HandOutSync(dav: dav, folder: folder, localDirectory: local, statePath: state,
                                       maxFiles: settings.maxFiles, maxBytes: Int64(settings.maxFileMB) << 20, namePrefix: prefix)
                let result = try sync.poll()
                if !result.unchanged {
                    log.info("\(folder): \(result.fetched.count) fetched, \(result.removed.count) removed\(result.refused.isEmpty ? "" : ", refused: " + result.refused.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", "))")
                }
            }
            let sender = HandInSender(server: dav, folder: settings.handInFolder, outbox: files.outbox, ledgerPath: files.ledger)
            let sent = try sender.sendWaiting(now: now())
            for id in sent.sent { log.notice("hand-in \(id): sent") }
            for id in sent.failed { log.error("hand-in \(id): failed: \(sent.reasons[id] ?? "?")") }
            if let problem = sent.stoppedBy { throw problem }
            writeStatus(CloudStatus(updated: now()))
        } catch DAVError.unauthorized(let url) {
            log.warning("\(url): the server no longer accepts this tablet's password")
            try checkWipe()
        }
    }

    /// The WebDAV client with the tablet's credentials; nil while it is still being enrolled.
    func connect() throws -> WebDAVClient? {
        let credentials = try ClassCredentials.load(settings.credentialsFile)
        if let share = settings.share {
            guard let parts = CloudSettings.shareParts(share) else {
                throw LoginFlow.Problem(description: "[cloud] share \(share.debugDescription) is not a share link (https://host/s/TOKEN)")
            }
            return WebDAVClient(root: "\(parts.server)/public.php/webdav", user: parts.token,
                                password: credentials?.sharePassword ?? "", http: http)
        }
        guard let server = settings.server else { return nil }
        if let credentials, let login = credentials.loginName, let password = credentials.appPassword {
            return WebDAVClient(root: "\(server)/remote.php/dav/files/\(PercentEncoding.encodeSegment(login))",
                                user: login, password: password, http: http)
        }
        try enrol(server)
        return nil
    }

    /// Login Flow v2: the URL to the kiosk's screen, then a poll every `pollEvery` seconds until
    /// someone has logged in (the credentials saved, mode 0600) or the flow expires (20 minutes).
    func enrol(_ server: String) throws {
        let flow = LoginFlow(server: server, http: http)
        let started = try flow.start()
        let expires = now() + LoginFlow.lifetime
        log.notice("enrolment: waiting for a login at \(started.login) (shown on the screen as a QR code)")
        writeStatus(CloudStatus(loginURL: started.login, loginExpires: expires, updated: now()))
        while now() < expires {
            if let granted = try flow.poll(started) {
                try ClassCredentials(server: granted.server, loginName: granted.loginName, appPassword: granted.appPassword)
                    .save(settings.credentialsFile)
                log.notice("enrolment: this tablet is enrolled as \(granted.loginName.debugDescription)")
                writeStatus(CloudStatus(updated: now()))
                return
            }
            sleepSeconds(LoginFlow.pollEvery)
        }
        log.warning("enrolment: nobody logged in within \(LoginFlow.lifetime) s; a new login URL follows")
    }

    /// After a 401: asks whether the server wants this tablet wiped (Nextcloud's remote wipe);
    /// if so, removes the class's data from the tablet and says so; if not, enrols again.
    func checkWipe() throws {
        guard let server = settings.server, let credentials = try ClassCredentials.load(settings.credentialsFile),
              let password = credentials.appPassword else { return }
        let wipe = RemoteWipe(server: server, http: http)
        if try wipe.isRequested(token: password) {
            log.notice("remote wipe: the server asks for it; removing the class's data from this tablet")
            try files.wipe(settings)
            try wipe.confirm(token: password)
            log.notice("remote wipe: done and confirmed to the server")
        } else {
            log.warning("the password was revoked without a wipe: enrolling again")
            try ClassCredentials.remove(settings.credentialsFile)
        }
    }

    func writeStatus(_ status: CloudStatus) {
        do {
            try StateFile.save(status, to: files.status, mode: 0o644)
        } catch {
            log.error("cannot write \(files.status): \(error)")
        }
    }

    private func now() -> Int64 { Int64(time(nil)) }
    private func random() -> Double { Double.random(in: 0..<1, using: &generator) }
}

/// The agent's files under the state folder.
public struct CloudFiles: Sendable {
    public let outbox: HandInOutbox
    public let ledger: String
    public let handOutState: String
    public let returnState: String
    public let status: String

    public init(_ settings: CloudSettings) {
        let dir = settings.stateDirectory
        outbox = HandInOutbox(directory: dir + "/outbox", maxItems: settings.outboxItems, maxBytes: Int64(settings.outboxMB) << 20)
        ledger = dir + "/ledger.json"
        handOutState = dir + "/hand-out.json"
        returnState = dir + "/returned.json"
        status = dir + "/status.json"
    }

    /// Everything of the class on the tablet: the outbox, the worksheets fetched, the ledger, the credentials.
    func wipe(_ settings: CloudSettings) throws {
        for item in try outbox.items() { try outbox.remove(item) }
        for (state, directory) in [(handOutState, settings.handOutDirectory), (returnState, settings.returnDirectory)] {
            for name in (try HandOutState.load(state)).files.keys where unlink("\(directory)/\(name)") != 0 && errno != ENOENT {
                throw SystemCallError("remove", path: "\(directory)/\(name)")
            }
            if unlink(state) != 0 && errno != ENOENT { throw SystemCallError("remove", path: state) }
        }
        if unlink(ledger) != 0 && errno != ENOENT { throw SystemCallError("remove", path: ledger) }
        try ClassCredentials.remove(settings.credentialsFile)
    }
}

/// Nextcloud's remote wipe: `POST /index.php/core/wipe/check` with the app password as token
/// (200 `{"wipe": true}` when an admin asked for it), then `/index.php/core/wipe/success`.
public struct RemoteWipe: Sendable {
    public let server: String
    let http: HTTPClient

    public init(server: String, http: HTTPClient) { self.server = server; self.http = http }

    public func isRequested(token: String) throws -> Bool {
        let response = try post("check", token: token)
        if response.status == 404 { return false }
        guard response.status == 200 else {
            throw HTTPError(method: "POST", url: "\(server)/index.php/core/wipe/check", reason: .status(response.status, excerpt: response.excerpt))
        }
        struct Answer: Decodable { var wipe: Bool }
        return (try? JSONDecoder().decode(Answer.self, from: Data(response.body)))?.wipe ?? false
    }

    public func confirm(token: String) throws {
        let response = try post("success", token: token)
        guard (200...299).contains(response.status) else {
            throw HTTPError(method: "POST", url: "\(server)/index.php/core/wipe/success", reason: .status(response.status, excerpt: response.excerpt))
        }
    }

    private func post(_ what: String, token: String) throws -> HTTPResponse {
        try http.send(HTTPRequest(.post, "\(server)/index.php/core/wipe/\(what)", headers: [
            HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json"),
        ], body: Array("token=\(PercentEncoding.encodeSegment(token))".utf8)))
    }
}
