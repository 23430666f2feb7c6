// SPDX-License-Identifier: Apache-2.0
import CCairo
import InkCore

/// Draws ink with cairo: ink shapes as the figures `StrokeVectors` makes of them (one colour's
/// consecutive shapes filled as a single path, so the pieces of one stroke never show seams
/// between them), sent straight to cairo as they are made.
enum ShapePainter {
    static func draw(_ shapes: [InkShape], in cr: OpaquePointer, alpha: Double = 1) {
        var sink = CairoSink(cr: cr, alpha: alpha)
        StrokeVectors.emit(shapes, into: &sink)
    }

    /// Figures straight into cairo as they are made (the screen keeps none of them).
    struct CairoSink: VectorSink {
        let cr: OpaquePointer
        let alpha: Double
        /// A fill or stroke ends cairo's path; the first segment after one begins a new one.
        private var pathStarted = false

        init(cr: OpaquePointer, alpha: Double) { self.cr = cr; self.alpha = alpha }

        mutating func add(_ segment: VectorFigure.Segment) {
            if !pathStarted { cairo_new_path(cr); pathStarted = true }
            switch segment {
            case .move(let p): cairo_move_to(cr, p.x, p.y)
            case .line(let p): cairo_line_to(cr, p.x, p.y)
            case .cubic(let b, let c, let p): cairo_curve_to(cr, b.x, b.y, c.x, c.y, p.x, p.y)
            case .circle(let c, let r):
                cairo_new_sub_path(cr)
                cairo_arc(cr, c.x, c.y, r, 0, 2 * .pi)
            case .close: cairo_close_path(cr)
            }
        }

        mutating func paint(_ painting: VectorFigure.Painting, color c: RGBA) {
            if !pathStarted { cairo_new_path(cr) }
            pathStarted = false
            switch painting {
            case .fill:
                cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * alpha)
                cairo_fill(cr)
            case .stroke(let width):
                cairo_set_line_width(cr, width)
                cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
                cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * alpha)
                cairo_stroke(cr)
            }
        }
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
