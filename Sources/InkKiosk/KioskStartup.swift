// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkAPI
import InkConfig
import InkCore
import InkDisplay
import InkInput
import InkLoop
import InkPipeline
import InkStorage
import Logging

/// The kiosk's start-up, one named step each, in the order `Kiosk.init` runs them:
///
/// | step | runs | beside it |
/// | --- | --- | --- |
/// | `openJournal` | starts the journal's read on a thread of its own | until `restoreJournal` |
/// | `takeDisplay` | the display opened beside the configuration's read (`DisplayOpening`), or opened now | |
/// | `takeConsole` | the VT into graphics mode | |
/// | `seatOpener` | what opens the seat, run after the first frame (`Kiosk.run`) | the loop, from then on |
/// | `makeScreen` | the mode's screen; a signature outbox's unfinished captures swept | |
/// | `startAPI` | the signature API, when a host drives the screen | its own threads from here |
/// | `makePipeline` | the frame pipeline, the background chores' thread | |
/// | `restoreJournal` | the journal's read taken, its ink restored, its writer started | its writer thread from here |
///
/// Each step takes what the steps before it made and says what it did in `report` (info lines
/// logged after the first frame: the first log line costs more than the paper may wait).
enum KioskStartup {
    /// Reading the journal goes on beside the display's and the pipeline's set-up. On a first
    /// start the new file's sync (50-200 ms on an SD card) is the writer thread's, beside the
    /// first frame: there is no ink in it to wait for. A signature's journal holds biometric
    /// samples: it is scrubbed (zeros over them before a cut). `hosted`: a host's request died
    /// with the last process, and its half-drawn signature goes too.
    static func openJournal(path: String?, scrubbing: Bool, hosted: Bool) -> StartedElsewhere<StrokeJournal>? {
        path.map { path in
            StartedElsewhere(name: "ink-journal-open") {
                let journal = try StrokeJournal(path: path, scrubbing: scrubbing, damaged: .unlimited, syncingNewFile: false)
                if hosted && !journal.recovered.isEmpty {
                    do { try journal.reset() } catch {
                        Logger(label: "inkkiosk.journal").warning("cannot empty the journal of the request that ended with the last run: \(error)")
                    }
                }
                return journal
            }
        }
    }

    static func takeDisplay(_ options: KioskOptions, opening: DisplayOpening?) throws -> DRMDisplay {
        try opening?.take(for: options.displayChoice, kms: options.kms)
            ?? DRMDisplay(cardPath: options.card, connectorName: options.connector, modeName: options.mode,
                          blank: DisplayOpening.paper, kms: options.kms)
    }

    /// Nil without a VT to take, unless one is required.
    static func takeConsole(_ options: KioskOptions) throws -> Console? {
        do {
            return try Console(path: options.tty, switching: options.lockVT ? .locked : .handled(release: SIGUSR1, acquire: SIGUSR2))
        } catch {
            if options.requireConsole { throw error }
            return nil
        }
    }

    /// How input becomes ink on this display: the options' settings, the screen's size.
    static func interactionSettings(_ options: KioskOptions, display size: PixelSize) -> InteractionSettings {
        var settings = InteractionSettings(screen: size)
        options.configure(&settings)
        settings.screen = size
        return settings
    }

    /// What opens the seat (libinput, its quirks, udev's devices): run on a thread of its own
    /// once the first frame is on screen.
    static func seatOpener(_ options: KioskOptions, settings: InteractionSettings) -> @Sendable () throws -> LibinputSeat {
        let everyDevice = options.calibration
        let seatName = options.seat, exclusive = options.lockdown
        return {
            try LibinputSeat(seat: seatName, exclusive: exclusive) { name in
                settings.device(named: name)?.calibration ?? everyDevice
            }
        }
    }

    /// The mode's screen. A classroom's worksheets and a host's documents are read from a thread
    /// of their own ("sheets"). A crash or power cut during an Accept leaves a hidden
    /// `.ID.partial/` in the outbox: swept here, so that no host takes it for a capture.
    static func makeScreen(_ options: KioskOptions, metrics: ScreenMetrics, report: inout [String], log: Logger) throws -> KioskScreen {
        let mode = options.screen.mode
        let readsPDFs = mode == .classroom || (mode == .signature && options.screen.api.address != nil)
        let screen = options.screen.makeScreen(metrics: metrics, sheets: readsPDFs ? try BackgroundChores.onThread(name: "sheets") : .inline())
        guard mode == .signature else { return screen }
        let capture = options.screen.capture
        do {
            let removed = try SignatureCapture.sweep(outbox: capture.outbox)
            if !removed.isEmpty {
                log.notice("outbox \(capture.outbox): removed \(removed.count) files of unfinished captures: \(removed.joined(separator: ", "))")
            }
        } catch {
            log.warning("outbox: \(error)")
        }
        if let key = capture.encryptTo { report.append("signatures are stored encrypted to the X25519 key \(key.fingerprint)") }
        if capture.storePlaintext { log.warning("signatures are stored in plaintext ([signature] store_plaintext = true)") }
        return screen
    }

    /// The signature API when the options name an address and the screen is the signature's:
    /// started, serving the screen's desk, and the signal that says it stopped for good.
    static func startAPI(_ options: KioskOptions, screen: KioskScreen, booted: BootedImage?, report: inout [String],
                         log: Logger) throws -> (server: SignatureAPIServer, stopped: WakeSignal)? {
        guard let listen = options.screen.api.address, let signature = screen as? SignatureScreen else { return nil }
        let api = options.screen.api
        // What the host was told before this start answers again: accepted, interrupted, …
        let archive = OutboxArchive(outbox: options.screen.capture.outbox, retention: options.screen.capture.outboxRetention)
        for note in archive.notes { log.note(note) }
        report.append("signature history: \(archive.restored.count) requests restored from \(options.screen.capture.outbox)")
        let desk = try SignatureDesk(defaultTimeout: api.defaultTimeout, archive: archive)
        let address: APIAddress
        do { address = try APIAddress.parse(listen) } catch { throw KioskError.apiAddress(listen: listen, cause: error) }
        if let refusal = address.refusal(allowRemote: api.allowRemote, hasToken: !api.tokenNone) {
            throw KioskError.apiAddressRefused(listen: listen, why: refusal)
        }
        let token = try bearerToken(options, address: address, log: log)
        warnIfConnectionsExceedFiles(api.limits.maxConnections, log: log)
        let stopped = try WakeSignal()
        let server = SignatureAPIServer(desk: desk, address: address, limits: api.limits, token: token,
                                        access: api.access, documentsDirectory: options.screen.apiDocumentsPath,
                                        documentPolicy: options.screen.capture.documentPolicy, image: booted) { _ in stopped.signal() }
        try server.startBlocking()
        signature.serve(desk)
        report.append("signature API on \(server.address)")
        return (server, stopped)
    }

    /// On TCP a token is always asked for ([api] token = "none" says otherwise, in so many
    /// words); at the first start the kiosk makes one. Refused: world-readable, too weak.
    private static func bearerToken(_ options: KioskOptions, address: APIAddress, log: Logger) throws -> BearerToken? {
        let api = options.screen.api
        guard api.needsToken(address) else {
            if case .tcp = address {
                log.warning("signature API on \(address) without a bearer token ([api] token = \"none\"): every program on this machine may ask for signatures")
            }
            return nil
        }
        let path = options.screen.apiTokenPath
        let (token, created) = try BearerToken.loadOrCreate(path: path, group: api.tokenGroup)
        log.notice(Logger.Message(stringLiteral: created
            ? "signature API: made a new bearer token in \(path) (mode 0640, group \(api.tokenGroup ?? UInt32(getegid()))): "
                + "hosts send it as Authorization: Bearer <token>"
            : "signature API: bearer token from \(path)"))
        return token
    }

    /// Connections would take the descriptors the journal and the outbox need.
    private static func warnIfConnectionsExceedFiles(_ maxConnections: Int, log: Logger) {
        var files = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0,
              UInt64(maxConnections) + Kiosk.ownDescriptors > UInt64(files.rlim_cur) else { return }
        log.warning(Logger.Message(stringLiteral: "[api] max_connections = \(maxConnections) and the kiosk's own "
            + "\(Kiosk.ownDescriptors) descriptors exceed the open-file limit \(files.rlim_cur): raise LimitNOFILE or lower max_connections"))
    }

    /// Prediction looks one refresh ahead of the real display, not of a nominal 60 Hz.
    static func makePipeline(_ options: KioskOptions, settings: InteractionSettings, display: Display,
                             refreshHz: Int) throws -> FramePipeline {
        var pipelineOptions = options.screen.pipelineOptions(options.pipeline)
        if refreshHz > 0 { pipelineOptions.fps = Double(refreshHz) }
        pipelineOptions.afterPageChange = { FreeMemory.returnSoon() }
        return try FramePipeline(settings: settings, devices: [], display: display, options: pipelineOptions)
    }

    /// The journal's read, taken (it ran beside the steps before): its ink restored into the
    /// pipeline (not a hosted request's: emptied as it was opened), its writer thread started,
    /// and what the last run left beyond the notebook's own history compacted off this thread.
    /// Nil without a journal, or when it cannot be read (said: ink will not survive a restart).
    static func restoreJournal(_ opening: StartedElsewhere<StrokeJournal>?, into pipeline: FramePipeline, hosted: Bool,
                               report: inout [String], log: Logger) throws -> (writer: JournalWriter, wake: WakeSignal)? {
        guard let opening else { return nil }
        let journal: StrokeJournal
        do { journal = try opening.take() } catch {
            log.error("\(error); ink will not survive a restart")
            return nil
        }
        if let warning = journal.warning { log.warning("\(warning)") }
        for note in journal.notes { log.note(note.about("journal \(journal.path)"), routine: .notice) }
        if !hosted && !journal.recovered.isEmpty {
            pipeline.restore(journal.recovered, devices: journal.restoredDevices)
        }
        report.append("journal \(journal.path): restored \(journal.recovered.count) edits, \(pipeline.document.strokes.count) strokes")
        let wake = try WakeSignal()
        let writer = JournalWriter(journal: journal) { wake.signal() }
        let compacted = pipeline.notebook.compacted()
        if compacted.count < journal.recovered.count { writer.compact(compacted, deviceNames: pipeline.deviceNames) }
        return (writer, wake)
    }
}
