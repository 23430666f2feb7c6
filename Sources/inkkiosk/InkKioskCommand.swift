import ArgumentParser
import InkCommandLine

@main
struct InkKioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inkkiosk",
        abstract: "Pen and touch ink for embedded Linux: libinput in, DRM/KMS out.",
        version: InkKioskVersion.string,
        subcommands: [RunCommand.self, RecordCommand.self, ReplayCommand.self, DevicesCommand.self, CheckConfigCommand.self, ConfigCommand.self, KeygenCommand.self, DecryptCommand.self, PDFHelperCommand.self])
}
