// SPDX-License-Identifier: Apache-2.0
import CCairo
import FoundationEssentials
import Glibc
import InkCore

/// What lies under the ink on a page: a worksheet's page, drawn in its own points.
public protocol PageBackdrop {
    /// The page's size in points (its PDF page's).
    var pageWidth: Double { get }
    var pageHeight: Double { get }
    /// Draws the page at (0, 0) in points on `cr` (a cairo_t). `printing`: for a PDF or SVG file
    /// (what the page shows when printed), else for the screen.
    func draw(in cr: OpaquePointer, printing: Bool)
}

/// Writes the finished ink as PNG, SVG or PDF. Every format is drawn by the same code as the
/// screen (`ShapePainter`), so the files show exactly the strokes the kiosk showed.
public struct Exporter {
    public enum Background: Sendable { case transparent, color(RGBA) }
    public let size: PixelSize
    public let background: Background
    /// The page point drawn at the file's top-left corner (non-zero for a cropped export).
    public private(set) var origin = Point.zero
    /// A worksheet's page under the ink: the PNG shows it fitted into the screen as the kiosk does
    /// (`PageFit`, the desk's grey around it); SVG and PDF are the page at its own size, in
    /// points, as vectors, with the ink scaled onto it.
    public var backdrop: PageBackdrop?
    /// The part of the screen the page is fitted into (the kiosk's, below its toolbar); nil: all of it.
    public var pageArea: Rect?
    /// Around a fitted page: the desk it lies on.
    public static let desk = RGBA(0.82, 0.82, 0.80, 1)

    public init(size: PixelSize, background: Background = .color(.white), backdrop: PageBackdrop? = nil, pageArea: Rect? = nil) {
        self.size = size; self.background = background; self.backdrop = backdrop; self.pageArea = pageArea
    }

    /// Where the backdrop's page lies on the screen.
    public var pageFit: PageFit? {
        backdrop.map { PageFit(pageWidth: $0.pageWidth, pageHeight: $0.pageHeight, into: pageArea ?? screen) }
    }

    /// The desk with the page fitted on it, as the screen shows it under the ink (XRGB, the
    /// screen's size): a worksheet page's paper, kept as a `PageSnapshot` numbered by `PaperIDs`.
    public func paper() throws -> PageSnapshot {
        let surface = try ImageSurface(size: size, format: .xrgb)
        draw([], on: surface.surface)
        cairo_surface_flush(surface.surface)
        return PageSnapshot(of: surface, backdrop: PaperIDs.next())
    }

    /// The page fitted into `size` (a list's thumbnail), without the desk around it.
    public static func thumbnail(_ page: PageBackdrop, height: Int) throws -> ImageSurface {
        let fit = PageFit(pageWidth: page.pageWidth, pageHeight: page.pageHeight,
                          into: Rect(x: 0, y: 0, width: Double(height) * 4, height: Double(height)))
        let image = try ImageSurface(size: PixelSize(width: max(1, Int(fit.rect.width.rounded())), height: height), format: .argb)
        let ctx = CairoContext(image)
        ctx.fill(Rect(x: 0, y: 0, width: Double(image.size.width), height: Double(height)), with: .white)
        cairo_scale(ctx.cr, fit.scale, fit.scale)
        page.draw(in: ctx.cr, printing: false)
        cairo_surface_flush(image.surface)
        return image
    }

    private var screen: Rect { Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)) }

    /// The size of a vector file's page: the backdrop's page, else the screen's (1 px = 1 pt).
    private var vectorPage: (width: Double, height: Double) {
        backdrop.map { ($0.pageWidth, $0.pageHeight) } ?? (Double(size.width), Double(size.height))
    }

    public func png(_ strokes: [Stroke], to path: String) throws {
        let image = try ImageSurface(size: size, format: .argb)
        draw(strokes, on: image.surface)
        try image.writePNG(to: path)
    }

    /// The PNG `png(_:to:)` writes, in memory (a signature to be encrypted before it reaches the disk).
    public func pngData(_ strokes: [Stroke]) throws -> Data {
        let image = try ImageSurface(size: size, format: .argb)
        draw(strokes, on: image.surface)
        return try image.pngData()
    }

    /// The SVG `svg(_:to:)` writes, in memory.
    public func svgData(_ strokes: [Stroke]) throws -> Data {
        let sink = CairoByteSink()
        try withExtendedLifetime(sink) { try svg(strokes, into: CairoByteSink.write, Unmanaged.passUnretained(sink).toOpaque()) }
        return sink.data
    }

    /// The SVG drawn into a cairo stream (`write` called with `closure`).
    private func svg(_ strokes: [Stroke], into write: cairo_write_func_t, _ closure: UnsafeMutableRawPointer) throws {
        guard let surface = cairo_svg_surface_create_for_stream(write, closure, vectorPage.width, vectorPage.height) else {
            throw RenderError("cannot create an SVG surface")
        }
        cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        try finish(surface, strokes, "the SVG")
    }

    /// The part of the page the ink covers, grown by `margin` and kept on the page, in whole pixels.
    public func inkBounds(_ strokes: [Stroke], margin: Double) -> Rect? {
        let ink = strokes.reduce(Rect.empty) { $0.union($1.bounds) }
        guard !ink.isEmpty else { return nil }
        let r = ink.outset(by: margin).integral.intersection(screen)
        return r.isEmpty ? nil : r
    }

    /// An exporter for the cropped region: strokes are drawn shifted so `crop` starts at 0,0.
    public func cropped(to crop: Rect) -> Exporter {
        var e = Exporter(size: PixelSize(width: Int(crop.width), height: Int(crop.height)), background: background)
        e.origin = Point(crop.minX, crop.minY)
        return e
    }

    public func svg(_ strokes: [Stroke], to path: String) throws {
        guard let surface = cairo_svg_surface_create(path, vectorPage.width, vectorPage.height) else {
            throw RenderError("cannot create \(path)")
        }
        // Pixels, not points: an SVG viewer then shows it at the size the screen did.
        cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        try finish(surface, strokes, path)
    }

    /// One PDF page of the screen's size, in points (1 px = 1 pt, so the page keeps the proportions).
    public func pdf(_ strokes: [Stroke], to path: String) throws {
        try pdf(pages: [strokes], to: path)
    }

    /// One PDF page per drawing, in order (a classroom notebook).
    public func pdf(pages: [[Stroke]], to path: String) throws {
        try Self.pdf(sheets: pages.map { (self, $0) }, to: path)
    }

    /// One PDF page per drawing, each with its own exporter (a worksheet's page under the ink,
    /// or none): each page has its backdrop's size.
    public static func pdf(sheets: [(exporter: Exporter, strokes: [Stroke])], to path: String) throws {
        let first = sheets.first?.exporter.vectorPage ?? (width: 1, height: 1)
        guard let surface = cairo_pdf_surface_create(path, first.width, first.height) else {
            throw RenderError("cannot create \(path)")
        }
        try finish(surface, sheets, path)
    }

    /// The SVG `svg(_:to:)` writes, written to `fd` (a file another process opened).
    public func svg(_ strokes: [Stroke], toDescriptor fd: Int32) throws {
        let sink = CairoDescriptorSink(fd: fd)
        try withExtendedLifetime(sink) {
            do { try svg(strokes, into: CairoDescriptorSink.write, Unmanaged.passUnretained(sink).toOpaque()) } catch { try sink.check(); throw error }
        }
        try sink.check()
    }

    /// The PDF `pdf(sheets:to:)` writes, written to `fd` (a file another process opened).
    public static func pdf(sheets: [(exporter: Exporter, strokes: [Stroke])], toDescriptor fd: Int32) throws {
        let first = sheets.first?.exporter.vectorPage ?? (width: 1, height: 1)
        let sink = CairoDescriptorSink(fd: fd)
        try withExtendedLifetime(sink) {
            guard let surface = cairo_pdf_surface_create_for_stream(CairoDescriptorSink.write, Unmanaged.passUnretained(sink).toOpaque(),
                                                                    first.width, first.height) else {
                throw RenderError("cannot create a PDF surface")
            }
            // A failed write says why (its errno: EFBIG past the PDF helper's file size limit), not only cairo's status.
            do { try finish(surface, sheets, "the PDF") } catch { try sink.check(); throw error }
        }
        try sink.check()
    }

    private func finish(_ surface: OpaquePointer, _ strokes: [Stroke], _ path: String) throws {
        try Self.finish(surface, [(self, strokes)], path)
    }

    private static func finish(_ surface: OpaquePointer, _ pages: [(exporter: Exporter, strokes: [Stroke])], _ path: String) throws {
        defer { cairo_surface_destroy(surface) }
        for (i, page) in pages.enumerated() {
            if i > 0 { cairo_surface_show_page(surface) }
            if cairo_surface_get_type(surface) == CAIRO_SURFACE_TYPE_PDF {
                cairo_pdf_surface_set_size(surface, page.exporter.vectorPage.width, page.exporter.vectorPage.height)
            }
            page.exporter.draw(page.strokes, on: surface, vector: true)
        }
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw RenderError("cannot write \(path)", status) }
    }

    private func draw(_ strokes: [Stroke], on surface: OpaquePointer, vector: Bool = false) {
        let ctx = CairoContext(surface)
        // On a new page OVER paints what SOURCE does; cairo 1.18's SVG writer (Debian 13) turns a
        // SOURCE fill into a compositing filter that 1.16 (Debian 12) never wrote and viewers differ on.
        let paper = vector ? CAIRO_OPERATOR_OVER : CAIRO_OPERATOR_SOURCE
        if let backdrop, let fit = pageFit {
            if vector {
                // The page as it prints, then the ink carried from the screen onto it.
                let page = Rect(x: 0, y: 0, width: backdrop.pageWidth, height: backdrop.pageHeight)
                if case .color(let c) = background { ctx.fill(page, with: c, operator: paper) }
                cairo_save(ctx.cr)
                backdrop.draw(in: ctx.cr, printing: true)
                cairo_restore(ctx.cr)
                cairo_scale(ctx.cr, 1 / fit.scale, 1 / fit.scale)
                cairo_translate(ctx.cr, -fit.rect.minX, -fit.rect.minY)
            } else {
                ctx.fill(Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)), with: Self.desk)
                if case .color(let c) = background {
                    ctx.fill(Rect(x: fit.rect.minX - origin.x, y: fit.rect.minY - origin.y, width: fit.rect.width, height: fit.rect.height), with: c)
                }
                cairo_save(ctx.cr)
                cairo_translate(ctx.cr, fit.rect.minX - origin.x, fit.rect.minY - origin.y)
                cairo_scale(ctx.cr, fit.scale, fit.scale)
                backdrop.draw(in: ctx.cr, printing: false)
                cairo_restore(ctx.cr)
                cairo_translate(ctx.cr, -origin.x, -origin.y)
            }
        } else {
            if case .color(let c) = background { ctx.fill(screen, with: c, operator: paper) }
            cairo_translate(ctx.cr, -origin.x, -origin.y)
        }
        for stroke in strokes { ShapePainter.drawStroke(stroke, in: ctx.cr, vector: vector) }
    }
}
