// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkCommandLine
import InkCore
import InkKiosk
import InkLog

@main
struct InkKioskCommand: ParsableCommand {
    /// Every logger of the process writes through the kiosk's handler (journald's priorities
    /// under systemd): set up once, before any logger is made. The threshold follows the config.
    static func main() {
        KioskLogging.bootstrap()
        let mainAt = StartupTrace.bootTime()
        if let short = ShortRunArguments.matching(CommandLine.arguments) {
            short.run(trace: StartupTrace(firstStep: "loader", at: mainAt))
            return
        }
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "inkkiosk",
        abstract: "Pen and touch ink for embedded Linux: libinput in, DRM/KMS out.",
        version: versionLines(KernelCommandLine.ofThisMachine()),
        subcommands: [RunCommand.self, RecordCommand.self, ReplayCommand.self, DevicesCommand.self, CheckConfigCommand.self, ConfigCommand.self, KeygenCommand.self, DecryptCommand.self, PDFHelperCommand.self, UpdateAgentCommand.self, CloudAgentCommand.self])
}

extension InkKioskCommand {
    /// `--version`: the program's version alone on its first line (scripts read it), then, on a
    /// machine booted from the disk image, the image's slot and version (its kernel command line).
    static func versionLines(_ kernel: KernelCommandLine) -> String {
        let (image, warning) = kernel.bootedImage()
        if let image { return "\(InkKioskVersion.string)\n\(image)" }
        if let warning { return "\(InkKioskVersion.string)\n\(warning)" }
        return InkKioskVersion.string
    }
}
