// SPDX-License-Identifier: Apache-2.0
import CLibDRM
import Glibc
import Logging
import InkCore
import InkRender

/// Legacy KMS: `drmModeSetCrtc`, `drmModePageFlip` and the `SetCursor2` cursor. Every driver
/// has it; on an atomic driver the kernel turns each call into an atomic commit of its own.
final class LegacyScanout: ScanoutBackend {
    private let fd: Int32
    private let crtc: UInt32
    private var connector: UInt32
    /// DirtyFB before a flip tells drivers without atomic KMS (old virtual and USB displays)
    /// what changed. An atomic driver's DirtyFB only reaches a framebuffer that is on a plane,
    /// which the back buffer is not, so there it would be an ioctl (and an empty commit) per
    /// frame for nothing: the flip then uploads the whole plane. Atomic KMS sends the damage
    /// with the flip instead (FB_DAMAGE_CLIPS).
    private var dirtyFB: Bool
    private let log: Logger
    private var failures = FailureLog()
    /// Made when first asked for (it takes a buffer on the card), freed by `shutDown`.
    private var madeCursor: DRMCursor?
    private var cursorGone = false
    let summary: String

    /// `why`: why not atomic KMS, for the start-up line.
    init(fd: Int32, crtc: UInt32, connector: UInt32, driverIsAtomic: Bool, why: String, log: Logger) {
        self.fd = fd
        self.crtc = crtc
        self.connector = connector
        self.log = log
        dirtyFB = !driverIsAtomic
        summary = "legacy KMS (\(why))"
    }

    var cursor: HardwareCursor? {
        guard !cursorGone else { return nil }
        let made = madeCursor ?? DRMCursor(fd: fd, crtc: crtc, log: log)
        madeCursor = made
        return made.supported ? made : nil
    }

    /// Legacy KMS has no test commit.
    func test(_ mode: drmModeModeInfo, showing buffer: DumbBuffer) -> Int32? { nil }

    func setMode(_ mode: drmModeModeInfo, showing buffer: DumbBuffer) -> ScanoutOutcome {
        var mode = mode, connectorID = connector
        let r = drmModeSetCrtc(fd, crtc, buffer.framebuffer, 0, 0, &connectorID, 1, &mode)
        return r == 0 ? .done : .failed(errno: -r)
    }

    func flip(to buffer: DumbBuffer, damage: [Rect], event: UnsafeMutableRawPointer) -> ScanoutOutcome {
        if dirtyFB { markDirty(buffer, damage) }
        let r = drmModePageFlip(fd, crtc, buffer.framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), event)
        return r == 0 ? .done : .failed(errno: -r)
    }

    func shutDown() {
        madeCursor = nil
        cursorGone = true
    }

    private func markDirty(_ buffer: DumbBuffer, _ rects: [Rect]) {
        guard !rects.isEmpty else { return }
        var clips = rects.prefix(Int(DRM_MODE_FB_DIRTY_MAX_CLIPS)).map { r in
            drmModeClip(x1: UInt16(max(0, r.minX)), y1: UInt16(max(0, r.minY)),
                        x2: UInt16(min(Double(buffer.width), r.maxX)), y2: UInt16(min(Double(buffer.height), r.maxY)))
        }
        let r = drmModeDirtyFB(fd, buffer.framebuffer, &clips, UInt32(clips.count))
        let what = "marking framebuffer \(buffer.framebuffer) dirty (DirtyFB)"
        let now = monotonicNow()
        if r == -ENOSYS || r == -EOPNOTSUPP {
            dirtyFB = false   // the driver scans out the buffer as it is
        } else if r != 0 {
            if let line = failures.failed(what, errno: -r, now: now) { log.warning("\(line); the flip shows the buffer anyway") }
        } else if failures.isFailing(what), let line = failures.succeeded(what, now: now) {
            log.notice("\(line)")
        }
    }
}

/// The legacy cursor: a 64×64 ARGB8888 dumb buffer set with drmModeSetCursor2. Every ioctl's
/// result is checked: a driver without a cursor plane refuses the first one (the overlay then
/// draws the preview), later failures are logged once per errno.
final class DRMCursor: HardwareCursor {
    static let size = 64
    private let fd: Int32
    private let crtc: UInt32
    private var buffer: DumbBuffer?
    private(set) var supported = true
    private let log: Logger
    private var failures = FailureLog()

    init(fd: Int32, crtc: UInt32, log: Logger) {
        self.fd = fd
        self.crtc = crtc
        self.log = log
        do {
            buffer = try DumbBuffer(fd: fd, width: Self.size, height: Self.size, format: ik_drm_format_argb8888())
        } catch {
            log.notice("no cursor buffer (\(error)): the overlay draws the hover preview")
            supported = false
        }
    }

    deinit {
        if supported { _ = drmModeSetCursor(fd, crtc, 0, 0, 0) }   // exiting: nothing left to do about a failure
    }

    func show(_ image: ImageSurface, hotspot: (x: Int, y: Int), at p: Point) -> Bool {
        guard supported, let buffer else { return false }
        buffer.write(image)
        let r = drmModeSetCursor2(fd, crtc, buffer.handle, UInt32(Self.size), UInt32(Self.size), Int32(hotspot.x), Int32(hotspot.y))
        guard r == 0 else {
            supported = false   // no cursor plane on this driver: the overlay draws the preview
            log.notice("no hardware cursor (drmModeSetCursor2: \(Errno.describe(-r))): the overlay draws the hover preview")
            return false
        }
        move(to: p, hotspot: hotspot)
        return true
    }

    func move(to p: Point, hotspot: (x: Int, y: Int)) {
        guard supported else { return }
        let origin = p.cursorOrigin(hotspot: hotspot)
        check(drmModeMoveCursor(fd, crtc, origin.x, origin.y), "moving the cursor")
    }

    func hide() {
        guard supported else { return }
        check(drmModeSetCursor(fd, crtc, 0, 0, 0), "hiding the cursor")
    }

    private func check(_ r: Int32, _ what: String) {
        let now = monotonicNow()
        if r != 0 {
            if let line = failures.failed(what, errno: -r, now: now) { log.warning("\(line)") }
        } else if failures.isFailing(what), let line = failures.succeeded(what, now: now) {
            log.notice("\(line)")
        }
    }
}
