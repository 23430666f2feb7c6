import ArgumentParser

@main
struct InkKioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inkkiosk",
        abstract: "Pen and touch ink for embedded Linux: libinput in, DRM/KMS out.",
        subcommands: [RunCommand.self, RecordCommand.self, ReplayCommand.self, DevicesCommand.self, CheckConfigCommand.self, DecryptCommand.self, BenchCommand.self, WorksheetBenchCommand.self, APIBenchCommand.self, SoakCommand.self])
}
