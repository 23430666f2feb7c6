// SPDX-License-Identifier: Apache-2.0
import CLibDRM
import InkCore
import InkRender

/// The kernel calls that put a buffer on the screen: legacy KMS (`LegacyScanout`) or one atomic
/// commit (`AtomicScanout`). `DRMDisplay` owns what both share (the buffers and what each has
/// not seen, the mode, `ScanoutRecovery`'s retries, the log); a backend turns "show this buffer"
/// into ioctls and says what the kernel answered.
protocol ScanoutBackend: AnyObject {
    /// What it is, for the start-up line: "atomic KMS (primary plane 31, …)".
    var summary: String { get }
    /// The preview's plane, or nil: the overlay draws the preview.
    var cursor: HardwareCursor? { get }
    /// Tries the mode set in a test commit, once: nil when the driver takes it (or cannot say
    /// yet, without DRM master), else its errno. The display asks at open, beside the
    /// configuration's read, so the first frame does not wait for it.
    func test(_ mode: drmModeModeInfo, showing buffer: DumbBuffer) -> Int32?
    /// Sets `mode` with `buffer` on screen (blocking: no event follows).
    func setMode(_ mode: drmModeModeInfo, showing buffer: DumbBuffer) -> ScanoutOutcome
    /// Asks for `buffer` at the next vertical blank; a page-flip event carrying `event` follows.
    /// `damage`: the screen rectangles written into it since it was last on screen.
    func flip(to buffer: DumbBuffer, damage: [Rect], event: UnsafeMutableRawPointer) -> ScanoutOutcome
    /// The kiosk is leaving: what only this backend shows (an atomic cursor plane) goes, and what
    /// it holds on the card is freed while the card is still open.
    func shutDown()
}

/// What the kernel said to a mode set or a flip.
enum ScanoutOutcome: Equatable {
    case done
    /// Refused, with the errno (EBUSY, EACCES without DRM master, …): `ScanoutRecovery` retries.
    case failed(errno: Int32)
    /// An atomic test commit refused the configuration: this driver's atomic path cannot show
    /// it, and legacy KMS may (auto), or the kiosk says so (atomic).
    case refusedByTest(errno: Int32)
}

/// A cursor plane for the hover preview. Legacy KMS moves it at once; atomic KMS stages it and
/// commits it with the next frame (the pipeline always presents after changing it).
protocol HardwareCursor: AnyObject {
    /// False once the driver refused it: the overlay draws the preview from then on.
    var supported: Bool { get }
    /// Shows `image` (ARGB, at most `DRMCursor.size` square) with its hotspot at `location`
    /// (screen pixels); false when the plane cannot.
    func show(_ image: ImageSurface, hotspot: (x: Int, y: Int), at location: Point) -> Bool
    func move(to location: Point, hotspot: (x: Int, y: Int))
    func hide()
}

extension Point {
    /// Where a cursor image's top left goes for its hotspot to be here.
    func cursorOrigin(hotspot: (x: Int, y: Int)) -> (x: Int32, y: Int32) {
        (Int32(x.rounded()) - Int32(hotspot.x), Int32(y.rounded()) - Int32(hotspot.y))
    }
}
