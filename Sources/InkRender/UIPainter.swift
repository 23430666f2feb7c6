// SPDX-License-Identifier: Apache-2.0
import CCairo
import InkCore

/// Draws `UIElement`s with cairo; text in DejaVu Sans (fontconfig finds it).
public enum UIPainter {
    static let family = "DejaVu Sans"

    static func draw(_ elements: [UIElement], in cr: OpaquePointer) {
        for e in elements { draw(e, in: cr) }
    }

    static func draw(_ element: UIElement, in cr: OpaquePointer) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        switch element {
        case let .box(r, fill, border, radius, borderWidth):
            path(rounded: r, radius: radius, in: cr)
            set(fill, cr)
            if let border {
                cairo_fill_preserve(cr)
                set(border, cr)
                cairo_set_line_width(cr, borderWidth)
                cairo_stroke(cr)
            } else {
                cairo_fill(cr)
            }
        case let .text(string, r, size, color, align, bold):
            text(string, in: r, size: size, color: color, align: align, bold: bold, cr: cr)
        case let .line(a, b, width, color):
            set(color, cr)
            cairo_set_line_width(cr, width)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
            cairo_move_to(cr, a.x, a.y)
            cairo_line_to(cr, b.x, b.y)
            cairo_stroke(cr)
        case let .dot(c, radius, color, ring):
            cairo_arc(cr, c.x, c.y, radius, 0, 2 * .pi)
            set(color, cr)
            cairo_fill(cr)
            if let ring {
                cairo_arc(cr, c.x, c.y, radius + 1.5, 0, 2 * .pi)
                set(ring, cr)
                cairo_set_line_width(cr, 3)
                cairo_stroke(cr)
            }
        case let .image(image, r):
            let w = Double(image.size.width), h = Double(image.size.height)
            guard w > 0, h > 0 else { return }
            let scale = min(r.width / w, r.height / h)
            cairo_rectangle(cr, r.minX, r.minY, r.width, r.height)
            cairo_clip(cr)
            cairo_translate(cr, r.minX + (r.width - w * scale) / 2, r.minY + (r.height - h * scale) / 2)
            cairo_scale(cr, scale, scale)
            cairo_set_source_surface(cr, image.surface.surface, 0, 0)
            cairo_paint(cr)
        }
    }

    /// One line of text, vertically centred, shrunk until it fits the rectangle's width.
    private static func text(_ s: String, in r: Rect, size: Double, color: RGBA, align: TextAlign, bold: Bool, cr: OpaquePointer) {
        cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        var fontSize = size
        var extents = cairo_text_extents_t()
        repeat {
            cairo_set_font_size(cr, fontSize)
            cairo_text_extents(cr, s, &extents)
            if extents.x_advance <= r.width { break }
            fontSize *= 0.9
        } while fontSize > 6
        var font = cairo_font_extents_t()
        cairo_font_extents(cr, &font)
        let x: Double
        switch align {
        case .leading: x = r.minX
        case .center: x = r.minX + (r.width - extents.x_advance) / 2
        case .trailing: x = r.maxX - extents.x_advance
        }
        let baseline = r.minY + (r.height + font.ascent - font.descent) / 2
        set(color, cr)
        cairo_move_to(cr, x, baseline)
        cairo_show_text(cr, s)
    }

    private static func path(rounded r: Rect, radius: Double, in cr: OpaquePointer) {
        let k = min(radius, r.width / 2, r.height / 2)
        guard k > 0 else { cairo_rectangle(cr, r.minX, r.minY, r.width, r.height); return }
        cairo_new_sub_path(cr)
        cairo_arc(cr, r.maxX - k, r.minY + k, k, -.pi / 2, 0)
        cairo_arc(cr, r.maxX - k, r.maxY - k, k, 0, .pi / 2)
        cairo_arc(cr, r.minX + k, r.maxY - k, k, .pi / 2, .pi)
        cairo_arc(cr, r.minX + k, r.minY + k, k, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }

    private static func set(_ c: RGBA, _ cr: OpaquePointer) { cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a) }
}
