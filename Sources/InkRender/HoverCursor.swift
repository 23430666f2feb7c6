// SPDX-License-Identifier: Apache-2.0
import CCairo
import InkCore

/// The hover preview as a small premultiplied-ARGB image centred on its hotspot, for a
/// hardware cursor plane: moving the pen then moves the plane and redraws nothing.
public enum HoverCursor {
    public static func image(for hover: HoverState, size: Int) throws -> ImageSurface {
        let image = try ImageSurface(size: PixelSize(width: size, height: size), format: .argb)
        let ctx = CairoContext(image)
        let (shapes, alpha) = OverlayShapes.hover(hover)
        cairo_translate(ctx.cr, Double(size / 2) - hover.location.x, Double(size / 2) - hover.location.y)
        cairo_push_group(ctx.cr)
        ShapePainter.draw(shapes, in: ctx.cr)
        cairo_pop_group_to_source(ctx.cr)
        cairo_paint_with_alpha(ctx.cr, alpha)
        cairo_surface_flush(image.surface)
        return image
    }

    /// Whether the preview fits on a cursor plane of `size` pixels.
    public static func fits(_ hover: HoverState, size: Int) -> Bool {
        let b = OverlayShapes.hover(hover).shapes.reduce(Rect.empty) { $0.union($1.path.bounds) }
        let half = Double(size / 2) - 1
        return b.minX >= hover.location.x - half && b.maxX <= hover.location.x + half
            && b.minY >= hover.location.y - half && b.maxY <= hover.location.y + half
    }
}
