// SPDX-License-Identifier: Apache-2.0
import CLibDRM
import Glibc
import Logging
import InkCore
import InkRender

/// A dumb buffer registered as a framebuffer and mapped into our memory. Scanout memory is
/// often uncached: it is only ever written, row by row, never read.
final class DumbBuffer {
    let fd: Int32
    let handle: UInt32
    let pitch: Int
    let size: Int
    let framebuffer: UInt32
    let pixels: UnsafeMutableRawPointer
    let width: Int, height: Int
    /// Canvas rectangles this buffer has not received yet (it missed frames shown in the other
    /// buffer, or frames that were never shown).
    var stale = StaleRegion()
    /// Where a failure to free it is reported.
    var log = Logger(label: "inkkiosk.display")

    /// `format`: XRGB8888 for frames, ARGB8888 for a cursor plane's image.
    init(fd: Int32, width: Int, height: Int, format: UInt32 = ik_drm_format_xrgb8888()) throws {
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        guard ik_drm_create_dumb(fd, UInt32(width), UInt32(height), &handle, &pitch, &size) == 0 else {
            throw SystemCallError("create a \(width)x\(height) dumb buffer (DRM_IOCTL_MODE_CREATE_DUMB)")
        }
        var fb: UInt32 = 0
        var handles: [UInt32] = [handle, 0, 0, 0], pitches: [UInt32] = [pitch, 0, 0, 0], offsets: [UInt32] = [0, 0, 0, 0]
        let added = drmModeAddFB2(fd, UInt32(width), UInt32(height), format, &handles, &pitches, &offsets, &fb, 0)
        guard added == 0 else {
            let name = format == ik_drm_format_argb8888() ? "ARGB8888" : "XRGB8888"
            let failure = SystemCallError("add an \(name) framebuffer (drmModeAddFB2)", errno: -added)
            _ = ik_drm_destroy_dumb(fd, handle)
            throw failure
        }
        var offset: UInt64 = 0
        guard ik_drm_map_dumb(fd, handle, &offset) == 0,
              let map = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)), map != MAP_FAILED else {
            let failure = SystemCallError("map a dumb buffer (DRM_IOCTL_MODE_MAP_DUMB, mmap)")
            drmModeRmFB(fd, fb); _ = ik_drm_destroy_dumb(fd, handle)
            throw failure
        }
        self.fd = fd; self.handle = handle; self.pitch = Int(pitch); self.size = Int(size)
        self.framebuffer = fb; self.pixels = map; self.width = width; self.height = height
    }

    deinit {
        munmap(pixels, size)
        let removed = drmModeRmFB(fd, framebuffer)
        if removed != 0 { log.warning("removing framebuffer \(framebuffer) failed: \(Errno.describe(-removed))") }
        if ik_drm_destroy_dumb(fd, handle) != 0 { log.warning("destroying dumb buffer \(handle) failed: \(Errno.describe(errno))") }
    }

    /// Writes an image's rows (ARGB, `stride` bytes each) at the top left; the rest is made transparent.
    func write(_ image: ImageSurface) {
        memset(pixels, 0, size)
        let rows = min(image.size.height, height), cols = min(image.size.width, width)
        image.withPixels { data, stride in
            for y in 0..<rows { memcpy(pixels + y * pitch, data + y * stride, cols * 4) }
        }
    }

    /// Writes black into screen rectangles (the borders around a canvas that does not fill the screen).
    func clear(_ rects: [Rect]) {
        for r in rects {
            let x0 = max(0, Int(r.minX)), x1 = min(width, Int(r.maxX))
            let y0 = max(0, Int(r.minY)), y1 = min(height, Int(r.maxY))
            guard x1 > x0, y1 > y0 else { continue }
            for y in y0..<y1 { memset(pixels + y * pitch + x0 * 4, 0, (x1 - x0) * 4) }
        }
    }

    /// Writes `pixel` (XRGB8888) everywhere: one row built in RAM, then copied to every row, so
    /// the buffer is only written, never read.
    func fill(_ pixel: UInt32) {
        let row = [UInt32](repeating: pixel, count: width)
        row.withUnsafeBytes { r in
            for y in 0..<height { memcpy(pixels + y * pitch, r.baseAddress!, r.count) }
        }
    }

    /// Copies canvas rectangles of `source` (XRGB8888 rows of `stride` bytes, the canvas's size)
    /// to where `placement` shows them: 1:1 at an offset, or scaled down by averaging.
    func copy(from source: UnsafeRawPointer, stride: Int, rects: [Rect], placement: ScreenPlacement) {
        let canvas = placement.canvas
        for r in rects {
            if placement.isScaled {
                guard let s = placement.screenRect(for: r) else { continue }
                copyScaled(from: source, stride: stride, screen: s, placement: placement)
                continue
            }
            let x0 = max(0, Int(r.minX)), x1 = min(canvas.width, Int(r.maxX.rounded(.up)))
            let y0 = max(0, Int(r.minY)), y1 = min(canvas.height, Int(r.maxY.rounded(.up)))
            guard x1 > x0, y1 > y0 else { continue }
            let bytes = (x1 - x0) * 4
            for y in y0..<y1 {
                memcpy(pixels + (y + placement.originY) * pitch + (x0 + placement.originX) * 4, source + y * stride + x0 * 4, bytes)
            }
        }
    }

    /// Each screen pixel is the average of the canvas pixels under it; a row is built in RAM
    /// and written once.
    private func copyScaled(from source: UnsafeRawPointer, stride: Int, screen s: Rect, placement p: ScreenPlacement) {
        let x0 = Int(s.minX), x1 = Int(s.maxX), y0 = Int(s.minY), y1 = Int(s.maxY)
        let inverse = 1 / p.scale
        var row = [UInt32](repeating: 0, count: x1 - x0)
        func span(_ screen: Int, _ origin: Int, _ limit: Int) -> Range<Int> {
            let a = Int((Double(screen - origin) * inverse).rounded(.down))
            let b = Int((Double(screen + 1 - origin) * inverse).rounded(.up))
            let lo = min(max(a, 0), limit - 1)
            return lo..<min(max(b, lo + 1), limit)
        }
        for y in y0..<y1 {
            let ys = span(y, p.originY, p.canvas.height)
            for x in x0..<x1 {
                let xs = span(x, p.originX, p.canvas.width)
                var r = 0, g = 0, b = 0
                for sy in ys {
                    let line = (source + sy * stride).assumingMemoryBound(to: UInt32.self)
                    for sx in xs {
                        let v = line[sx]
                        r += Int(v >> 16 & 0xFF); g += Int(v >> 8 & 0xFF); b += Int(v & 0xFF)
                    }
                }
                let n = ys.count * xs.count
                row[x - x0] = UInt32((r + n / 2) / n) << 16 | UInt32((g + n / 2) / n) << 8 | UInt32((b + n / 2) / n)
            }
            row.withUnsafeBytes { _ = memcpy(pixels + y * pitch + x0 * 4, $0.baseAddress!, $0.count) }
        }
    }
}

/// Rectangles a buffer still has to receive. Many small ones (frames missed while the screen
/// failed) merge into their bounding box, so catching up never costs more than one full copy.
struct StaleRegion: Equatable {
    private(set) var rects: [Rect] = []
    static let mergeAbove = 32

    mutating func add(_ more: [Rect]) {
        rects += more.filter { !$0.isEmpty && $0.area > 0 }
        if rects.count > Self.mergeAbove { rects = [rects.dropFirst().reduce(rects[0]) { $0.union($1) }] }
    }

    mutating func take() -> [Rect] { defer { rects = [] }; return rects }
}
