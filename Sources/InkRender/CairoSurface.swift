// SPDX-License-Identifier: Apache-2.0
import CCairo
import FoundationEssentials
import Glibc
import InkCore

/// Pixel formats the renderer uses: XRGB8888 for what the screen shows (the DRM scanout
/// format), ARGB32 for layers and transparent exports.
public enum PixelFormat: Sendable {
    case xrgb, argb
    var cairo: cairo_format_t { self == .xrgb ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32 }
}

/// Why drawing or writing a picture failed: what was being done, and the library's own status
/// when one said no (cairo's, zlib's).
public struct RenderError: Error, CustomStringConvertible, Equatable {
    public enum Cause: Sendable, Equatable {
        /// cairo_status_t's value.
        case cairo(status: UInt32)
        /// zlib's return code (Z_STREAM_ERROR, Z_BUF_ERROR…).
        case zlib(status: Int32)
        /// No library status: a size or an input out of range, a result never made.
        case refused
    }

    public let what: String
    public let cause: Cause

    init(_ what: String, _ status: cairo_status_t) { self.what = what; cause = .cairo(status: status.rawValue) }
    init(_ what: String, zlib status: Int32) { self.what = what; cause = .zlib(status: status) }
    init(_ what: String) { self.what = what; cause = .refused }

    public var description: String {
        switch cause {
        case .cairo(let status): "\(what): \(String(cString: cairo_status_to_string(cairo_status_t(rawValue: status))))"
        case .zlib(let status): "\(what) (zlib status \(status))"
        case .refused: what
        }
    }
}

/// An owned cairo image surface in RAM.
/// Not locked: `size` and `format` are `let`s, and its pixels are drawn by one thread at a time, the surface
/// being handed over (a chore's outcome, `StrokeRaster`'s join or lock); several read at once only while none draws.
public final class ImageSurface: @unchecked Sendable {
    let surface: OpaquePointer
    public let size: PixelSize
    public let format: PixelFormat

    public init(size: PixelSize, format: PixelFormat) throws {
        guard let s = cairo_image_surface_create(format.cairo, Int32(size.width), Int32(size.height)) else {
            throw RenderError("cannot create a \(size) image")
        }
        let status = cairo_surface_status(s)
        guard status == CAIRO_STATUS_SUCCESS else { cairo_surface_destroy(s); throw RenderError("cannot create a \(size) image", status) }
        surface = s; self.size = size; self.format = format
    }

    /// An image of part of the screen, the part whose top-left pixel is `origin` (whole pixels):
    /// what is drawn at screen coordinates lands on it, and it paints back where it belongs.
    public convenience init(size: PixelSize, format: PixelFormat, origin: Point) throws {
        try self.init(size: size, format: format)
        cairo_surface_set_device_offset(surface, -origin.x, -origin.y)
    }

    deinit { cairo_surface_destroy(surface) }

    public var stride: Int { Int(cairo_image_surface_get_stride(surface)) }

    /// A pixel as (r, g, b, a) bytes, straight (not premultiplied). For tests and checks.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        cairo_surface_flush(surface)
        guard x >= 0, y >= 0, x < size.width, y < size.height, let data = cairo_image_surface_get_data(surface) else {
            return (0, 0, 0, 0)
        }
        let v = data.advanced(by: y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
        let a = format == .xrgb ? 255 : UInt8(v >> 24)
        func unpremultiply(_ c: UInt32) -> UInt8 {
            guard format == .argb, a > 0, a < 255 else { return UInt8(c & 0xff) }
            return UInt8(min(255, (Int(c & 0xff) * 255 + Int(a) / 2) / Int(a)))
        }
        return (unpremultiply(v >> 16), unpremultiply(v >> 8), unpremultiply(v), a)
    }

    /// Runs `body` over the raw rows (for copying damage to a display buffer).
    public func withPixels<T>(_ body: (UnsafeRawPointer, Int) throws -> T) rethrows -> T? {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        return try body(UnsafeRawPointer(data), stride)
    }

    /// Writes the image as PNG (`PNGEncoder`: zlib at a level chosen for speed).
    public func writePNG(to path: String) throws { try PNGEncoder.write(self, to: path) }

    /// The PNG `writePNG` would write, in memory.
    public func pngData() throws -> Data { try PNGEncoder.encode(self) }

    /// The PNG cairo's own writer makes (libpng, zlib's default level): the size and time
    /// `PNGEncoder` is measured against.
    public func cairoPNGData() throws -> Data {
        let sink = CairoByteSink()
        let status = withExtendedLifetime(sink) {
            cairo_surface_write_to_png_stream(surface, CairoByteSink.write, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard status == CAIRO_STATUS_SUCCESS else { throw RenderError("cannot encode the PNG", status) }
        return sink.data
    }

    /// Reads a PNG (for tests that compare renderings).
    public static func readPNG(_ path: String) throws -> ImageSurface {
        guard let s = cairo_image_surface_create_from_png(path) else { throw RenderError("cannot read \(path)") }
        let status = cairo_surface_status(s)
        guard status == CAIRO_STATUS_SUCCESS else { cairo_surface_destroy(s); throw RenderError("cannot read \(path)", status) }
        return ImageSurface(adopting: s)
    }

    private init(adopting s: OpaquePointer) {
        surface = s
        size = PixelSize(width: Int(cairo_image_surface_get_width(s)), height: Int(cairo_image_surface_get_height(s)))
        format = cairo_image_surface_get_format(s) == CAIRO_FORMAT_RGB24 ? .xrgb : .argb
    }
}

/// Collects what cairo writes to a stream (a PNG or SVG made in memory).
final class CairoByteSink {
    var data = Data()

    static let write: cairo_write_func_t = { closure, bytes, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        if let bytes, length > 0 {
            Unmanaged<CairoByteSink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
        }
        return CAIRO_STATUS_SUCCESS
    }
}

/// Writes what cairo makes straight to a descriptor; the first failure is kept (with its errno).
final class CairoDescriptorSink {
    let fd: Int32
    private(set) var failed: Int32?
    init(fd: Int32) { self.fd = fd }

    static let write: cairo_write_func_t = { closure, bytes, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<CairoDescriptorSink>.fromOpaque(closure).takeUnretainedValue()
        guard sink.failed == nil else { return CAIRO_STATUS_WRITE_ERROR }
        var done = 0
        while let bytes, done < Int(length) {
            let n = Glibc.write(sink.fd, bytes + done, Int(length) - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { sink.failed = n < 0 ? errno : EIO; return CAIRO_STATUS_WRITE_ERROR }
            done += n
        }
        return CAIRO_STATUS_SUCCESS
    }

    func check() throws {
        if let failed { throw SystemCallError("write the file (fd \(fd))", errno: failed) }
    }
}

/// An owned cairo drawing context.
final class CairoContext {
    let cr: OpaquePointer
    init(_ surface: OpaquePointer) {
        // cairo_create never returns NULL; errors show in its status instead.
        cr = cairo_create(surface)
    }
    convenience init(_ image: ImageSurface) { self.init(image.surface) }
    deinit { cairo_destroy(cr) }

    var status: cairo_status_t { cairo_status(cr) }

    func clip(to r: Rect) {
        cairo_rectangle(cr, r.minX, r.minY, r.width, r.height)
        cairo_clip(cr)
    }

    func fill(_ r: Rect, with c: RGBA, operator op: cairo_operator_t = CAIRO_OPERATOR_SOURCE) {
        cairo_save(cr)
        cairo_set_operator(cr, op)
        cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
        cairo_rectangle(cr, r.minX, r.minY, r.width, r.height)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// Copies `source` over `r` exactly (no blending).
    func copy(_ source: ImageSurface, in r: Rect) {
        cairo_save(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_surface(cr, source.surface, 0, 0)
        cairo_rectangle(cr, r.minX, r.minY, r.width, r.height)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// Paints `layer` with `opacity` inside `r` (clip).
    func paint(_ layer: ImageSurface, opacity: Double, in r: Rect) {
        cairo_save(cr)
        clip(to: r)
        cairo_set_source_surface(cr, layer.surface, 0, 0)
        cairo_paint_with_alpha(cr, opacity)
        cairo_restore(cr)
    }
}

extension ImageSurface {
    /// Fills the whole image with `color`: every page of it is written, so none is first
    /// touched (and zeroed by the kernel) later, in a frame.
    public func fill(with color: RGBA) {
        CairoContext(self).fill(Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)), with: color)
        cairo_surface_flush(surface)
    }

    /// Copies the given rectangles of `source` (same size) into this surface.
    public func copy(from source: ImageSurface, in rects: [Rect]) {
        let ctx = CairoContext(self)
        for r in rects { ctx.copy(source, in: r) }
        cairo_surface_flush(surface)
    }
}
