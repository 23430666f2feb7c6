import CCairo
import InkCore

/// Writes the finished ink as PNG, SVG or PDF. Every format is drawn by the same code as the
/// screen (`ShapePainter`), so the files show exactly the strokes the kiosk showed.
public struct Exporter {
    public enum Background: Sendable { case transparent, color(RGBA) }
    public let size: PixelSize
    public let background: Background

    public init(size: PixelSize, background: Background = .color(.white)) {
        self.size = size; self.background = background
    }

    public func png(_ strokes: [Stroke], to path: String) throws {
        let image = try ImageSurface(size: size, format: .argb)
        draw(strokes, on: image.surface)
        try image.writePNG(to: path)
    }

    public func svg(_ strokes: [Stroke], to path: String) throws {
        guard let surface = cairo_svg_surface_create(path, Double(size.width), Double(size.height)) else {
            throw RenderError("cannot create \(path)")
        }
        try finish(surface, strokes, path)
    }

    /// One PDF page of the screen's size, in points (1 px = 1 pt, so the page keeps the proportions).
    public func pdf(_ strokes: [Stroke], to path: String) throws {
        guard let surface = cairo_pdf_surface_create(path, Double(size.width), Double(size.height)) else {
            throw RenderError("cannot create \(path)")
        }
        try finish(surface, strokes, path)
    }

    private func finish(_ surface: OpaquePointer, _ strokes: [Stroke], _ path: String) throws {
        defer { cairo_surface_destroy(surface) }
        draw(strokes, on: surface)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw RenderError("cannot write \(path)", status) }
    }

    private func draw(_ strokes: [Stroke], on surface: OpaquePointer) {
        let ctx = CairoContext(surface)
        if case .color(let c) = background {
            ctx.fill(Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)), with: c)
        }
        for stroke in strokes { ShapePainter.drawStroke(stroke, in: ctx.cr) }
    }
}
