import ArgumentParser
import InkLog

@main
struct InkKioskCommand: ParsableCommand {
    /// Every logger of the process writes through the kiosk's handler (journald's priorities
    /// under systemd): set up once, before any logger is made. The threshold follows the config.
    static func main() {
        KioskLogging.bootstrap()
        main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "inkkiosk",
        abstract: "Pen and touch ink for embedded Linux: libinput in, DRM/KMS out.",
        version: InkKioskVersion.string,
        subcommands: [RunCommand.self, RecordCommand.self, ReplayCommand.self, DevicesCommand.self, CheckConfigCommand.self, KeygenCommand.self, DecryptCommand.self, PDFHelperCommand.self, BenchCommand.self, WorksheetBenchCommand.self, APIBenchCommand.self, SoakCommand.self])
}

/// The release, as `inkkiosk --version` prints it and the Debian packages are named (scripts/deb).
enum InkKioskVersion {
    static let string = "1.0.0"
}
