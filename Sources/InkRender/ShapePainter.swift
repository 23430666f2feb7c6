import CCairo
import InkCore

/// Draws ink shapes with cairo. Consecutive shapes of one colour are filled as a single path
/// (non-zero rule), so the pieces of one stroke never show seams between them.
enum ShapePainter {
    static func draw(_ shapes: [InkShape], in cr: OpaquePointer, alpha: Double = 1) {
        var i = 0
        while i < shapes.count {
            let color = shapes[i].color
            var j = i
            var hasFill = false
            cairo_new_path(cr)
            while j < shapes.count, shapes[j].color == color {
                switch shapes[j].path {
                case .polygon(let pts):
                    addPolygon(pts, cr); hasFill = true
                case .disc(let c, let r):
                    cairo_new_sub_path(cr)
                    cairo_arc(cr, c.x, c.y, max(r, 0.01), 0, 2 * .pi)
                    cairo_close_path(cr)
                    hasFill = true
                case .polyline(let pts, let w):
                    if hasFill { fill(color, alpha, cr); hasFill = false }
                    stroke(pts, width: w, color, alpha, cr)
                }
                j += 1
            }
            if hasFill { fill(color, alpha, cr) }
            i = j
        }
    }

    /// Adds the polygon turning the same way as `cairo_arc` (clockwise on screen): with the
    /// non-zero rule, a polygon and a disc of opposite turns would cancel where they overlap.
    private static func addPolygon(_ pts: [Point], _ cr: OpaquePointer) {
        guard pts.count >= 3 else { return }
        var twiceArea = 0.0
        for (a, b) in zip(pts, pts.dropFirst() + [pts[0]]) { twiceArea += a.x * b.y - b.x * a.y }
        let ordered = twiceArea >= 0 ? pts : pts.reversed()
        cairo_move_to(cr, ordered[0].x, ordered[0].y)
        for p in ordered.dropFirst() { cairo_line_to(cr, p.x, p.y) }
        cairo_close_path(cr)
    }

    private static func fill(_ c: RGBA, _ alpha: Double, _ cr: OpaquePointer) {
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
        cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * alpha)
        cairo_fill(cr)
    }

    private static func stroke(_ pts: [Point], width: Double, _ c: RGBA, _ alpha: Double, _ cr: OpaquePointer) {
        guard let first = pts.first else { return }
        cairo_new_path(cr)
        cairo_move_to(cr, first.x, first.y)
        for p in pts.dropFirst() { cairo_line_to(cr, p.x, p.y) }
        cairo_set_line_width(cr, width)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * alpha)
        cairo_stroke(cr)
    }

    /// A whole stroke as one translucent layer: overlapping parts of it never darken.
    ///
    /// `vector`: the target is an SVG or PDF (`VectorStroke`). There an opaque stroke is drawn
    /// straight onto the page: a group per stroke costs a nested group (SVG) or a
    /// transparency-group object (PDF) and looks the same; a translucent one keeps it.
    static func drawStroke(_ stroke: Stroke, in cr: OpaquePointer, vector: Bool = false) {
        func ink() {
            if vector {
                VectorStroke.draw(stroke, in: cr)
            } else {
                let shaper = StrokeShaper(brush: stroke.brush)
                for k in stroke.samples.indices {
                    draw(shaper.piece(k, samples: stroke.samples, nibAngles: stroke.nibAngles).shapes, in: cr)
                }
            }
        }
        if vector && stroke.brush.opacity >= 1 {
            ink()
            return
        }
        // The group is as large as the clip: keep it to the stroke, not the whole surface.
        let r = stroke.bounds.outset(by: 2).integral
        cairo_save(cr)
        cairo_rectangle(cr, r.minX, r.minY, r.width, r.height)
        cairo_clip(cr)
        cairo_push_group(cr)
        ink()
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, stroke.brush.opacity)
        cairo_restore(cr)
    }
}
