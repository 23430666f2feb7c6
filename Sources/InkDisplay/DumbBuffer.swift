import CLibDRM
import Glibc
import InkCore

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

    init(fd: Int32, width: Int, height: Int) throws {
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        guard ik_drm_create_dumb(fd, UInt32(width), UInt32(height), &handle, &pitch, &size) == 0 else {
            throw DisplayError.errno("cannot create a \(width)x\(height) dumb buffer")
        }
        var fb: UInt32 = 0
        var handles: [UInt32] = [handle, 0, 0, 0], pitches: [UInt32] = [pitch, 0, 0, 0], offsets: [UInt32] = [0, 0, 0, 0]
        guard drmModeAddFB2(fd, UInt32(width), UInt32(height), ik_drm_format_xrgb8888(), &handles, &pitches, &offsets, &fb, 0) == 0 else {
            let e = errno
            _ = ik_drm_destroy_dumb(fd, handle)
            throw DisplayError.errno("cannot add an XRGB8888 framebuffer", e)
        }
        var offset: UInt64 = 0
        guard ik_drm_map_dumb(fd, handle, &offset) == 0,
              let map = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)), map != MAP_FAILED else {
            let e = errno
            drmModeRmFB(fd, fb); _ = ik_drm_destroy_dumb(fd, handle)
            throw DisplayError.errno("cannot map a dumb buffer", e)
        }
        self.fd = fd; self.handle = handle; self.pitch = Int(pitch); self.size = Int(size)
        self.framebuffer = fb; self.pixels = map; self.width = width; self.height = height
    }

    deinit {
        munmap(pixels, size)
        drmModeRmFB(fd, framebuffer)
        _ = ik_drm_destroy_dumb(fd, handle)
    }

    /// Copies the rectangles of `source` (same size, XRGB8888 rows of `stride` bytes) in.
    func copy(from source: UnsafeRawPointer, stride: Int, rects: [Rect]) {
        for r in rects {
            let x0 = max(0, Int(r.minX)), x1 = min(width, Int(r.maxX))
            let y0 = max(0, Int(r.minY)), y1 = min(height, Int(r.maxY))
            guard x1 > x0, y1 > y0 else { continue }
            let bytes = (x1 - x0) * 4
            for y in y0..<y1 {
                memcpy(pixels + y * pitch + x0 * 4, source + y * stride + x0 * 4, bytes)
            }
        }
    }
}
