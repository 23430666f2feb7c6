// SPDX-License-Identifier: Apache-2.0
import InkConfig
import ArgumentParser
import InkCommandLine
import InkDisplay
import FoundationEssentials
import Glibc
import InkKiosk
import InkLog
import Logging

extension KioskMode: ExpressibleByArgument {}
extension KMSInterface: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Where the kiosk runs: the seat, the screen, the console.
struct KioskArguments: ParsableArguments {
    @Option(help: "Configuration file (TOML; see config/inkkiosk.toml). Flags given here override it.")
    var config: String?

    @Option(help: "libinput seat (default: seat0).")
    var seat: String?

    @Option(help: "DRM card, e.g. /dev/dri/card0 (default: the first with a connected screen).")
    var card: String?

    @Option(help: "Connector name, e.g. HDMI-A-1 (default: the first connected). See `inkkiosk devices`.")
    var connector: String?

    @Option(help: "Mode, e.g. 1920x1080 or 1920x1080@60 (default: the screen's preferred mode).")
    var mode: String?

    @Option(help: "How frames reach the screen: atomic, legacy or auto (default: the config's [display] kms, else auto: atomic where the driver takes it).")
    var kms: KMSInterface?

    @Option(help: "Virtual terminal to take over (default: stdin's VT, else the active one).")
    var tty: String?

    @Option(help: "Calibration matrix for touchscreens and screen tablets: six numbers \"a b c d e f\" (x' = a·x + b·y + c, y' = d·x + e·y + f, in 0…1 units).")
    var calibration: String?

    @Flag(name: .customLong("allow-vt-switch"), help: "Let Ctrl-Alt-Fn switch VTs (the kiosk lets go of the screen while away). Default: locked.")
    var allowVTSwitch = false

    @Flag(name: .customLong("require-console"), help: "Refuse to start without a virtual terminal to put in graphics mode.")
    var requireConsole = false

    @Option(help: "Stroke journal: every finished stroke is synced here and restored on start (never lose ink).")
    var journal: String?

    @Option(name: .customLong("latency-stats"), help: "Write per-frame latency figures (JSON) here on exit.")
    var latencyStats: String?

    @Flag(name: .customLong("no-prediction"), help: "Do not draw predicted ink ahead of the pen.")
    var noPrediction = false

    @Option(name: .customLong("kiosk-mode"), help: "What the screen is for: draw (ink only), signature or classroom (default: the config's mode, else draw).")
    var kioskMode: KioskMode?

    @Option(help: "Signature mode: where accepted signatures are written.")
    var outbox: String?

    @Option(name: .customLong("save-dir"), help: "Classroom mode: where Save writes the pages (PNG and PDF).")
    var saveDir: String?

    @Option(help: "Signature mode: serve the local API here (\"127.0.0.1:7300\", \"unix:/run/inkkiosk/api.sock\") and sign on request.")
    var api: String?

    @Flag(name: .customLong("no-lockdown"), help: "Do not take the input devices exclusively or turn SysRq off: keys reach the kernel's own handlers (SysRq; the VT's when its keyboard is on). Default: locked down.")
    var noLockdown = false

    @Option(name: .customLong("log-level"), help: "The lowest level logged: trace, debug, info, notice, warning, error or critical (default: the config's [log] level, else info).")
    var logLevel: Logger.Level?

    @Option(name: .customLong("service-keys"), help: "Key combination that stops the kiosk, for technicians, e.g. \"ctrl+alt+shift+s\"; \"\" for none (default: none).")
    var serviceKeys: String?

    func validate() throws {
        if let calibration, parsedCalibration == nil {
            throw ValidationError("--calibration needs six numbers, e.g. \"1 0 0 0 1 0\" (got \"\(calibration)\")")
        }
        if let serviceKeys, !serviceKeys.isEmpty {
            do { _ = try ServiceKeys(parsing: serviceKeys) } catch { throw ValidationError("--service-keys: \(error)") }
        }
    }

    var parsedCalibration: [Float]? {
        guard let calibration else { return nil }
        let values = calibration.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Float($0) }
        return values.count == 6 && values.allSatisfy(\.isFinite) ? values : nil
    }
}

/// The kiosk's flags as `options` reads them: those of the whole `run` command line
/// (`KioskArguments`), or of the short one that starts the appliance (`ShortRunArguments`),
/// where every other flag is unset.
protocol KioskFlags {
    var config: String? { get }
    var seat: String? { get }
    var card: String? { get }
    var connector: String? { get }
    var mode: String? { get }
    var kms: KMSInterface? { get }
    var tty: String? { get }
    var parsedCalibration: [Float]? { get }
    var allowVTSwitch: Bool { get }
    var requireConsole: Bool { get }
    var journal: String? { get }
    var latencyStats: String? { get }
    var noPrediction: Bool { get }
    var kioskMode: KioskMode? { get }
    var outbox: String? { get }
    var saveDir: String? { get }
    var api: String? { get }
    var noLockdown: Bool { get }
    var logLevel: Logger.Level? { get }
    var serviceKeys: String? { get }
}

extension KioskArguments: KioskFlags {}

extension KioskFlags {
    /// The kiosk's options: the config file's, then the flags given here (`ink`: none given when nil).
    func options(_ ink: InkOptions?, record: String? = nil) throws -> KioskOptions {
        let file = try config.map { path in
            do { return try KioskConfig.load(path: path) } catch let e as ConfigError {
                throw CleanExit.message("the configuration has problems; not starting:\n\(e)", code: 1)
            }
        } ?? KioskConfig()
        // From here on (the kiosk's own set-up included) only what the level lets through is written.
        KioskLogging.level = logLevel ?? file.logLevel ?? .info
        var o = KioskOptions()
        o.seat = seat ?? file.seat ?? o.seat
        o.card = card ?? file.card; o.connector = connector ?? file.connector; o.mode = mode ?? file.mode
        o.kms = kms ?? file.kms ?? .auto
        o.tty = tty
        o.calibration = parsedCalibration
        o.lockVT = !(allowVTSwitch || file.allowVTSwitch == true)
        o.requireConsole = requireConsole
        o.pipeline = InkOptions.pipelineOptions(prediction: !noPrediction && file.prediction != false, fps: ink?.fps ?? InkOptions.defaultFPS)
        o.statsPath = latencyStats
        o.recordPath = record
        o.journalPath = journal ?? file.journal
        o.damagedJournals = file.damagedJournals
        o.screen = file.screen
        if let kioskMode { o.screen.mode = kioskMode }
        if o.screen.mode == .signature && !o.screen.capture.signatureStorageChosen {
            // The file did not choose signature mode (it would have said this itself): --kiosk-mode did.
            throw CleanExit.message("the configuration has problems; not starting:\n"
                                    + (config.map { "\($0): --kiosk-mode signature: " } ?? "--kiosk-mode signature without --config: ")
                                    + KioskConfig.unsealedSignatures, code: 1)
        }
        if let outbox { o.screen.capture.outbox = outbox }
        if let saveDir { o.screen.capture.saveDirectory = saveDir }
        if let api { o.screen.api.address = api }
        let patch = ink?.patch(over: file.ink) ?? file.ink
        o.configure = { patch.apply(to: &$0) }
        o.lockdown = !noLockdown && file.lockdown.enabled != false
        o.serviceKeys = try serviceKeys.map { $0.isEmpty ? nil : try ServiceKeys(parsing: $0) } ?? file.lockdown.serviceKeys
        o.update = file.update
        o.kernel = .ofThisMachine()
        return o
    }
}

/// `run` on the command line the appliance and the systemd unit use (InkCommandLine's
/// `ShortRunLine`: why it is read without swift-argument-parser, and which lines it takes).
struct ShortRunArguments: KioskFlags {
    let line: ShortRunLine

    var config: String? { line.config }
    var journal: String? { line.journal }
    var requireConsole: Bool { line.requireConsole }
    var seat: String? { nil }
    var card: String? { nil }
    var connector: String? { nil }
    var mode: String? { nil }
    var kms: KMSInterface? { nil }
    var tty: String? { nil }
    var parsedCalibration: [Float]? { nil }
    var allowVTSwitch: Bool { false }
    var latencyStats: String? { nil }
    var noPrediction: Bool { false }
    var kioskMode: KioskMode? { nil }
    var outbox: String? { nil }
    var saveDir: String? { nil }
    var api: String? { nil }
    var noLockdown: Bool { false }
    var logLevel: Logger.Level? { nil }
    var serviceKeys: String? { nil }

    static func matching(_ arguments: [String]) -> ShortRunArguments? {
        ShortRunLine.matching(arguments).map(ShortRunArguments.init(line:))
    }

    /// What `RunCommand.run` does with the same flags; errors end the process as the command's would.
    func run(trace: StartupTrace) {
        var trace = trace
        trace.mark("arguments")
        do {
            try forbidCoreDumps()
            try runKiosk(self, trace: trace) { try options(nil) }
        } catch {
            RunCommand.exit(withError: error)
        }
    }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "The kiosk: take over the screen (DRM/KMS) and the seat (libinput) and draw with pen and fingers.",
        discussion: "Stops on SIGTERM or SIGINT, restoring the console.")

    @OptionGroup var kiosk: KioskArguments
    @OptionGroup var ink: InkOptions

    func run() throws {
        let trace = StartupTrace()
        try forbidCoreDumps()
        try runKiosk(kiosk, trace: trace) { try kiosk.options(ink) }
    }
}

/// First thing, before the config is read (it reads the API's token to check it): neither a
/// core file nor another process of this user may see what this process holds (signatures,
/// pupils' work, the token, a private key).
func forbidCoreDumps() throws {
    do { try CoreDumps.forbid() } catch { throw CleanExit.message("\(error)", code: 1) }
}

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Run the kiosk and record everything it receives, for `inkkiosk replay`.")

    @Argument(help: "Where to write the recording (.inklog), on exit.")
    var output: String

    @OptionGroup var kiosk: KioskArguments
    @OptionGroup var ink: InkOptions

    func run() throws {
        let trace = StartupTrace()
        try forbidCoreDumps()
        try runKiosk(kiosk, trace: trace) { try kiosk.options(ink, record: output) }
    }
}

struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a configuration file: every unknown key, wrong type or out-of-range value, with its line.")

    @Argument(help: "The configuration file (TOML).")
    var file: String

    func run() throws {
        do {
            let config = try KioskConfig.load(path: file)
            print("\(file): ok")
            if let key = config.screen.capture.encryptTo { print("signatures are stored encrypted to the X25519 key \(key.fingerprint)") }
            if config.screen.capture.storePlaintext { print("signatures are stored in plaintext (store_plaintext = true)") }
            if let signer = config.screen.capture.signWith {
                let lock = switch config.screen.capture.documentLock {
                case .none: ""
                case .certify: " that certifies them: no later change allowed"
                case .certifyFormFilling: " that certifies them: later only form filling and signing"
                case .fields: " that locks their fields"
                }
                print("signed PDFs get a PAdES signature by \(signer.subject) (\(signer.keyDescription))\(lock)")
                if let warning = signer.warning { print("warning: \(warning)") }
            }
            if !config.screen.capture.keepSignedPDF {
                print("signed PDFs are not written to the outbox (keep_signed_pdf = false): the host fetches them from the kiosk's memory")
            }
        } catch let e as ConfigError {
            throw CleanExit.message("\(e.problems.count) problem\(e.problems.count == 1 ? "" : "s"):\n\(e)", code: 1)
        }
    }
}

/// The kiosk with the options `readOptions` makes (the configuration's read, the flags over it).
/// Meanwhile the screen the flags name is opened on a second core (`DisplayOpening`): the
/// configuration usually names no other.
func runKiosk(_ flags: some KioskFlags, trace: StartupTrace, readOptions: () throws -> KioskOptions) throws {
    var trace = trace
    // Before anything takes the console or starts a thread: a SIGTERM during start-up waits
    // for the loop (which restores the console), and no thread but the loop's ever takes one.
    Kiosk.holdTerminationSignals()
    let display = DisplayOpening(DisplayOpening.Choice(card: flags.card, connector: flags.connector, mode: flags.mode))
    let options = try readOptions()
    trace.mark("configuration")
    do {
        let kiosk = try Kiosk(options: options, trace: trace, display: display)
        try kiosk.run()
        if kiosk.stoppedByServiceKeys { throw ExitCode(Kiosk.serviceExitStatus) }
    } catch let e as ExitCode {
        throw e
    } catch {
        throw CleanExit.message("\(error)", code: 1)
    }
}
