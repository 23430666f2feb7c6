// SPDX-License-Identifier: Apache-2.0
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
        var list = FigureList()
        emit(stroke, into: &list)
        return list.figures
    }

    /// Ink shapes as figures (`emit(_:into:)` for shapes).
    public static func figures(of shapes: [InkShape]) -> [VectorFigure] {
        var list = FigureList()
        emit(shapes, into: &list)
        return list.figures
    }

    /// The stroke's figures, into `sink`.
    public static func emit<Sink: VectorSink>(_ stroke: Stroke, into sink: inout Sink) {
        let samples = stroke.samples, brush = stroke.brush
        let shaper = StrokeShaper(brush: brush)
        guard brush.tool == .pen || brush.tool == .highlighter else {
            emit(samples.indices.flatMap { shaper.piece($0, samples: samples, nibAngles: stroke.nibAngles).shapes }, into: &sink)
            return
        }
        guard let first = samples.first else { return }
        let color = brush.color.withAlpha(1)
        if samples.count == 1 {
            sink.add(.circle(center: first.location, radius: max(brush.inkWidth(pressure: first.pressure) / 2, thinnest)))
            sink.paint(.fill, color: color)
            return
        }
        var run: Double?
        func endRun() {
            guard let width = run else { return }
            sink.paint(.stroke(width: max(width, thinnest)), color: color)
            run = nil
        }
        var previousWidth = brush.inkWidth(pressure: first.pressure)
        for k in 1..<samples.count {
            let width = brush.inkWidth(pressure: samples[k].pressure)
            // The screen's band widens evenly from one sample's width to the next: its middle.
            let pieceWidth = (previousWidth + width) / 2
            previousWidth = width
            if let w = run, abs(w - pieceWidth) > sameWidth { endRun() }
            if run == nil {
                run = pieceWidth
                sink.add(.move(samples[k - 1].location))
            }
            let (b, c) = shaper.centreline(k, samples: samples).bezierControls
            sink.add(.cubic(b, c, samples[k].location))
        }
        endRun()
    }

    /// Ink shapes into `sink`: consecutive shapes of one colour filled as a single path
    /// (non-zero rule), so the pieces of one stroke never show seams between them; a polyline
    /// stroked on its own, after what was filled before it.
    public static func emit<Sink: VectorSink>(_ shapes: [InkShape], into sink: inout Sink) {
        var i = 0
        while i < shapes.count {
            let color = shapes[i].color
            var hasFill = false
            var j = i
            while j < shapes.count, shapes[j].color == color {
                switch shapes[j].path {
                case .polygon(let pts):
                    addPolygon(pts, into: &sink); hasFill = true
                case .disc(let c, let r):
                    sink.add(.circle(center: c, radius: max(r, thinnest))); sink.add(.close); hasFill = true
                case .polyline(let pts, let w):
                    if hasFill { sink.paint(.fill, color: color); hasFill = false }
                    if let first = pts.first {
                        sink.add(.move(first))
                        for p in pts.dropFirst() { sink.add(.line(p)) }
                        sink.paint(.stroke(width: w), color: color)
                    }
                }
                j += 1
            }
            // A polygon too small to have an area is still a fill (of nothing), as before.
            if hasFill { sink.paint(.fill, color: color) }
            i = j
        }
    }

    /// The polygon turning the same way as a circle (clockwise on screen): with the non-zero
    /// rule, a polygon and a disc of opposite turns would cancel where they overlap.
    private static func addPolygon<Sink: VectorSink>(_ pts: [Point], into sink: inout Sink) {
        guard pts.count >= 3 else { return }
        var twiceArea = 0.0
        for k in pts.indices {
            let a = pts[k], b = pts[k + 1 == pts.count ? 0 : k + 1]
            twiceArea += a.x * b.y - b.x * a.y
        }
        if twiceArea >= 0 {
            sink.add(.move(pts[0]))
            for p in pts.dropFirst() { sink.add(.line(p)) }
        } else {
            sink.add(.move(pts[pts.count - 1]))
            for p in pts.dropLast().reversed() { sink.add(.line(p)) }
        }
        sink.add(.close)
    }
}
