// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkCommandLine
import InkConfig
import InkLog
import InkCore
import InkUpdateAgent

/// `inkkiosk update-agent`: the fleet's update agent, a process of its own beside the kiosk
/// (started by the image's boot.d or a systemd unit). It reads the config's `[update]` table and
/// never touches the screen; only this process loads libcurl.
struct UpdateAgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update-agent",
        abstract: "Poll the fleet server (hawkBit's DDI API) for updates, install them through ik-update, report their outcome after the reboot.")

    @Option(name: .customLong("config"), help: "The configuration file ([update] server, tenant, identity_file, …).")
    var config = "/etc/inkkiosk/inkkiosk.toml"

    @Option(name: .customLong("cmdline"), help: "The kernel command line to read the booted slot from (rauc.slot=, ik.version=).")
    var cmdline = MachineFacts().cmdline

    @Option(name: .customLong("boot-id"), help: "The file holding this boot's id.")
    var bootID = MachineFacts().bootID

    @Option(name: .customLong("rauc-system-conf"), help: "RAUC's system.conf, for the compatible the agent reports.")
    var raucSystemConf = MachineFacts().raucSystemConf

    @Flag(name: .customLong("if-configured"),
          help: "Exit 0 without a word when [update] server is not set (the image starts the agent whatever its config says).")
    var ifConfigured = false

    @Option(name: .customLong("may-install"), help: ArgumentHelp(
        "Only check whether a bundle of this version may be installed over the booted one ([update] allow_downgrade); exit 0 if so, 1 with the reason if not (RAUC's pre-install handler in the image).",
        valueName: "version"))
    var mayInstall: String?

    func run() throws {
        let file: KioskConfig
        do { file = try KioskConfig.load(path: config) } catch let e as ConfigError {
            throw CleanExit.message("\(e.problems.count) problem\(e.problems.count == 1 ? "" : "s"):\n\(e)", code: 1)
        }
        KioskLogging.level = file.logLevel ?? .info
        let settings = file.update.agent
        if let offered = mayInstall {
            return try checkVersion(offered, allowDowngrade: settings.allowDowngrade)
        }
        guard settings.server != nil else {
            if ifConfigured { return }
            throw CleanExit.message("update-agent: \(config): [update] server is not set: there is no fleet server to ask", code: 1)
        }
        do {
            let identity = try AgentIdentity.read(settings.identityFile)
            var facts = MachineFacts()
            facts.cmdline = cmdline
            facts.bootID = bootID
            facts.raucSystemConf = raucSystemConf
            try UpdateAgent(settings: settings, identity: identity, facts: facts).run()
        } catch let problem as AgentIdentity.Problem {
            throw CleanExit.message("update-agent: \(problem)", code: 1)
        } catch let problem as UpdateAgent.StartProblem {
            throw CleanExit.message("update-agent: \(config): \(problem)", code: 1)
        }
    }

    /// `--may-install`: the downgrade rule against the version the kernel command line says runs.
    private func checkVersion(_ offered: String, allowDowngrade: Bool) throws {
        var facts = MachineFacts()
        facts.cmdline = cmdline
        let booted: BootedImage?
        do {
            booted = try facts.bootedImage()
        } catch {
            throw CleanExit.message("update-agent: \(cmdline): \(error)", code: 1)
        }
        // Nothing to compare with (no image, or no ik.version=): nothing refused.
        guard let running = booted?.version else { return }
        guard !offered.isEmpty || allowDowngrade else {
            throw CleanExit.message("update-agent: refused: the bundle names no version, so a downgrade cannot be told from an update ([update] allow_downgrade = true allows it)", code: 1)
        }
        if let refusal = DowngradeRule.refusal(offered: offered, running: running, allowDowngrade: allowDowngrade) {
            throw CleanExit.message("update-agent: \(refusal)", code: 1)
        }
    }
}
