// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import InkHTTPClient
import Testing
@testable import InkClassroom

/// The classroom's client against a real WebDAV server: WsgiDAV at Nextcloud's paths over TLS,
/// with the login-flow and wipe stand-in (scripts/classroom/school-cloud.py), started per test.
@Suite(.serialized)
final class SchoolCloudTests {
    let directory: String
    let serverDirectory: String
    var server: Process
    var info: [String: Any] = [:]

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/classroom/school-cloud.py").path

    init() throws {
        directory = NSTemporaryDirectory() + "inkkiosk-cloud-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        serverDirectory = directory + "/server"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        server = Process()
        server = try startServer(port: nil)
    }

    deinit {
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        if let pid = info["pid"] as? Int32 { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the server and waits for its server.json (written once it answers).
    func startServer(port: Int?) throws -> Process {
        try? FileManager.default.removeItem(atPath: serverDirectory + "/server.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script, "serve", serverDirectory] + (port.map { ["--port", String($0)] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        while !FileManager.default.fileExists(atPath: serverDirectory + "/server.json") {
            guard process.isRunning else { throw Failure(description: "school-cloud.py ended with \(process.terminationStatus)") }
            usleep(50_000)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: serverDirectory + "/server.json"))
        info = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return process
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    var url: String { info["url"] as! String }
    var classFolder: String { info["class"] as! String }
    var http: HTTPClient {
        var options = HTTPClient.Options()
        options.caFile = info["ca"] as? String
        options.timeout = 20
        return HTTPClient(options)
    }

    /// What the stand-in's test endpoints say (a teacher's login, an admin's wipe, the counts).
    @discardableResult
    func testEndpoint(_ path: String, _ form: String = "") throws -> [String: Any] {
        let response = try http.send(HTTPRequest(.post, url + path, headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
                                                 body: Array(form.utf8)))
        return try JSONSerialization.jsonObject(with: Data(response.body)) as! [String: Any]
    }

    /// The server's counts (its timing figures, absent or null before the first upload, left out).
    func counts() throws -> [String: Int] { (try testEndpoint("/_test/stats") as! [String: Any]).compactMapValues { $0 as? Int } }

    func enrol() throws -> WebDAVClient {
        let flow = LoginFlow(server: url, http: http)
        let started = try flow.start()
        try testEndpoint("/_test/grant", "login=tablet-07")
        let granted = try #require(try flow.poll(started))
        return WebDAVClient(root: "\(url)/remote.php/dav/files/\(granted.loginName)", user: granted.loginName,
                            password: granted.appPassword, http: http)
    }

    func teacherWrites(_ relative: String, _ text: String) throws {
        let path = classFolder + "/" + relative
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + ".tmp"))
        rename(path + ".tmp", path)
    }

    func read(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func theLoginFlowGivesTheTabletItsOwnPasswordOnce() throws {
        let flow = LoginFlow(server: url, http: http)
        let started = try flow.start()
        #expect(started.login.hasPrefix(url + "/index.php/login/v2/flow/"))
        #expect(try flow.poll(started) == nil)   // nobody has logged in yet
        try testEndpoint("/_test/grant", "login=tablet-07")
        let granted = try #require(try flow.poll(started))
        #expect(granted.loginName == "tablet-07")
        #expect(granted.server == url)
        #expect(try flow.poll(started) == nil)   // given once
        let dav = WebDAVClient(root: "\(url)/remote.php/dav/files/tablet-07", user: "tablet-07", password: granted.appPassword, http: http)
        #expect(try dav.list("Class 7b", maxEntries: 10).entries.map(\.name).sorted() == ["Hand-in", "Hand-out", "Returned"])
        let wrong = WebDAVClient(root: dav.root, user: "tablet-07", password: "guess", http: http)
        #expect(throws: DAVError.unauthorized(url: wrong.url("Class 7b") + "/")) { try wrong.list("Class 7b", maxEntries: 10) }
    }

    @Test func handOutsArriveAndAnUnchangedFolderCostsOneRequest() throws {
        let dav = try enrol()
        try teacherWrites("Hand-out/Brüche & Maße.pdf", "%PDF-1.4 fractions")
        try teacherWrites("Hand-out/maps.pdf", "%PDF-1.4 maps")
        try teacherWrites("Hand-out/class.json", #"{"deadline": "2026-12-04T15:00:00+01:00"}"#)
        let local = directory + "/worksheets"
        let sync = HandOutSync(dav: dav, folder: "Class 7b/Hand-out", localDirectory: local, statePath: directory + "/hand-out.json",
                               maxFiles: 10, maxBytes: 1 << 20)
        let first = try sync.poll()
        #expect(first.fetched.sorted() == ["Brüche & Maße.pdf", "maps.pdf"])
        #expect(first.deadline == 1_796_392_800)
        #expect(read(local + "/Brüche & Maße.pdf") == "%PDF-1.4 fractions")

        let before = try counts()
        let second = try sync.poll()
        let after = try counts()
        #expect(second.unchanged)
        #expect(after["propfind"]! - before["propfind"]! == 1)
        #expect(after["get"]! == before["get"]!)

        try teacherWrites("Hand-out/maps.pdf", "%PDF-1.4 maps, corrected")
        unlink(classFolder + "/Hand-out/Brüche & Maße.pdf")
        let third = try sync.poll()
        #expect(third.fetched == ["maps.pdf"])
        #expect(third.removed == ["Brüche & Maße.pdf"])
        #expect(read(local + "/maps.pdf") == "%PDF-1.4 maps, corrected")
        #expect(!FileManager.default.fileExists(atPath: local + "/Brüche & Maße.pdf"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: local) == ["maps.pdf"])   // no part files
    }

    func sender(_ dav: WebDAVClient) -> (HandInOutbox, HandInSender) {
        let outbox = HandInOutbox(directory: directory + "/outbox", maxItems: 10, maxBytes: 1 << 24)
        return (outbox, HandInSender(server: dav, folder: "Class 7b/Hand-in", outbox: outbox, ledgerPath: directory + "/ledger.json"))
    }

    func handIn(_ outbox: HandInOutbox, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/notebook.pdf"))
        try outbox.enqueue(title: "Fractions", handedIn: Int64(time(nil)), files: [(remote: "tablet-07-Fractions.pdf", source: directory + "/notebook.pdf")])
    }

    @Test func aResubmissionReplacesOnlyItsOwnFileAndATeachersChangeIsKept() throws {
        let (outbox, sender) = sender(try enrol())
        let remote = classFolder + "/Hand-in/tablet-07-Fractions.pdf"
        try handIn(outbox, "%PDF first")
        #expect(try sender.sendWaiting(now: 1).sent.count == 1)
        #expect(read(remote) == "%PDF first")
        #expect(try outbox.items().isEmpty)
        try handIn(outbox, "%PDF second, longer")
        #expect(try sender.sendWaiting(now: 2).sent.count == 1)
        #expect(read(remote) == "%PDF second, longer")
        try teacherWrites("Hand-in/tablet-07-Fractions.pdf", "%PDF the teacher's marks")
        try handIn(outbox, "%PDF third")
        let round = try sender.sendWaiting(now: 3)
        #expect(round.failed.count == 1)
        #expect(read(remote) == "%PDF the teacher's marks")
        #expect(try HandInLedger.load(directory + "/ledger.json").states["Fractions"]?.phase == .failed)
    }

    @Test func theServerStoppedDuringAHandInThenStartedGetsExactlyOneFile() throws {
        let (outbox, sender) = sender(try enrol())
        try handIn(outbox, "%PDF handed in while the server went down")
        try testEndpoint("/_test/hold-next-put")
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let round = try? sender.sendWaiting(now: 1)
            #expect(round?.stoppedBy != nil)   // the connection died with the server
            done.signal()
        }
        thread.start()
        // The condition: the file is on the server and its answer held back.
        while !FileManager.default.fileExists(atPath: serverDirectory + "/held") { usleep(20_000) }
        let port = info["port"] as! Int
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        if let pid = info["pid"] as? Int32 { kill(pid, SIGKILL) }
        done.wait()
        #expect(try outbox.items().count == 1)
        #expect(try HandInLedger.load(directory + "/ledger.json").states["Fractions"]?.phase == .waiting)
        unlink(serverDirectory + "/held")
        server = try startServer(port: port)
        let round = try sender.sendWaiting(now: 2)
        #expect(round.sent.count == 1)
        let handIns = try FileManager.default.contentsOfDirectory(atPath: classFolder + "/Hand-in").filter { !$0.hasPrefix(".") }
        #expect(handIns == ["tablet-07-Fractions.pdf"])
        #expect(read(classFolder + "/Hand-in/tablet-07-Fractions.pdf") == "%PDF handed in while the server went down")
        #expect(try counts()["put_412"] == 1)   // the retry found its own file
        #expect(try outbox.items().isEmpty)
    }

    @Test func anAgentEnrolsByTheQRFlowAndAWipeRemovesTheClassFromTheTablet() throws {
        var settings = CloudSettings()
        settings.server = url
        settings.caFile = info["ca"] as? String
        settings.stateDirectory = directory + "/state"
        settings.credentialsFile = directory + "/state/credentials.json"
        settings.handOutDirectory = directory + "/class"
        settings.returnDirectory = directory + "/returned"
        settings.handOutFolder = "Class 7b/Hand-out"
        settings.handInFolder = "Class 7b/Hand-in"
        settings.returnFolder = "Class 7b/Returned"
        settings.deviceName = "tablet-07"
        try FileManager.default.createDirectory(atPath: settings.stateDirectory, withIntermediateDirectories: true)
        try teacherWrites("Hand-out/maps.pdf", "%PDF maps")
        try teacherWrites("Returned/tablet-07-Fractions.pdf", "%PDF marked")
        try teacherWrites("Returned/tablet-08-Fractions.pdf", "%PDF another pupil's")
        let enrolled = DispatchSemaphore(value: 0)
        Thread { [settings] in try? CloudAgent(settings: settings).round(); enrolled.signal() }.start()
        // The condition: the status file names the login URL (what the screen shows as a QR code).
        var status: CloudStatus?
        while status?.loginURL == nil {
            usleep(50_000)
            status = (try? Data(contentsOf: URL(fileURLWithPath: settings.stateDirectory + "/status.json")))
                .flatMap { try? JSONDecoder().decode(CloudStatus.self, from: $0) }
        }
        #expect(status?.loginURL?.hasPrefix(url + "/index.php/login/v2/flow/") == true)
        try testEndpoint("/_test/grant", "login=tablet-07")
        enrolled.wait()
        var info = stat()
        #expect(stat(settings.credentialsFile, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let agent = CloudAgent(settings: settings)
        try agent.round()
        #expect(read(settings.handOutDirectory + "/maps.pdf") == "%PDF maps")
        #expect(read(settings.returnDirectory + "/tablet-07-Fractions.pdf") == "%PDF marked")
        #expect(try FileManager.default.contentsOfDirectory(atPath: settings.returnDirectory) == ["tablet-07-Fractions.pdf"])

        try testEndpoint("/_test/wipe", "login=tablet-07")
        try agent.round()
        #expect(!FileManager.default.fileExists(atPath: settings.handOutDirectory + "/maps.pdf"))
        #expect(!FileManager.default.fileExists(atPath: settings.returnDirectory + "/tablet-07-Fractions.pdf"))
        #expect(!FileManager.default.fileExists(atPath: settings.credentialsFile))
        #expect(try counts()["wiped"] == 1)
    }
}
