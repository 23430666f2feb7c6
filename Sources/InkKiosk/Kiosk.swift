// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkConfig
import Glibc
import InkCore
import InkStorage
import InkRender
import InkInput
import InkDisplay
import InkPipeline
import InkLoop
import InkAPI
import InkLog
import Logging

public struct KioskOptions: Sendable {
    public var seat = "seat0"
    public var card: String? = nil
    public var connector: String? = nil
    public var mode: String? = nil
    /// Atomic or legacy KMS (`[display] kms`, `--kms`).
    public var kms = KMSInterface.auto
    public var tty: String? = nil
    /// Calibration matrix for touchscreens and screen tablets (6 numbers, libinput's order).
    public var calibration: [Float]? = nil
    /// Lock VT switching (a kiosk) instead of handling it (a device a technician may switch away from).
    public var lockVT = true
    /// Carry on without a console (e.g. started from ssh); the console may then show through.
    public var requireConsole = false
    public var pipeline = PipelineOptions()
    public var recordPath: String? = nil
    /// The stroke journal: every finished edit is synced here, and restored on start.
    public var journalPath: String? = nil
    /// How many journals put aside as unreadable are kept, and how long.
    public var damagedJournals = DamagedJournals.standard
    public var statsPath: String? = nil
    /// The mode's screen: signature, classroom, or ink only.
    public var screen = ScreenSettings()
    public var configure: @Sendable (inout InteractionSettings) -> Void = { _ in }
    /// Take every input device exclusively and turn SysRq off: no key leaves the kiosk (Lockdown).
    public var lockdown = true
    /// The key combination that stops the kiosk (for technicians); nil: none.
    public var serviceKeys: ServiceKeys? = nil
    /// `[update]`: the hardware watchdog, the ready and busy files.
    public var update = UpdateSettings()
    /// The kernel's command line (`/proc/cmdline`, read by the caller): the disk image's slot
    /// and version, and the image tests' switches.
    public var kernel = KernelCommandLine("")
    public init() {}
}

/// `inkkiosk run`: libinput in, DRM/KMS out, one thread. A frame is drawn when input is
/// pending and no page flip is in flight; everything that arrived meanwhile goes into it.
public final class Kiosk {
    public let display: DRMDisplay
    /// The seat, once taken (`takeSeat`). It is opened after the first frame, on a thread of its
    /// own (`openSeat`): libinput is loaded then (with its stack, nine libraries: the loader maps
    /// none of them before `main`), and reads its quirks and udev's devices, while the loop goes on.
    private var seat: LibinputSeat?
    private var seatOpening: StartedElsewhere<LibinputSeat>?
    private let openSeat: @Sendable () throws -> LibinputSeat
    /// Readable once the seat's thread has opened it, or failed to.
    private let seatOpened: WakeSignal
    /// Why the seat could not be opened: the kiosk then stops, and exits non-zero.
    private var seatFailure: (any Error)?
    public let pipeline: FramePipeline
    private let console: Console?
    private let connectors: ConnectorMonitor?
    private let loop: EventLoop
    private let recorder: SessionRecorder?
    /// The journal's writer thread: finished edits go to disk without the ink waiting.
    private let journal: JournalWriter?
    /// The writer knocks here after each sync or failure.
    private let journalWake: WakeSignal?
    /// Where a signature's files and a notebook's pages are written: never on this thread.
    private let chores: BackgroundChores
    /// Why the journal last failed, while it fails (the screen shows it).
    private var storageProblem: String?
    private let options: KioskOptions
    /// The mode's screen.
    public let screen: KioskScreen
    /// The local signature API, when a host drives the signature screen.
    private let api: SignatureAPIServer?
    /// Readable once the API has stopped for good: the kiosk then exits non-zero, so that systemd
    /// restarts it; a kiosk must never look alive to the POS without its API.
    private let apiStopped: WakeSignal?
    private var latency = LatencyLog()
    private var oldestUnrendered: Double?
    /// Touch and screen-tablet positions onto the canvas, wherever the screen shows it.
    private var canvasInput = CanvasInput()
    private var running = true
    /// Set when the kiosk stops because its signature API stopped for good: it then exits non-zero.
    private var apiFailure: String?
    /// A technician held the service keys: the kiosk stopped on purpose, not to be restarted.
    public private(set) var stoppedByServiceKeys = false
    /// The exit status for that (the systemd unit's RestartPreventExitStatus=).
    public static let serviceExitStatus: Int32 = 10
    /// Descriptors the kiosk needs besides the API's connections: DRM, input devices, epoll,
    /// the journal and its compaction, capture and save files, with room to spare.
    static let ownDescriptors: UInt64 = 128
    private var active = true
    /// Where the start-up time went, logged once with the first frame.
    private var trace: StartupTrace
    /// What started, and how (the journal's restore, the screen, the API, the priority): info
    /// lines written after the first frame. The process's first log line costs 10-15 ms under
    /// emulation (its formatting's first run), which the paper need not wait for; warnings and
    /// errors are written at once.
    private var startupReport: [String] = []
    private var firstFrameShown = false
    private var serviceKeys: ServiceKeyWatcher?
    /// systemd's notify socket: ready, watchdog pings, status lines (nil when not under systemd).
    private lazy var notifier = ServiceNotifier(log: log)
    private var idleStatus = IdleStatus()
    /// `[update] watchdog`: fed after each turn of the loop (nil: none).
    private var watchdog: HardwareWatchdog?
    private var watchdogFailing = false
    /// Why the configured watchdog could not be armed: then the kiosk is never "ready".
    private var watchdogMissing: String?
    /// `[update] busy_file`: present while the screen has a session an update must not cut.
    private var busy: BusyMarker?
    /// The kernel time of the newest input handled, and frames drawn: what the status reports.
    private var newestInput = 0.0
    private var framesDrawn = 0
    /// Where status lines go (stderr, the journal under systemd); the screen shows only what a user needs.
    private let log = Logger(label: "inkkiosk")

    /// `display`: the screen being opened beside the configuration's read (`DisplayOpening`);
    /// nil: opened here.
    public init(options: KioskOptions, trace: StartupTrace = StartupTrace(), display opening: DisplayOpening? = nil) throws {
        if options.screen.mode == .signature && !options.screen.capture.signatureStorageChosen {
            throw KioskError.unsealedSignatures
        }
        self.options = options
        self.trace = trace
        var report: [String] = []
        // The order and what runs beside what: `KioskStartup`.
        let scrubbing = options.screen.mode == .signature, hosted = scrubbing && options.screen.api.address != nil
        let journalOpening = KioskStartup.openJournal(path: options.journalPath, scrubbing: scrubbing, hosted: hosted)
        loop = try EventLoop()
        display = try KioskStartup.takeDisplay(options, opening: opening)
        self.trace.mark("display")
        console = try KioskStartup.takeConsole(options)
        let settings = KioskStartup.interactionSettings(options, display: display.size)
        openSeat = KioskStartup.seatOpener(options, settings: settings)
        seatOpened = try WakeSignal()
        connectors = try? ConnectorMonitor()
        self.trace.mark("console")
        let metrics = options.screen.metrics(size: display.size, widthMM: display.connector.widthMM)
        screen = try KioskStartup.makeScreen(options, metrics: metrics, report: &report, log: log)
        let (booted, bootWarning) = options.kernel.bootedImage()
        if let bootWarning { log.warning("\(bootWarning)") }
        if let booted { report.append("booted from the disk image: \(booted)") }
        let started = try KioskStartup.startAPI(options, screen: screen, booted: booted, report: &report, log: log)
        (api, apiStopped) = (started?.server, started?.stopped)
        self.trace.mark("screen")
        pipeline = try KioskStartup.makePipeline(options, settings: settings, display: display, refreshHz: display.refreshHz)
        chores = try BackgroundChores.onThread()
        self.trace.mark("pipeline")
        recorder = options.recordPath.map(SessionRecorder.init)
        let restored = try KioskStartup.restoreJournal(journalOpening, into: pipeline, hosted: hosted, report: &report, log: log)
        (journal, journalWake) = (restored?.writer, restored?.wake)
        self.trace.mark("journal")
        if console == nil { log.notice("no virtual terminal to take over: the console is left as it is") }
        report.append("\(display.card.path) \(display.connector.name) \(display.size)@\(display.refreshHz)Hz \(Int(metrics.dpi.rounded())) dpi, seat \(options.seat), \(options.screen.mode.rawValue) mode")
        report.append("\(display.card.path) (\(display.card.driverName)): \(display.scanout)")
        serviceKeys = options.serviceKeys.map(ServiceKeyWatcher.init)
        startupReport = report
        self.trace.mark("log lines")
    }

    /// The signals the loop reads through its signalfd: termination, and the VT's release and acquire.
    static let loopSignals = [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2]

    /// Blocks the loop's signals for this thread and every thread started after it; they wait,
    /// pending, until the loop reads them.
    public static func holdTerminationSignals() {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in loopSignals { sigaddset(&mask, s) }
        sigprocmask(SIG_BLOCK, &mask, nil)
    }

    /// Runs until SIGTERM or SIGINT; the console is restored on the way out.
    public func run() throws {
        // From here on this thread only reads input and makes frames: it goes first.
        let priority = raiseToInkPriority()
        if priority.raised { startupReport.append(priority.line) } else { log.warning("\(priority.line)") }
        try loop.watch(display.fileDescriptor) { [unowned self] in display.handleEvents() }
        if let connectors {
            try loop.watch(connectors.fileDescriptor) { [unowned self] in
                guard connectors.drain() else { return }
                switch display.checkConnector() {
                case .unplugged: log.notice("\(display.connector.name) unplugged: drawing continues off screen")
                case .replugged, .modeChanged: pipeline.redrawAll()   // the display logs what it shows, and how
                case .none: break
                }
            }
        }
        display.onFlipComplete = { [unowned self] time in latency.flipCompleted(at: time, now: monotonicNow()) }
        try loop.watch(signals: Self.loopSignals) { [unowned self] signal in handle(signal) }
        for fd in screen.wakeFDs { try loop.watch(fd) { [unowned self] in updateScreen() } }
        if let journalWake { try loop.watch(journalWake.fd) { [unowned self] in journalWake.drain(); journalChanged() } }
        if let apiStopped, let api {
            try loop.watch(apiStopped.fd) { [unowned self] in
                apiStopped.drain()
                let why = api.failure ?? "the signature API stopped"
                log.notice("stopping: \(why)")
                apiFailure = why
                running = false
            }
        }
        if let fd = chores.wakeFD { try loop.watch(fd) { [unowned self] in chores.deliver(); updateScreen() } }
        if let interval = notifier?.watchdogInterval { startupReport.append(String(cFormat: "systemd watchdog: %.1f s", interval)) }
        try startUpdateSignals()
        try loop.watch(seatOpened.fd) { [unowned self] in
            seatOpened.drain()
            do { try takeSeat() } catch {
                log.error("stopping: \(error)")
                seatFailure = error
                running = false
            }
        }
        try drawIfDue()
        // The first frame is on screen: the seat opens on a second core while this one lays the
        // canvas's paper and brings the other scanout buffer up to date, before the first stroke
        // needs either.
        let opened = seatOpened
        seatOpening = StartedElsewhere(name: "ink-seat-open", made: { opened.signal() }, openSeat)
        pipeline.layPaper()
        display.prepareBackBuffer()
        pruneDamagedJournals()
        while running {
            let handled = try loop.runOnce(timeout: nextWake())
            try drawIfDue()
            tick(handled: handled)
        }
        notifier?.send(["STOPPING=1"])
        try finish()
        endUpdateSignals(clean: apiFailure == nil && seatFailure == nil)
        if let apiFailure { throw KioskError.apiStopped(why: apiFailure) }
        if let seatFailure { throw seatFailure }
    }

    /// `[update]`: the watchdog is armed before the first frame (a kiosk that never gets that far
    /// resets the machine too); a busy file left by a crashed run goes. A watchdog that cannot be
    /// armed does not stop the kiosk (a board would boot into the same failure again and again):
    /// it draws on, says so, and never says it is ready, so the image does not confirm the boot.
    private func startUpdateSignals() throws {
        let update = options.update
        if let path = update.watchdog {
            do {
                let armed = try HardwareWatchdog(path: path, timeout: update.watchdogTimeout)
                watchdog = armed
                startupReport.append("hardware watchdog \(path): \(armed.timeout) s, fed from the loop every \(String(cFormat: "%.1f", Double(armed.timeout) / 4)) s"
                                     + (armed.timeout != update.watchdogTimeout ? " (asked for \(update.watchdogTimeout) s: the driver's nearest)" : ""))
            } catch {
                let reason = "[update] watchdog: \(error)"
                watchdogMissing = reason
                log.error("\(reason); the kiosk runs without it and does not say it is ready: this boot will not be confirmed")
            }
        }
        if let path = update.busyFile {
            do { busy = try BusyMarker(path: path) } catch { throw KioskError.updateFile(key: "busy_file", cause: error) }
        }
        if let path = update.readyFile {
            do { try StateFile(path: path).remove() } catch { throw KioskError.updateFile(key: "ready_file", cause: error) }
        }
    }

    /// The ready file once the kiosk works: its first frame on screen, its input devices open.
    private func sayReady() {
        guard let path = options.update.readyFile else { return }
        if let watchdogMissing {
            log.error("not ready (\(path) not written): \(watchdogMissing)")
            return
        }
        var up = timespec()
        clock_gettime(CLOCK_BOOTTIME, &up)
        do {
            try StateFile(path: path).write(String(cFormat: "pid %d, up %.3f s: first frame on screen, input open\n", getpid(),
                                                   Double(up.tv_sec) + Double(up.tv_nsec) / 1e9))
            log.notice("ready: \(path) written")
        } catch {
            // Nothing confirms this boot then: the image falls back at the next one. Said loudly.
            log.error("[update] ready_file: \(error); an update engine waiting for it will not confirm this boot")
        }
    }

    /// A clean stop disarms the watchdog and removes the files; after a failure the watchdog
    /// stays armed (a restarted kiosk feeds it again, else the machine resets).
    private func endUpdateSignals(clean: Bool) {
        if clean { watchdog?.disarm() }
        if let path = options.update.readyFile { try? StateFile(path: path).remove() }
        if let error = busy?.update(nil) { log.warning("[update] busy_file: \(error)") }
    }

    /// Takes the seat its thread has opened: the devices come in with the first read.
    private func takeSeat() throws {
        guard let opening = seatOpening else { return }
        seatOpening = nil
        let seat = try opening.take()
        self.seat = seat
        try loop.watch(seat.fileDescriptor) { [unowned self] in readInput() }
        // The seat holds every device (EVIOCGRAB) from here: SysRq's own switch can go too.
        Lockdown.engage(options, seat: seat, log: log)
        log.info("\(trace.followUp("input ready"))")
        readInput()
        notifier?.send(["READY=1", "STATUS=\(status("Ready"))"])
        sayReady()
    }

    /// Removes journals put aside as unreadable beyond `[storage] damaged_keep` and
    /// `damaged_days`, on the chores' thread: a directory listing on a slow card is nothing the
    /// first frame should wait for.
    private func pruneDamagedJournals() {
        guard let path = journal?.path else { return }
        let damaged = options.damagedJournals
        chores.run({ try damaged.prune(path) }) { [log] outcome in
            switch outcome {
            case .success(let removed) where !removed.isEmpty:
                log.notice("journal \(path): removed \(removed.count) old damaged journals: \(removed.joined(separator: ", "))")
            case .failure(let error): log.warning("journal \(path): cannot remove old damaged journals: \(error)")
            default: break
            }
        }
    }

    private func readInput() {
        guard let seat else { return }
        for e in seat.dispatch() {
            switch e {
            case .added(let d):
                pipeline.addDevice(d)
                canvasInput.added(d)
                recorder?.added(d)
                log.info("input device \(d.id): \(d.name) (\(d.kind.rawValue)\(d.direct ? ", direct" : ""))")
            case .removed(let id):
                recorder?.removed(id, at: monotonicNow())
                pipeline.removeDevice(id)
                canvasInput.removed(id)
                log.info("input device \(id) removed")
            case .input(let raw):
                let event = canvasInput.map(raw, display.placement)
                recorder?.record(event)
                pipeline.handle(event)
                if oldestUnrendered == nil { oldestUnrendered = event.time }
                newestInput = max(newestInput, event.time)
            case .key(let code, let pressed, let time):   // keys are not ink: not recorded
                newestInput = max(newestInput, time)
                if serviceKeys?.key(code, pressed: pressed) == true {
                    log.notice("service keys held: stopping (exit status \(Self.serviceExitStatus))")
                    stoppedByServiceKeys = true
                    running = false
                }
            }
        }
        saveEdits()
        updateScreen()
    }

    /// The screen acts on presses (and host requests); what that changed is saved at once.
    private func updateScreen() {
        do { try screen.update(screenContext) } catch { log.error("screen: \(error)") }
        saveEdits()
        if firstFrameShown { paintPagesAhead() }
    }

    /// What the screen works with; made once, not per input batch.
    private lazy var screenContext = ScreenContext(pipeline: pipeline, journal: journal, chores: chores, log: log)

    /// Finished edits go to the journal's writer thread at once; the ink never waits for the disk.
    private func saveEdits() { journal?.save(from: pipeline) }

    /// Pages painted so far while nobody looked (page, revision, backdrop): each is tried once.
    private var paintedAhead: Set<[Int]> = []
    private var paintingAhead = false
    /// The pipeline's `pageChanges` when the last look found nothing to paint: until the pages
    /// change again, an input batch does not look again.
    private var nothingToPaintAt = -1

    /// Paints the pages not on screen, one at a time, off this thread, so that turning to one
    /// (after a restart too) shows it within a frame; stops when the page cache is three-quarters full.
    private func paintPagesAhead() {
        guard !paintingAhead, pipeline.pageChanges != nothingToPaintAt else { return }
        guard pipeline.snapshots.bytes < pipeline.snapshots.budget * 3 / 4,
              let next = pipeline.pagesToPaint().first(where: { !paintedAhead.contains([$0.page, $0.revision, $0.paper.backdrop]) })
        else {
            nothingToPaintAt = pipeline.pageChanges
            return
        }
        paintedAhead.insert([next.page, next.revision, next.paper.backdrop])
        paintingAhead = true
        let backdrop = next.paper, strokes = next.strokes
        chores.run({ try FrameRenderer.paintPage(strokes, backdrop: backdrop) }) { [unowned self] outcome in
            paintingAhead = false
            if case .success(let snapshot) = outcome { pipeline.keepPainted(snapshot, page: next.page, revision: next.revision) }
            paintPagesAhead()
        }
    }

    /// The writer synced or failed: when the disk refuses, the screen says so and drawing
    /// carries on (the writer keeps the edits and retries); the warning goes once they are saved.
    private func journalChanged() {
        guard let journal else { return }
        let state = journal.state
        guard state.problem != storageProblem else { return }
        if let problem = state.problem {
            log.warning("cannot save ink (\(state.problemDetail ?? problem)); \(state.waiting) edits kept in memory, retried every second")
        } else {
            log.notice("ink is being saved again")
        }
        storageProblem = state.problem
        screen.storageWarning = state.problem
        updateScreen()
    }

    private func drawIfDue() throws {
        // A display that failed retries by itself (display.retryDue); a failed flip never throws.
        guard active, pipeline.needsFrame || display.retryDue, !display.flipPending else { return }
        let report = try pipeline.renderFrame()
        latency.frame(oldestEvent: oldestUnrendered, flipRequested: monotonicNow(), render: report.renderSeconds)
        oldestUnrendered = nil
        framesDrawn += 1
        idleStatus.activity(at: monotonicNow())   // a mode set has no flip event to wake the loop
        if !firstFrameShown {
            firstFrameShown = true
            let started = trace.summary("first frame on screen", lastStep: "first frame")
            trace.mark("first frame")
            paintPagesAhead()
            log.info("\(started)")
            for line in startupReport { log.info("\(line)") }
            startupReport = []
            if options.kernel.value(Self.testHangSwitch) == "first-frame" { hangForTest() }
        }
    }

    /// TEST ONLY (scripts/image/watchdog-test.py): `ik.test.hang=first-frame` on the kernel
    /// command line stops the loop right after its first frame, as a kiosk stuck in a bug would:
    /// the screen stays, the other threads run on, the watchdog is fed no more and no ready file
    /// is written. Never set on a machine in use.
    static let testHangSwitch = "ik.test.hang"

    private func hangForTest() -> Never {
        let fed = watchdog.map { "; the watchdog \($0.path) is no longer fed (\($0.timeout) s)" } ?? ""
        log.critical("TEST ONLY: \(Self.testHangSwitch)=first-frame on the kernel command line: the loop stops here\(fed)")
        while true { sleep(3600) }
    }

    /// How long the loop may sleep: until the watchdog's next ping, the idle status or the
    /// display's deadline is due.
    private func nextWake() -> Int32 {
        let now = monotonicNow()
        let waits = [idleStatus.until(now: now), notifier?.untilPing(now: now), watchdog?.untilFeed(now: now),
                     display.secondsUntilDeadline()].compactMap { $0 }
        guard let soonest = waits.min() else { return -1 }
        return Int32(min((soonest * 1000).rounded(.up), 60_000))
    }

    /// After every turn of the loop: the watchdog ping (from the loop itself, so a hung loop
    /// stops pinging), and a status line once the screen has caught up with the input.
    private func tick(handled: Int) {
        let now = monotonicNow()
        if handled > 0 { idleStatus.activity(at: now) }
        notifier?.pingIfDue(now: now)
        feedWatchdog(now: now)
        if busy != nil, let error = busy?.update(screen.busy(pipeline)) { log.warning("[update] busy_file: \(error)") }
        guard idleStatus.takeDue(now: now) else { return }
        if pipeline.needsFrame || display.flipPending {
            idleStatus.activity(at: now)   // not caught up yet: ask again after the next quiet moment
        } else {
            notifier?.send(["STATUS=\(status("Idle"))"])
        }
    }

    /// From the loop itself, like systemd's ping: a failed feed is said once (the machine may
    /// reset within the timeout), and again when it works.
    private func feedWatchdog(now: Double) {
        guard let watchdog else { return }
        do {
            try watchdog.feedIfDue(now: now)
            if watchdogFailing { log.notice("hardware watchdog \(watchdog.path) is fed again") }
            watchdogFailing = false
        } catch {
            if !watchdogFailing { log.error("hardware watchdog: \(error); the machine resets within \(watchdog.timeout) s") }
            watchdogFailing = true
        }
    }

    /// One line for `systemctl status`; "input to T" is the kernel time of the newest input on screen.
    private func status(_ state: String) -> String {
        let n = pipeline.notebook
        return "\(state): \(pipeline.document.strokes.count) strokes on page \(n.current + 1) of \(n.count); "
            + "\(framesDrawn) frames; input to \(String(cFormat: "%.6f", newestInput)) s on screen"
            + (journal.map { "; \($0.state.waiting) edits to save" } ?? "")
            + (storageProblem.map { "; cannot save: \($0)" } ?? "")
            + (screen.status(pipeline).map { "; \($0)" } ?? "")
            + "; " + ProcessMemory.peakLine()
    }

    private func handle(_ signal: Int32) {
        switch signal {
        case SIGUSR1:   // the VT is being switched away: let go of the display
            active = false
            display.release()
            console?.allowRelease()
        case SIGUSR2:   // back on our VT
            display.acquire()
            console?.acknowledgeAcquire()
            active = true
            pipeline.redrawAll()
        default:
            log.notice("signal \(signal): stopping")
            running = false
        }
    }

    private func finish() throws {
        // A signature being written is finished first: its outcome still reaches the host.
        if !chores.stop(timeout: 10) { log.warning("files still being written at exit") }
        chores.deliver()
        updateScreen()
        api?.stopBlocking()
        if let journal {
            if !journal.stop(timeout: 5) {
                log.warning("\(journal.state.waiting) edits could not be saved before exit (\(journal.state.problem ?? "the disk is too slow"))")
            }
            let s = journal.state
            log.info(Logger.Message(stringLiteral: String(cFormat: "journal: %d edits saved; hand-over → on disk: last %.0f ms, worst %.0f ms",
                       s.saved, s.lastDurability * 1000, s.worstDurability * 1000)))
        }
        try recorder?.write()
        if let path = options.statsPath {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var report = latency.report
            report.peakRSSMiB = (ProcessMemory.peakMiB() * 100).rounded() / 100
            try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        }
        let r = latency.report
        log.info(Logger.Message(stringLiteral: String(cFormat: "%d frames; input→flip median %.2f ms p99 %.2f ms; flip→scanout median %.2f ms p99 %.2f ms; render median %.2f ms p99 %.2f ms",
                   r.frames, r.inputToFlipMs.median, r.inputToFlipMs.p99, r.flipToScanoutMs.median, r.flipToScanoutMs.p99,
                   r.renderMs.median, r.renderMs.p99)))
        log.info("\(ProcessMemory.peakLine())")
        console?.restore()
    }
}
