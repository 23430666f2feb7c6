// SPDX-License-Identifier: Apache-2.0
import CLibDRM
import Glibc
import Logging
import InkCore
import InkRender

/// The screen through DRM/KMS: the first connected connector (or a named one) in its preferred
/// mode (or a named one), two dumb buffers flipped with page-flip events. Frames are composed in
/// RAM (`screen`, never read back from the device's buffers, which may be uncached); each buffer
/// receives only the rectangles it has not seen yet.
///
/// The kernel may refuse: a flip or a mode set fails (EBUSY, EINVAL, EACCES once another
/// program holds DRM master, ENOSPC…), a flip never completes, the screen is unplugged or
/// replaced by one with another mode. None of that ends the kiosk: frames keep being drawn in
/// RAM, what was not shown is kept, and `ScanoutRecovery` decides when to try again; every
/// failing call is logged with its errno (`FailureLog`: no flood at 60 Hz). A screen with
/// another size shows the canvas as `ScreenPlacement` says: centred, scaled down if needed.
public final class DRMDisplay: RAMDisplay, CursorPlane {
    public let card: DRMCard
    /// The frames' picture in RAM, the canvas's size: the renderer composes in it.
    public let screen: ImageSurface
    /// What `screen` and both scanout buffers were painted with when the display opened. Every
    /// page of them is written then, not in the first frame: the kiosk opens the display on a
    /// second core while it reads its configuration, so the first frame only draws what goes
    /// over the paper, and the mode set shows it.
    public let blankColor: RGBA?
    public private(set) var connector: ConnectorInfo
    /// The canvas: the mode the kiosk started in. It keeps this size whatever is plugged in later.
    public let size: PixelSize
    public private(set) var refreshHz: Int
    /// Where the canvas lies on the screen now plugged in.
    public private(set) var placement: ScreenPlacement
    private let crtcID: UInt32
    /// The kernel calls that show the buffers: atomic or legacy KMS (`kms`, and what the driver takes).
    private var backend: ScanoutBackend
    private var kms: KMSInterface
    private let crtcIndex: Int
    private let configuredMode: String?
    private var mode: drmModeModeInfo
    private var buffers: [DumbBuffer] = []
    /// The last mode's buffers, freed once the new mode is on screen (until then they may be scanned out).
    private var retired: [DumbBuffer] = []
    private var front = 0
    private var savedCrtc: UnsafeMutablePointer<drmModeCrtc>?
    private var recovery = ScanoutRecovery()
    private var failures = FailureLog()
    private var lastModeSetErrno: Int32 = 0
    /// Whether the connector has a screen; while it has none, frames stay in RAM.
    public private(set) var connected = true
    /// Counts since start, for the log and tests.
    public private(set) var failedFlips = 0, failedModeSets = 0, flipTimeouts = 0, modeSets = 0
    /// Called when a flip completes, with the vblank time (CLOCK_MONOTONIC seconds).
    public var onFlipComplete: ((Double) -> Void)?
    /// Where the display says what went wrong and what it does about it.
    public var log = Logger(label: "inkkiosk.display")

    /// `blank`: the colour the picture and the buffers start with (the paper a first frame shows).
    /// `kms`: which interface shows them (`KMSInterface`); `.atomic` throws where the driver has none.
    public init(cardPath: String? = nil, connectorName: String? = nil, modeName: String? = nil,
                blank: RGBA = RGBA(0, 0, 0, 1), kms: KMSInterface = .auto) throws {
        let (card, found) = try Self.find(cardPath: cardPath, connectorName: connectorName, modeName: modeName)
        self.card = card
        (connector, mode, crtcID, crtcIndex) = found
        self.kms = kms
        backend = try Self.backend(kms, card: card, crtc: crtcID, crtcIndex: crtcIndex, connector: found.0,
                                   log: Logger(label: "inkkiosk.display"))
        configuredMode = modeName
        size = PixelSize(width: Int(mode.hdisplay), height: Int(mode.vdisplay))
        placement = ScreenPlacement(canvas: size, screen: size)
        refreshHz = Int(mode.vrefresh)
        savedCrtc = drmModeGetCrtc(card.fd, crtcID)
        screen = try ImageSurface(size: size, format: .xrgb)
        screen.fill(with: blank)
        blankColor = blank
        try allocateBuffers()
        // The buffer the first mode set shows gets the picture's one colour (written, not copied:
        // the picture is never read back); the other is brought up to date by `prepareBackBuffer`.
        let first = buffers[1 - front]
        if let pixel = screen.withPixels({ data, _ in data.load(as: UInt32.self) }), placement.borders.isEmpty {
            first.fill(pixel)
            _ = first.stale.take()
        }
        try testBackend()
    }

    /// The first mode set tried in a test commit now (beside the configuration's read), not in the
    /// first frame: a driver whose atomic path refuses it is left to legacy KMS (`auto`), or the
    /// display does not open (`atomic`).
    private func testBackend() throws {
        guard let refused = backend.test(mode, showing: buffers[1 - front]) else { return }
        if kms == .atomic {
            throw DisplayError.atomicUnavailable(card: card.path, reason: "the driver refuses \(modeName) on \(connector.name) in a test commit (\(Errno.describe(refused)))")
        }
        fallBackToLegacy(refused)
    }

    private func fallBackToLegacy(_ refused: Int32) {
        log.warning("atomic KMS refuses \(modeName) on \(connector.name) in a test commit (\(Errno.describe(refused))): using legacy KMS")
        backend.shutDown()
        backend = LegacyScanout(fd: card.fd, crtc: crtcID, connector: connector.id, driverIsAtomic: true,
                                why: "atomic KMS refused the mode in a test commit: \(Errno.describe(refused))", log: log)
    }

    /// Brings the buffer not on screen up to date now, while the loop has time (the kiosk waits
    /// for its seat after the first frame), rather than in the next frame.
    public func prepareBackBuffer() {
        guard modeSets > 0, !recovery.flipPending else { return }
        fill(buffers[1 - front], from: screen)
    }

    /// The scanout interface `kms` asks for, as far as the driver has it.
    private static func backend(_ kms: KMSInterface, card: DRMCard, crtc: UInt32, crtcIndex: Int,
                                connector: ConnectorInfo, log: Logger) throws -> ScanoutBackend {
        if kms == .legacy {
            return LegacyScanout(fd: card.fd, crtc: crtc, connector: connector.id, driverIsAtomic: card.hasAtomicKMS,
                                 why: "[display] kms = \"legacy\"", log: log)
        }
        do {
            return try AtomicScanout(fd: card.fd, crtc: crtc, crtcIndex: crtcIndex, connector: connector.id, log: log)
        } catch {
            if kms == .atomic { throw DisplayError.atomicUnavailable(card: card.path, reason: error.description) }
            let driverIsAtomic: Bool
            if case .capRefused = error { driverIsAtomic = false } else { driverIsAtomic = true }
            return LegacyScanout(fd: card.fd, crtc: crtc, connector: connector.id, driverIsAtomic: driverIsAtomic,
                                 why: "no atomic KMS: \(error)", log: log)
        }
    }

    /// Takes `wanted` instead of the interface the display was opened with, before the first mode
    /// set: a display opened beside the configuration's read need not be opened again when the
    /// configuration names another interface. Throws as `init` does for `.atomic`.
    public func use(_ wanted: KMSInterface) throws {
        guard wanted != kms else { return }
        precondition(modeSets + failedModeSets == 0, "the KMS interface is chosen before the first mode set")
        backend.shutDown()
        backend = try Self.backend(wanted, card: card, crtc: crtcID, crtcIndex: crtcIndex, connector: connector, log: log)
        kms = wanted
        try testBackend()
    }

    /// How the frames reach the screen, for the start-up line: "atomic KMS (primary plane 31, …)".
    public var scanout: String { backend.summary }

    /// The first card (or the named one) with a connected connector (or the named one).
    private static func find(cardPath: String?, connectorName: String?, modeName: String?) throws
        -> (DRMCard, (ConnectorInfo, drmModeModeInfo, UInt32, Int)) {
        let paths = cardPath.map { [$0] } ?? DRMCard.all()
        guard !paths.isEmpty else { throw DisplayError.noCard(directory: "/dev/dri") }
        var lastError: Error = DisplayError.noConnectedConnector(cards: paths)
        for path in paths {
            do {
                let card = try DRMCard(path: path)
                if let found = try pick(card, connectorName: connectorName, modeName: modeName) { return (card, found) }
            } catch { lastError = error }
        }
        throw lastError
    }

    deinit {
        backend.shutDown()
        if let saved = savedCrtc {
            var connectorID = connector.id
            // A display that never set its mode (one opened beside the config and not used) has nothing to restore.
            if saved.pointee.mode_valid != 0 && modeSets + failedModeSets > 0 {
                let r = drmModeSetCrtc(card.fd, saved.pointee.crtc_id, saved.pointee.buffer_id, saved.pointee.x, saved.pointee.y,
                                       &connectorID, 1, &saved.pointee.mode)
                if r != 0 { log.warning("restoring the console's mode on \(connector.name) failed: \(Errno.describe(-r))") }
            }
            drmModeFreeCrtc(saved)
        }
        // Framebuffers and dumb buffers are freed while the card is still open.
        retired.removeAll()
        buffers.removeAll()
    }

    /// Poll this for readability (page-flip events); then call `handleEvents`.
    public var fileDescriptor: Int32 { card.fd }

    private static func pick(_ card: DRMCard, connectorName: String?, modeName: String?) throws
        -> (ConnectorInfo, drmModeModeInfo, UInt32, Int)? {
        guard let res = drmModeGetResources(card.fd) else {
            throw SystemCallError("read the KMS resources (drmModeGetResources) of", path: card.path)
        }
        defer { drmModeFreeResources(res) }
        for i in 0..<Int(res.pointee.count_connectors) {
            guard let c = drmModeGetConnector(card.fd, res.pointee.connectors[i]) else { continue }
            defer { drmModeFreeConnector(c) }
            let info = DRMCard.info(c)
            if let connectorName, info.name != connectorName { continue }
            guard info.connected, c.pointee.count_modes > 0 else {
                if connectorName != nil { throw DisplayError.connectorNotConnected(connector: info.name, card: card.path) }
                continue
            }
            let modes = Self.modes(of: c)
            if let modeName, !modes.contains(where: { Self.candidate($0).matches(modeName) }) {
                throw DisplayError.noSuchMode(connector: info.name, mode: modeName, available: info.modes)
            }
            guard let chosen = ModeChoice.choose(from: modes.map(Self.candidate), configured: modeName) else { continue }
            guard let crtc = crtcFor(c, res, card.fd),
                  let index = (0..<Int(res.pointee.count_crtcs)).first(where: { res.pointee.crtcs[$0] == crtc }) else {
                throw DisplayError.noCRTC(connector: info.name, card: card.path)
            }
            return (info, modes[chosen], crtc, index)
        }
        return nil
    }

    private static func modes(of c: UnsafeMutablePointer<drmModeConnector>) -> [drmModeModeInfo] {
        (0..<Int(c.pointee.count_modes)).map { c.pointee.modes[$0] }
    }

    private static func candidate(_ m: drmModeModeInfo) -> ModeCandidate {
        ModeCandidate(width: Int(m.hdisplay), height: Int(m.vdisplay), refresh: Int(m.vrefresh),
                      preferred: m.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0)
    }

    private static func crtcFor(_ c: UnsafeMutablePointer<drmModeConnector>, _ res: UnsafeMutablePointer<drmModeRes>, _ fd: Int32) -> UInt32? {
        if let enc = drmModeGetEncoder(fd, c.pointee.encoder_id) {
            defer { drmModeFreeEncoder(enc) }
            if enc.pointee.crtc_id != 0 { return enc.pointee.crtc_id }
        }
        for e in 0..<Int(c.pointee.count_encoders) {
            guard let enc = drmModeGetEncoder(fd, c.pointee.encoders[e]) else { continue }
            defer { drmModeFreeEncoder(enc) }
            for k in 0..<Int(res.pointee.count_crtcs) where enc.pointee.possible_crtcs & (1 << k) != 0 {
                return res.pointee.crtcs[k]
            }
        }
        return nil
    }

    private var modeName: String { "\(mode.hdisplay)x\(mode.vdisplay)@\(mode.vrefresh)" }
    private var screenSize: PixelSize { PixelSize(width: Int(mode.hdisplay), height: Int(mode.vdisplay)) }
    private func now() -> Double { monotonicNow() }

    // MARK: frames

    /// A page flip was requested and has not completed: the next frame must wait. A flip that
    /// has waited longer than the recovery's timeout is given up here (logged) and a mode set
    /// follows, so the loop cannot hang on an event that never comes.
    public var flipPending: Bool {
        if recovery.flipTimedOut(at: now()) {
            flipTimeouts += 1
            log.warning(Logger.Message(stringLiteral: "page flip on \(connector.name) did not complete within "
                + String(cFormat: "%.0f ms: no longer waiting for it; setting the mode again", recovery.settings.flipTimeout * 1000)))
        }
        return recovery.flipPending
    }

    /// The display wants a frame although nothing new was drawn: a retry after a failure.
    public var retryDue: Bool { connected && recovery.retryDue(now: now()) }

    /// Seconds until the display needs the loop again (a retry or a flip's timeout); nil: never.
    public func secondsUntilDeadline() -> Double? {
        guard connected, let t = recovery.deadline() else { return nil }
        return max(0, t - now())
    }

    /// Shows the frame, or keeps it for later: damaged rectangles go into the back buffer and a
    /// page flip (or a mode set, the first time and when recovering) is requested. Never throws
    /// for what the kernel refuses; call only when `flipPending` is false.
    public func present(_ frame: ImageSurface, damage: DamageRegion) throws {
        for b in buffers { b.stale.add(damage.rects) }
        guard connected else { return }
        let t = now()
        switch recovery.step(now: t) {
        case .wait: return
        case .modeSet: setMode(frame, at: t)
        case .flip: flip(frame, at: t)
        }
    }

    private func flip(_ frame: ImageSurface, at t: Double) {
        let backIndex = 1 - front
        let back = buffers[backIndex]
        let damage = fill(back, from: frame)
        let what = "page flip on \(connector.name)"
        let outcome = backend.flip(to: back, damage: damage, event: Unmanaged.passUnretained(self).toOpaque())
        if case .failed(let e) = outcome {
            failedFlips += 1
            let forced = recovery.flipFailed(at: t)
            if let line = failures.failed(what, errno: e, now: t) { log.warning("\(line); the frame is kept for the next one") }
            if e == EACCES || e == EPERM { regainMaster() }
            if forced {
                log.warning("\(recovery.settings.flipFailuresBeforeModeSet) page flips in a row failed on \(connector.name): setting the mode \(modeName) again")
            }
            return
        }
        if let line = failures.succeeded(what, now: t) { log.notice("\(line)") }
        recovery.flipRequested(at: t)
        front = backIndex
    }

    private func setMode(_ frame: ImageSurface, at t: Double) {
        let what = "mode set \(modeName) on \(connector.name)"
        guard ensureBuffers(at: t, what: what) else { return }
        let index = 1 - front
        let target = buffers[index]
        fill(target, from: frame)
        // Refused for want of master last time: take it first, so the try after it is freed succeeds.
        if lastModeSetErrno == EACCES || lastModeSetErrno == EPERM { regainMaster() }
        var outcome = backend.setMode(mode, showing: target)
        if case .refusedByTest(let e) = outcome {
            // Not tested at open (no DRM master then), or a new mode after a hotplug.
            if kms == .auto {
                fallBackToLegacy(e)
                outcome = backend.setMode(mode, showing: target)
            } else {
                log.error("[display] kms = \"atomic\": the driver refuses \(modeName) on \(connector.name) in a test commit")
                outcome = .failed(errno: e)
            }
        }
        lastModeSetErrno = 0
        if case .failed(let e) = outcome {
            lastModeSetErrno = e
            failedModeSets += 1
            let delay = recovery.modeSetFailed(at: t)
            if let line = failures.failed(what, errno: e, now: t) {
                log.error("\(line)\(String(cFormat: "; retrying in %.1f s (then up to every %.0f s)", delay, recovery.settings.maxBackoff))")
            }
            return
        }
        modeSets += 1
        front = index
        recovery.modeSetSucceeded()
        if let line = failures.succeeded(what, now: t) { log.notice("\(line): the whole picture is back") }
        if !retired.isEmpty {
            retired.removeAll()   // no longer scanned out: framebuffers removed, dumb buffers destroyed
            log.info("\(connector.name) shows \(placement); the last mode's buffers are freed")
        }
    }

    /// Buffers of the mode's size: made when the mode changed size (the old ones are retired).
    /// A failure (out of video memory) is retried like a failed mode set.
    private func ensureBuffers(at t: Double, what: String) -> Bool {
        guard buffers.first.map({ $0.width != screenSize.width || $0.height != screenSize.height }) ?? true else { return true }
        do {
            let old = buffers
            try allocateBuffers()
            retired += old
            return true
        } catch {
            failedModeSets += 1
            let delay = recovery.modeSetFailed(at: t)
            // Keyed on the errno the failing call left, not errno now (the buffers' cleanup ran since).
            if let line = failures.failed(what, error: error, now: t) {
                log.error("\(line) (\(error))\(String(cFormat: "; retrying in %.1f s", delay))")
            }
            return false
        }
    }

    private func allocateBuffers() throws {
        let s = screenSize
        let made = try [DumbBuffer(fd: card.fd, width: s.width, height: s.height),
                        DumbBuffer(fd: card.fd, width: s.width, height: s.height)]
        for b in made {
            b.log = log   // a copy: buffers may outlive the display by a moment at exit
            b.clear(placement.borders)
            b.stale.add([Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))])
        }
        buffers = made
        front = 0
    }

    /// Brings a buffer up to date with the frame; returns the screen rectangles written (what
    /// the driver is told changed).
    @discardableResult
    private func fill(_ buffer: DumbBuffer, from frame: ImageSurface) -> [Rect] {
        let rects = buffer.stale.take()
        guard !rects.isEmpty else { return [] }
        frame.withPixels { data, stride in buffer.copy(from: data, stride: stride, rects: rects, placement: placement) }
        return rects.compactMap(placement.screenRect)
    }

    /// Reads page-flip completions.
    public func handleEvents() {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, sec, usec, data in
            guard let data else { return }
            let display = Unmanaged<DRMDisplay>.fromOpaque(data).takeUnretainedValue()
            // An event for a flip already given up (timed out) changes nothing.
            guard display.recovery.flipPending else { return }
            display.recovery.flipCompleted()
            display.onFlipComplete?(Double(sec) + Double(usec) / 1e6)
        }
        let what = "reading DRM events from \(card.path) (drmHandleEvent)"
        if drmHandleEvent(card.fd, &context) != 0 {
            if let line = failures.failed(what, errno: errno, now: now()) { log.error("\(line)") }
        } else if failures.isFailing(what), let line = failures.succeeded(what, now: now()) {
            log.notice("\(line)")
        }
    }

    // MARK: cursor

    public var cursorSize: Int { DRMCursor.size }
    /// A scaled canvas would need a scaled cursor image: the overlay draws the preview instead.
    public var hasCursorPlane: Bool { backend.cursor != nil && !placement.isScaled }
    public func showCursor(_ image: ImageSurface, hotspot: (x: Int, y: Int), at location: Point) -> Bool {
        guard modeSets > 0, connected, !placement.isScaled, let cursor = backend.cursor else { return false }
        return cursor.show(image, hotspot: hotspot, at: placement.screenPoint(location))
    }
    public func moveCursor(to location: Point, hotspot: (x: Int, y: Int)) {
        backend.cursor?.move(to: placement.screenPoint(location), hotspot: hotspot)
    }
    public func hideCursor() { backend.cursor?.hide() }

    // MARK: connector

    public enum ConnectorChange: Sendable { case none, unplugged, replugged, modeChanged }

    /// After a hotplug event: an unplugged screen stops the flips (frames stay in RAM); a screen
    /// plugged back, or one whose preferred mode changed, gets its mode (the configured one
    /// while it offers it, else its preferred one) set, in new buffers if the size changed,
    /// and the whole picture.
    public func checkConnector() -> ConnectorChange {
        guard let c = drmModeGetConnector(card.fd, connector.id) else {
            if let line = failures.failed("reading connector \(connector.name)", errno: errno, now: now()) { log.warning("\(line)") }
            return .none
        }
        defer { drmModeFreeConnector(c) }
        let isConnected = c.pointee.connection == DRM_MODE_CONNECTED && c.pointee.count_modes > 0
        if connected && !isConnected {
            connected = false
            recovery.screenGone()   // a flip to a gone screen may never complete
            return .unplugged
        }
        guard isConnected else { return .none }
        let modes = Self.modes(of: c)
        guard let i = ModeChoice.choose(from: modes.map(Self.candidate), configured: configuredMode) else { return .none }
        let chosen = modes[i]
        let wasConnected = connected
        if wasConnected && Self.same(chosen, mode) { return .none }
        let before = modeName
        mode = chosen
        refreshHz = Int(chosen.vrefresh)
        connector = DRMCard.info(c)
        placement = ScreenPlacement(canvas: size, screen: screenSize)
        connected = true
        for b in buffers { b.stale.add([Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))]) }
        recovery.requireModeSet(now: now())
        log.notice("\(connector.name): \(wasConnected ? "the screen's mode changed from \(before)" : "a screen is back"), setting \(modeName): \(placement)")
        return wasConnected ? .modeChanged : .replugged
    }

    private static func same(_ a: drmModeModeInfo, _ b: drmModeModeInfo) -> Bool {
        a.hdisplay == b.hdisplay && a.vdisplay == b.vdisplay && a.vrefresh == b.vrefresh && a.clock == b.clock
            && a.htotal == b.htotal && a.vtotal == b.vtotal && a.flags == b.flags
    }

    // MARK: master

    /// Gives the display up (VT switched away); the mode is set again when it comes back.
    public func release() {
        if drmDropMaster(card.fd) != 0 {
            log.warning("dropping DRM master on \(card.path) failed: \(Errno.describe(errno)); the VT switch goes on")
        }
        recovery.requireModeSet(now: now())
    }

    /// Takes the display back (our VT again). If another program holds DRM master, the mode
    /// set fails with EACCES and is retried (taking master again first) until it is free.
    public func acquire() {
        if drmSetMaster(card.fd) != 0 {
            log.warning("cannot take DRM master on \(card.path) back: \(Errno.describe(errno)) (another program holds the screen); retrying")
        }
        recovery.requireModeSet(now: now())
    }

    private func regainMaster() {
        let what = "taking DRM master on \(card.path)"
        if drmSetMaster(card.fd) == 0 {
            if let line = failures.succeeded(what, now: now()) { log.notice("\(line)") } else { log.notice("took DRM master on \(card.path) back") }
        } else if let line = failures.failed(what, errno: errno, now: now()) {
            log.warning("\(line)")
        }
    }
}
