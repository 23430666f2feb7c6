import CCairo
import InkCore

/// A stroke's ink for SVG and PDF, where size and the viewer's work matter more than matching
/// the screen's pieces one by one.
///
/// A round pen's stroke is its centre line, the spline itself as cubic Béziers (not points a few
/// pixels apart), stroked with round caps and joins at each piece's width. Neighbouring pieces
/// whose widths differ by less than `sameWidth` are one path: a highlighter's or a finger's
/// stroke is a single path, a pen's is one per change of pressure. Other tools (the nib swept
/// along the curve, the debug marks) are their pieces' shapes, filled as one path.
enum VectorStroke {
    /// Pixels: a width step this small does not show.
    static let sameWidth = 0.02

    static func draw(_ stroke: Stroke, in cr: OpaquePointer) {
        let samples = stroke.samples, brush = stroke.brush
        let shaper = StrokeShaper(brush: brush)
        guard brush.tool == .pen || brush.tool == .highlighter else {
            let shapes = samples.indices.flatMap { shaper.piece($0, samples: samples, nibAngles: stroke.nibAngles).shapes }
            ShapePainter.draw(shapes, in: cr)
            return
        }
        guard let first = samples.first else { return }
        let color = brush.color.withAlpha(1)
        cairo_set_source_rgba(cr, color.r, color.g, color.b, 1)
        if samples.count == 1 {
            cairo_new_path(cr)
            cairo_arc(cr, first.location.x, first.location.y, max(brush.inkWidth(pressure: first.pressure) / 2, 0.01), 0, 2 * .pi)
            cairo_fill(cr)
            return
        }
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        var run: Double?
        func strokeRun() {
            guard let width = run else { return }
            cairo_set_line_width(cr, max(width, 0.01))
            cairo_stroke(cr)
            run = nil
        }
        cairo_new_path(cr)
        var previousWidth = brush.inkWidth(pressure: first.pressure)
        for k in 1..<samples.count {
            let width = brush.inkWidth(pressure: samples[k].pressure)
            // The screen's band widens evenly from one sample's width to the next: its middle.
            let pieceWidth = (previousWidth + width) / 2
            previousWidth = width
            if let w = run, abs(w - pieceWidth) > sameWidth { strokeRun() }
            if run == nil {
                run = pieceWidth
                let start = samples[k - 1].location
                cairo_move_to(cr, start.x, start.y)
            }
            let (b, c) = shaper.centreline(k, samples: samples).bezierControls
            let end = samples[k].location
            cairo_curve_to(cr, b.x, b.y, c.x, c.y, end.x, end.y)
        }
        strokeRun()
    }
}
