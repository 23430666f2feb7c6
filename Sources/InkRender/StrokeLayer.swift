// SPDX-License-Identifier: Apache-2.0
import CCairo
import InkCore

/// The ink of one stroke being drawn, on pixels of its own: only over the part of the screen
/// the stroke has reached, not the whole screen.
///
/// A stroke's pieces overlap (each joint is a disc over the segments beside it); on a layer of
/// their own, then painted once with the brush's opacity, a translucent stroke does not darken
/// where its pieces overlap or where it crosses itself.
///
/// The pixels are the ones a screen-sized layer would hold: every piece is drawn on an image
/// that contains the whole piece (but where the screen cuts it, at the screen's edge), placed
/// by a whole-pixel device offset, and cairo rasterises a path the same under a whole-pixel
/// translation. A piece cut by an image edge inside the screen would not do: cairo's coverage
/// of the pixels beside such an edge can differ by a step. So the image grows (copying what is
/// drawn) before a piece that would cross its edge is drawn; `StrokeRaster` relies on the same.
final class StrokeLayer {
    /// nil until the first piece that shows on the screen.
    private(set) var image: ImageSurface?
    /// The part of the screen `image` covers (whole pixels; empty while there is no image).
    private(set) var area = Rect.empty
    /// Pieces drawn so far (the stroke's first `committedPieces` samples' pieces).
    var committedPieces = 0
    /// The union of the drawn pieces' bounds.
    private(set) var inked = Rect.empty
    private let screen: Rect

    /// Room added on a side the stroke grows past, so that a stroke moving on does not copy its
    /// image at every piece: at least this many pixels, or a quarter of the image's size.
    static let minimumGrowth = 32.0

    init(screen: PixelSize) {
        self.screen = Rect(x: 0, y: 0, width: Double(screen.width), height: Double(screen.height))
    }

    /// The bytes of pixels this layer holds.
    var bytes: Int { image.map { $0.stride * $0.size.height } ?? 0 }

    /// Draws one piece (pieces come in the stroke's order).
    func draw(_ piece: StrokePiece) throws {
        inked = inked.union(piece.bounds)
        // The piece with its antialiased edge, as far as the screen shows it.
        let needed = piece.bounds.outset(by: 2).integral.intersection(screen)
        guard needed.width >= 1, needed.height >= 1 else { return }
        if !contains(needed) { try grow(toCover: needed) }
        guard let image else { return }
        let ctx = CairoContext(image)
        ShapePainter.draw(piece.shapes, in: ctx.cr)
    }

    /// Sets this layer's pixels as `cr`'s source, where they belong on the screen; false when
    /// there are none.
    func setAsSource(of cr: OpaquePointer) -> Bool {
        guard let image else { return false }
        cairo_surface_flush(image.surface)
        cairo_set_source_surface(cr, image.surface, 0, 0)
        return true
    }

    private func contains(_ r: Rect) -> Bool {
        !area.isEmpty && r.minX >= area.minX && r.minY >= area.minY && r.maxX <= area.maxX && r.maxY <= area.maxY
    }

    /// A larger image over `area` and `needed`, with room on the sides the stroke grew past,
    /// holding what was drawn.
    private func grow(toCover needed: Rect) throws {
        let union = area.union(needed)
        let dx = max(Self.minimumGrowth, (union.width / 4).rounded(.up))
        let dy = max(Self.minimumGrowth, (union.height / 4).rounded(.up))
        var next = union
        if area.isEmpty || needed.minX < area.minX { next.minX -= dx }
        if area.isEmpty || needed.maxX > area.maxX { next.maxX += dx }
        if area.isEmpty || needed.minY < area.minY { next.minY -= dy }
        if area.isEmpty || needed.maxY > area.maxY { next.maxY += dy }
        next = next.integral.intersection(screen)
        let grown = try ImageSurface(size: PixelSize(width: Int(next.width), height: Int(next.height)), format: .argb,
                                     origin: Point(next.minX, next.minY))
        if let image {
            // Copied exactly (SOURCE): the pixels stay what they were.
            let ctx = CairoContext(grown)
            ctx.copy(image, in: area)
        }
        image = grown
        area = next
    }
}
