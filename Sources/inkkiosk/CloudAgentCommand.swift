// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkClassroom
import InkConfig
import InkLog

/// `inkkiosk cloud-agent`: the classroom's link to the school's cloud, a process of its own beside
/// the kiosk (a systemd unit, or the image's boot.d), so that the kiosk never waits on the
/// network. It reads the config's `[cloud]` table; the kiosk and it share only files.
struct CloudAgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloud-agent",
        abstract: "Enrol with the school's cloud, keep its hand-out and return folders on the tablet, send the pupils' hand-ins.")

    @Option(name: .customLong("config"), help: "The configuration file ([cloud] server or share, the folders, …).")
    var config = "/etc/inkkiosk/inkkiosk.toml"

    @Flag(name: .customLong("if-configured"),
          help: "Exit 0 without a word when neither [cloud] server nor share is set.")
    var ifConfigured = false

    @Flag(name: .customLong("once"), help: "One round (enrolment, hand-out, returned, hand-ins), then exit.")
    var once = false

    func run() throws {
        let file: KioskConfig
        do { file = try KioskConfig.load(path: config) } catch let e as ConfigError {
            throw CleanExit.message("\(e.problems.count) problem\(e.problems.count == 1 ? "" : "s"):\n\(e)", code: 1)
        }
        KioskLogging.level = file.logLevel ?? .info
        guard file.screen.cloud.isEnabled else {
            if ifConfigured { return }
            throw CleanExit.message("cloud-agent: \(config): neither [cloud] server nor share is set: there is no school cloud to use", code: 1)
        }
        let agent = CloudAgent(settings: file.screen.cloud)
        do {
            if once { try agent.round() } else { try agent.run() }
        } catch {
            throw CleanExit.message("cloud-agent: \(error)", code: 1)
        }
    }
}
