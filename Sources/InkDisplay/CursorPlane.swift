// SPDX-License-Identifier: Apache-2.0
import CLibDRM
import Glibc
import Logging
import InkCore
import InkRender

/// A display that can show a small image on a hardware cursor plane, moved without redrawing
/// anything. The hover preview uses it where the driver has one; elsewhere it is drawn in the
/// overlay like everything else.
public protocol CursorPlane: AnyObject {
    /// Shows `image` (ARGB, at most `cursorSize` square) with its hotspot at `location`.
    /// False when the hardware has no cursor plane: the caller draws the preview itself.
    func showCursor(_ image: ImageSurface, hotspot: (x: Int, y: Int), at location: Point) -> Bool
    func moveCursor(to location: Point, hotspot: (x: Int, y: Int))
    func hideCursor()
    var cursorSize: Int { get }
    var hasCursorPlane: Bool { get }
}

/// The cursor buffer of a DRM display: a 64×64 ARGB8888 dumb buffer set with drmModeSetCursor2.
/// Every ioctl's result is checked: a driver without a cursor plane refuses the first one (the
/// overlay then draws the preview), later failures are logged once per errno.
final class DRMCursor {
    static let size = 64
    private let fd: Int32
    private let crtc: UInt32
    private var handle: UInt32 = 0, pitch: UInt32 = 0, bytes: UInt64 = 0
    private var pixels: UnsafeMutableRawPointer?
    private(set) var supported = true
    private let log: Logger
    private var failures = FailureLog()

    init(fd: Int32, crtc: UInt32, log: Logger) {
        self.fd = fd
        self.crtc = crtc
        self.log = log
        var offset: UInt64 = 0
        guard ik_drm_create_dumb(fd, UInt32(Self.size), UInt32(Self.size), &handle, &pitch, &bytes) == 0 else {
            log.notice("no cursor buffer (\(Errno.describe(errno))): the overlay draws the hover preview")
            supported = false; return
        }
        guard ik_drm_map_dumb(fd, handle, &offset) == 0,
              let map = mmap(nil, Int(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)), map != MAP_FAILED else {
            log.warning("cannot map the cursor buffer (\(Errno.describe(errno))): the overlay draws the hover preview")
            _ = ik_drm_destroy_dumb(fd, handle); supported = false; return
        }
        pixels = map
    }

    deinit {
        if supported { _ = drmModeSetCursor(fd, crtc, 0, 0, 0) }   // exiting: nothing left to do about a failure
        if let pixels { munmap(pixels, Int(bytes)); _ = ik_drm_destroy_dumb(fd, handle) }
    }

    func show(_ image: ImageSurface, hotspot: (x: Int, y: Int), at p: Point) -> Bool {
        guard supported, let pixels else { return false }
        let rows = min(image.size.height, Self.size), cols = min(image.size.width, Self.size)
        memset(pixels, 0, Int(bytes))
        image.withPixels { data, stride in
            for y in 0..<rows { memcpy(pixels + y * Int(pitch), data + y * stride, cols * 4) }
        }
        let r = drmModeSetCursor2(fd, crtc, handle, UInt32(Self.size), UInt32(Self.size), Int32(hotspot.x), Int32(hotspot.y))
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
        let r = drmModeMoveCursor(fd, crtc, Int32(p.x.rounded()) - Int32(hotspot.x), Int32(p.y.rounded()) - Int32(hotspot.y))
        check(r, "moving the cursor")
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
