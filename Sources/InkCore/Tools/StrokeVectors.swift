/// A stroke's ink as vector figures, where size and the viewer's work matter more than
/// matching the screen's pieces one by one: what SVG and PDF exports draw, and what a signed
/// PDF's field shows. One description, so that the files and the signature cannot disagree.
///
/// A round pen's stroke is its centre line, the spline itself as cubic Béziers (not points a few
/// pixels apart), stroked with round caps and joins at each piece's width. Neighbouring pieces
/// whose widths differ by less than `sameWidth` are one path: a highlighter's or a finger's
/// stroke is a single path, a pen's is one per change of pressure. Other tools (the nib swept
/// along the curve, the debug marks) are their pieces' shapes, filled as one path.
public enum StrokeVectors {
    public typealias Segment = VectorFigure.Segment

    /// Pixels: a width step this small does not show.
    public static let sameWidth = 0.02
    /// Pixels: the thinnest line or dot drawn (a zero width would draw nothing at all).
    public static let thinnest = 0.01

    /// The stroke's figures, in the order they are painted. The stroke's opacity is not in
    /// their colours (each is opaque): it applies to the stroke as a whole.
    public static func figures(of stroke: Stroke) -> [VectorFigure] {
        let samples = stroke.samples, brush = stroke.brush
        let shaper = StrokeShaper(brush: brush)
        guard brush.tool == .pen || brush.tool == .highlighter else {
            return figures(of: samples.indices.flatMap { shaper.piece($0, samples: samples, nibAngles: stroke.nibAngles).shapes })
        }
        guard let first = samples.first else { return [] }
        let color = brush.color.withAlpha(1)
        if samples.count == 1 {
            let radius = max(brush.inkWidth(pressure: first.pressure) / 2, thinnest)
            return [VectorFigure([.circle(center: first.location, radius: radius)], painting: .fill, color: color)]
        }
        var figures: [VectorFigure] = []
        var run: (width: Double, segments: [Segment])?
        func endRun() {
            guard let r = run else { return }
            figures.append(VectorFigure(r.segments, painting: .stroke(width: max(r.width, thinnest)), color: color))
            run = nil
        }
        var previousWidth = brush.inkWidth(pressure: first.pressure)
        for k in 1..<samples.count {
            let width = brush.inkWidth(pressure: samples[k].pressure)
            // The screen's band widens evenly from one sample's width to the next: its middle.
            let pieceWidth = (previousWidth + width) / 2
            previousWidth = width
            if let r = run, abs(r.width - pieceWidth) > sameWidth { endRun() }
            if run == nil { run = (pieceWidth, [.move(samples[k - 1].location)]) }
            let (b, c) = shaper.centreline(k, samples: samples).bezierControls
            run?.segments.append(.cubic(b, c, samples[k].location))
        }
        endRun()
        return figures
    }

    /// Ink shapes as figures: consecutive shapes of one colour filled as a single path (non-zero
    /// rule), so the pieces of one stroke never show seams between them; a polyline stroked on
    /// its own, after what was filled before it.
    public static func figures(of shapes: [InkShape]) -> [VectorFigure] {
        var figures: [VectorFigure] = []
        var i = 0
        while i < shapes.count {
            let color = shapes[i].color
            var filled: [Segment] = [], hasFill = false
            var j = i
            while j < shapes.count, shapes[j].color == color {
                switch shapes[j].path {
                case .polygon(let pts):
                    filled += polygon(pts); hasFill = true
                case .disc(let c, let r):
                    filled += [.circle(center: c, radius: max(r, thinnest)), .close]; hasFill = true
                case .polyline(let pts, let w):
                    if hasFill { figures.append(VectorFigure(filled, painting: .fill, color: color)); filled = []; hasFill = false }
                    if let first = pts.first {
                        let segments = [Segment.move(first)] + pts.dropFirst().map { Segment.line($0) }
                        figures.append(VectorFigure(segments, painting: .stroke(width: w), color: color))
                    }
                }
                j += 1
            }
            // A polygon too small to have an area is still a fill (of nothing), as before.
            if hasFill { figures.append(VectorFigure(filled, painting: .fill, color: color)) }
            i = j
        }
        return figures
    }

    /// The polygon turning the same way as a circle (clockwise on screen): with the non-zero
    /// rule, a polygon and a disc of opposite turns would cancel where they overlap.
    private static func polygon(_ pts: [Point]) -> [Segment] {
        guard pts.count >= 3 else { return [] }
        var twiceArea = 0.0
        for (a, b) in zip(pts, pts.dropFirst() + [pts[0]]) { twiceArea += a.x * b.y - b.x * a.y }
        let ordered = twiceArea >= 0 ? pts : pts.reversed()
        return [.move(ordered[0])] + ordered.dropFirst().map { .line($0) } + [.close]
    }
}
