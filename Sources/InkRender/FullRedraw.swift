// SPDX-License-Identifier: Apache-2.0
import CCairo
import InkCore

/// The benchmark's comparison figure: what one frame would cost if it redrew every finished
/// stroke from scratch instead of updating the canvas incrementally.
public enum FullRedraw {
    /// Seconds to fill `image` (XRGB, whatever it held) with white and draw every one of
    /// `strokes` into it with the renderer's own painter: the fill, the strokes and cairo's
    /// flush. The caller makes the image once for every run (a real renderer would reuse one).
    public static func time(_ strokes: [Stroke], on image: ImageSurface) throws -> Double {
        let size = image.size
        let ctx = CairoContext(image)
        let start = ContinuousClock.now
        ctx.fill(Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)), with: .white)
        for stroke in strokes { ShapePainter.drawStroke(stroke, in: ctx.cr) }
        cairo_surface_flush(image.surface)
        let elapsed = ContinuousClock.now - start
        let status = ctx.status
        guard status == CAIRO_STATUS_SUCCESS else { throw RenderError("full redraw of \(strokes.count) strokes", status) }
        return elapsed.inSeconds
    }
}
