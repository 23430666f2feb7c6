// SPDX-License-Identifier: Apache-2.0
import Crypto
import FoundationEssentials
import Glibc
import InkCore
import InkHTTPClient
import Logging

/// Where the agent learns what this machine booted; files so that a host test can stand in.
public struct MachineFacts: Sendable {
    public var cmdline = "/proc/cmdline"
    public var bootID = "/proc/sys/kernel/random/boot_id"
    /// RAUC's system.conf, for the `compatible` the agent reports.
    public var raucSystemConf = "/etc/rauc/system.conf"
    public init() {}

    /// The image this machine booted, from its kernel command line; nil when it did not boot one.
    public func bootedImage() throws -> BootedImage? {
        try BootedImage(KernelCommandLine(try AgentFiles.read(cmdline) ?? ""))
    }
}

/// `inkkiosk update-agent`: polls a DDI server (hawkBit, goosebit), downloads the bundle it offers,
/// installs it through `ik-update install`, reboots through `ik-update reboot` within the window,
/// and reports the outcome only once the new slot has booted and confirmed itself. One line in the
/// log for each change of state.
public final class UpdateAgent {
    let settings: UpdateAgentSettings
    let identity: AgentIdentity
    let facts: MachineFacts
    let http: HTTPClient
    let command: UpdateCommand
    let log: Logger
    let base: String
    let booted: BootedImage?
    let bootID: String
    private var failures = 0
    private var generator = SystemRandomNumberGenerator()

    public struct StartProblem: Error, CustomStringConvertible {
        public var description: String
    }

    public init(settings: UpdateAgentSettings, identity: AgentIdentity, facts: MachineFacts = MachineFacts(),
                log: Logger = Logger(label: "inkkiosk.update-agent")) throws(StartProblem) {
        guard let server = settings.server else {
            throw StartProblem(description: "[update] server is not set: there is no fleet server to ask")
        }
        self.settings = settings
        self.identity = identity
        self.facts = facts
        self.log = log
        var options = HTTPClient.Options()
        options.caFile = settings.caFile
        options.userAgent = "inkkiosk-update-agent"
        http = HTTPClient(options)
        command = UpdateCommand(path: settings.updateCommand)
        var trimmed = server
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        base = "\(trimmed)/\(settings.tenant)/controller/v1/\(identity.controllerID)"
        do {
            booted = try facts.bootedImage()
            bootID = (try AgentFiles.read(facts.bootID) ?? "").trimmed()
        } catch {
            throw StartProblem(description: "\(error)")
        }
    }

    /// Runs until a reboot into an update has been asked for (then returns), or for ever.
    public func run() {
        log.info("update agent: \(base) as \(identity.controllerID); booted \(booted.map { "\($0)" } ?? "no image slot (rauc.slot= missing)")")
        let started = monotonicNow()
        if let record = loadPending() {
            if settle(record, started: started) == .rebooting { return }
        }
        while true {
            do {
                let answer = try http.json(.get, base, headers: auth, as: DDI.ControllerBase.self)
                if failures > 0 { log.info("the server answers again after \(failures) failed polls") }
                failures = 0
                if let link = answer.links.configData { sendAttributes(link.href) }
                if let link = answer.links.deploymentBase {
                    if deploy(link.href) == .rebooting { return }
                }
                sleep(settings.schedule.afterAnswer(serverSleep: answer.sleepSeconds, random: random()))
            } catch {
                failures += 1
                let wait = settings.schedule.afterFailure(failures, random: random())
                log.warning("poll failed (\(failures) in a row), next in \(Int(wait)) s: \(error)")
                sleep(wait)
            }
        }
    }

    enum Step: Equatable { case carryOn, rebooting }

    // MARK: - After a reboot

    /// Resolves the pending record of an earlier install: reboots if that has not happened yet,
    /// else waits (bounded) for the new slot to confirm itself and reports the outcome.
    private func settle(_ record: PendingUpdate, started: Double) -> Step {
        var waitingSaid = false
        while true {
            let confirmed = (try? AgentFiles.read(settings.confirmedFile, limit: 64))?.map { $0.trimmed() }
            let gaveUp = monotonicNow() - started > Double(settings.confirmWait)
            switch record.resolve(bootID: bootID, booted: booted, confirmedSlot: confirmed ?? nil, gaveUpWaiting: gaveUp) {
            case .notRebooted:
                log.notice("action \(record.actionID): installed in slot \(record.targetSlot) in this boot; the reboot is still to come")
                return reboot(record)
            case .awaitingConfirmation:
                if !waitingSaid {
                    log.notice("action \(record.actionID): slot \(record.targetSlot) booted; waiting up to \(settings.confirmWait) s for it to confirm its boot (\(settings.confirmedFile))")
                    waitingSaid = true
                }
                sleep(1)
            case .success(let why):
                log.notice("action \(record.actionID): success: \(why)")
                finish(record, .success(why))
                return .carryOn
            case .failure(let why):
                log.error("action \(record.actionID): failure: \(why)")
                finish(record, .failure(why))
                return .carryOn
            }
        }
    }

    /// Reports the outcome until the server has it, then removes the record.
    private func finish(_ record: PendingUpdate, _ feedback: DDI.Feedback) {
        reportUntilTaken(record.actionID, feedback)
        do { try AgentFiles.remove(settings.pendingFile) } catch {
            log.error("cannot remove the pending record after the report: \(error)")
        }
    }

    // MARK: - A deployment

    private func deploy(_ href: String) -> Step {
        let deployment: DDI.DeploymentBase
        do {
            deployment = try http.json(.get, href, headers: auth, as: DDI.DeploymentBase.self)
        } catch {
            log.warning("cannot read the deployment \(href): \(error)")
            return .carryOn
        }
        let offer: BundleOffer
        do { offer = try deployment.bundle() } catch {
            refuse(deployment.id, "\(error)")
            return .carryOn
        }
        if offer.update == "skip" {
            log.info("action \(offer.actionID): the server says skip for now")
            return .carryOn
        }
        guard let booted, let targetSlot = PendingUpdate.otherSlot(of: booted.slot) else {
            refuse(offer.actionID, "this machine did not boot a slot of the image (rauc.slot=\(booted?.slot ?? "missing")): nothing to install into")
            return .carryOn
        }
        if let version = offer.version, let running = booted.version {
            if version == running {
                log.notice("action \(offer.actionID): \(version) is what runs already (slot \(booted.slot)): nothing to install")
                reportUntilTaken(offer.actionID, .success("\(version) runs already in slot \(booted.slot): nothing installed"))
                return .carryOn
            }
            if let refusal = DowngradeRule.refusal(offered: version, running: running, allowDowngrade: settings.allowDowngrade) {
                refuse(offer.actionID, refusal)
                return .carryOn
            }
        }
        let limit = Int64(settings.maxBundleMB) << 20
        if let size = offer.size, size > limit {
            refuse(offer.actionID, "refused: the bundle \(offer.filename) is \(size) bytes, over [update] max_bundle_mb = \(settings.maxBundleMB)")
            return .carryOn
        }
        log.notice("action \(offer.actionID): downloading \(offer.filename) (\(offer.version ?? "no version"), \(offer.size.map { "\($0) bytes" } ?? "size unknown"))")
        report(offer.actionID, .proceeding("downloading \(offer.filename)"))

        // The download, named by its hash so that a restart resumes the same file.
        let file = "\(settings.downloadDir)/\(offer.hash.hex).raucb"
        let partial = file + ".part"
        do {
            try AgentFiles.makeDirectory(settings.downloadDir)
            let result = try http.download(offer.url, headers: sameServer(offer.url) ? auth : [], to: partial,
                                           limits: DownloadLimits(maxBytes: limit, bytesPerSecond: Int64(settings.downloadLimit),
                                                                  expectedBytes: offer.size))
            let resumed = result.resumedFrom > 0 ? " (resumed at \(result.resumedFrom))" : ""
            log.info("action \(offer.actionID): downloaded \(result.bytes) bytes\(resumed)")
        } catch let error as HTTPError {
            if case .tooLarge = error.reason {
                try? AgentFiles.remove(partial)
                refuse(offer.actionID, "refused: the download of \(offer.filename) grew over [update] max_bundle_mb = \(settings.maxBundleMB)")
            } else {
                log.warning("action \(offer.actionID): download stopped, resumed at the next poll: \(error)")
            }
            return .carryOn
        } catch {
            log.error("action \(offer.actionID): \(error)")
            return .carryOn
        }
        do {
            let digest = try Self.hash(partial, offer.hash.kind)
            guard digest == offer.hash.hex else {
                try? AgentFiles.remove(partial)
                refuse(offer.actionID, "refused: the \(offer.hash.kind.rawValue) of the download is \(digest), the server's is \(offer.hash.hex)")
                return .carryOn
            }
            try SystemCallError.check(rename(partial, file), "rename \(partial) to", path: file)
        } catch {
            log.error("action \(offer.actionID): \(error)")
            return .carryOn
        }

        log.notice("action \(offer.actionID): installing \(file) into slot \(targetSlot) (\(offer.hash.kind.rawValue) checked)")
        report(offer.actionID, .proceeding("downloaded, \(offer.hash.kind.rawValue) checked; installing into slot \(targetSlot)"))
        let installed: UpdateCommand.Result
        do { installed = try command.run(["install", file]) } catch {
            log.error("action \(offer.actionID): \(error)")
            return .carryOn
        }
        if installed.status == UpdateCommand.busyStatus {
            log.notice("action \(offer.actionID): not installed now, the kiosk is busy: \(installed.reason); trying again at the next poll")
            return .carryOn
        }
        try? AgentFiles.remove(file)
        guard installed.status == 0 else {
            refuse(offer.actionID, "the install failed (\(settings.updateCommand) install: exit status \(installed.status)): \(installed.reason)")
            return .carryOn
        }
        let record = PendingUpdate(actionID: offer.actionID, bundle: offer.filename, fromSlot: booted.slot, fromVersion: booted.version,
                                   targetSlot: targetSlot, targetVersion: offer.version, bootID: bootID,
                                   installedAt: Int64(time(nil)))
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try AgentFiles.makeDirectory(String(settings.pendingFile[..<(settings.pendingFile.lastIndex(of: "/") ?? settings.pendingFile.startIndex)]))
            try AgentFiles.replace(settings.pendingFile, with: Array(try encoder.encode(record)))
        } catch {
            refuse(offer.actionID, "installed, but the pending record could not be written, so its outcome could not be told after the reboot: \(error)")
            return .carryOn
        }
        log.notice("action \(offer.actionID): installed into slot \(targetSlot); pending record \(settings.pendingFile) written")
        report(offer.actionID, .proceeding("installed into slot \(targetSlot); rebooting " + (settings.window.map { "in the window \($0)" } ?? "now")))
        return reboot(record)
    }

    /// Waits for the window, then asks for the reboot (ik-update waits for the kiosk to be idle).
    private func reboot(_ record: PendingUpdate) -> Step {
        var busy = 0
        while true {
            if let window = settings.window {
                let wait = window.secondsUntilOpen(secondOfDay: Self.localSecondOfDay())
                if wait > 0 {
                    log.notice("action \(record.actionID): the reboot waits for the window \(window) (\(wait) s)")
                    sleep(Double(wait))
                    continue
                }
            }
            log.notice("action \(record.actionID): rebooting into slot \(record.targetSlot)")
            let result: UpdateCommand.Result
            do { result = try command.run(["reboot"]) } catch {
                log.error("action \(record.actionID): \(error)")
                sleep(settings.schedule.afterFailure(1, random: random()))
                continue
            }
            if result.status == 0 {
                log.notice("action \(record.actionID): reboot asked for; the outcome is reported after it")
                return .rebooting
            }
            busy += 1
            let wait = settings.schedule.afterFailure(busy, random: random())
            if result.status == UpdateCommand.busyStatus {
                log.notice("action \(record.actionID): the kiosk is busy, the reboot waits \(Int(wait)) s: \(result.reason)")
            } else {
                log.error("action \(record.actionID): the reboot failed (exit status \(result.status)), again in \(Int(wait)) s: \(result.reason)")
            }
            sleep(wait)
        }
    }

    // MARK: - Talking to the server

    private var auth: [HTTPHeader] { [HTTPHeader("Authorization", "TargetToken \(identity.targetToken)")] }

    /// The target token goes only to the server it is for, not to a download elsewhere (a CDN's).
    private func sameServer(_ url: String) -> Bool {
        guard let server = settings.server else { return false }
        // scheme://host[:port], in lower case.
        func origin(_ s: String) -> String {
            let parts = s.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
            return parts.prefix(3).joined(separator: "/").lowercased()
        }
        return origin(url) == origin(server)
    }

    private func sendAttributes(_ href: String) {
        var data: [String: String] = ["slot": booted?.slot ?? "none", "version": booted?.version ?? "unknown"]
        if let compatible = Self.compatible(facts.raucSystemConf) { data["compatible"] = compatible }
        // goosebit's names for the same facts: its device list shows them, its "latest" mode matches
        // a bundle's compatible against hw_boardname.
        data["sw_version"] = data["version"]
        if let compatible = data["compatible"] { data["hw_boardname"] = compatible }
        do {
            try http.sendJSON(.put, href, headers: auth, body: DDI.ConfigData(data: data))
            log.info("reported the device's attributes: \(data.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))")
        } catch {
            log.warning("cannot report the device's attributes: \(error)")
        }
    }

    /// A refusal or failure before any reboot: closed, failure, with the reason.
    private func refuse(_ actionID: String, _ reason: String) {
        log.error("action \(actionID): failure: \(reason)")
        reportUntilTaken(actionID, .failure(reason))
    }

    @discardableResult
    private func report(_ actionID: String, _ feedback: DDI.Feedback) -> Bool {
        do {
            try http.sendJSON(.post, "\(base)/deploymentBase/\(actionID)/feedback", headers: auth, body: feedback)
            return true
        } catch {
            log.warning("action \(actionID): feedback \(feedback.status.execution.rawValue) not taken: \(error)")
            return false
        }
    }

    /// A final outcome is sent until the server has taken it (a report lost to the network is sent again).
    private func reportUntilTaken(_ actionID: String, _ feedback: DDI.Feedback) {
        var tries = 0
        while !report(actionID, feedback) {
            tries += 1
            sleep(settings.schedule.afterFailure(tries, random: random()))
        }
        log.info("action \(actionID): reported \(feedback.status.execution.rawValue)/\(feedback.status.result.finished.rawValue)")
    }

    // MARK: - Helpers

    private func loadPending() -> PendingUpdate? {
        do {
            guard let text = try AgentFiles.read(settings.pendingFile) else { return nil }
            return try JSONDecoder().decode(PendingUpdate.self, from: Data(text.utf8))
        } catch {
            log.error("the pending record \(settings.pendingFile) cannot be read (\(error)): set aside; its outcome is not reported")
            _ = rename(settings.pendingFile, settings.pendingFile + ".unreadable")
            return nil
        }
    }

    private func random() -> Double { Double.random(in: 0..<1, using: &generator) }

    private func sleep(_ seconds: Double) { sleepSeconds(seconds) }

    static func localSecondOfDay() -> Int {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return Int(parts.tm_hour) * 3600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec)
    }

    /// `compatible=` of RAUC's system.conf, or nil.
    static func compatible(_ path: String) -> String? {
        guard let text = try? AgentFiles.read(path) else { return nil }
        for line in text.split(separator: "\n") {
            let l = line.trimmed()
            if l.hasPrefix("compatible=") { return String(l.dropFirst("compatible=".count)).trimmed() }
        }
        return nil
    }

    /// The file's sha256 or sha1 in lower-case hex, read in 1 MiB pieces.
    static func hash(_ path: String, _ kind: ExpectedHash.Kind) throws(SystemCallError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError("open", path: path) }
        defer { close(fd) }
        var sha256 = SHA256(), sha1 = Insecure.SHA1()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 { if errno == EINTR { continue }; throw SystemCallError("read", path: path) }
            if n == 0 { break }
            chunk.withUnsafeBytes { bytes in
                let piece = UnsafeRawBufferPointer(rebasing: bytes[0..<n])
                switch kind {
                case .sha256: sha256.update(bufferPointer: piece)
                case .sha1: sha1.update(bufferPointer: piece)
                }
            }
        }
        let digest: [UInt8] = kind == .sha256 ? Array(sha256.finalize()) : Array(sha1.finalize())
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
