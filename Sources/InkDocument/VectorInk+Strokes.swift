// SPDX-License-Identifier: Apache-2.0
import InkCore

extension VectorInk {
    /// The kiosk's strokes as a field's ink: the same figures the SVG and PDF exports draw
    /// (`StrokeVectors`), moved from the part of the screen that showed the field into the
    /// field's own space.
    ///
    /// `area` is that part of the screen in pixels (y down); `fieldSize` the field's /Rect in
    /// points. One uniform scale maps the one onto the other, so a circle stays a circle: when
    /// their shapes differ, the area is fitted into the field and centred. Line widths and
    /// dots scale by the same factor; colours stay, a stroke's opacity in each of its paths.
    /// Ink outside `area` lands outside the field, where its appearance (/BBox) cuts it off.
    public init(strokes: [Stroke], shownIn area: Rect, fieldSize: (width: Double, height: Double)) throws {
        let fit = try ScreenToField(area: area, fieldSize: fieldSize)
        self.init(strokes.flatMap { stroke in
            StrokeVectors.figures(of: stroke).map { fit.path($0, opacity: stroke.brush.opacity) }
        })
    }
}

/// Screen pixels (y down) of an area to a field's points (y up, origin its lower left corner).
struct ScreenToField {
    let area: Rect
    /// Points per pixel.
    let scale: Double
    /// Where the area's top left corner lands, from the field's top left (the centring).
    let inset: (x: Double, y: Double)
    let fieldHeight: Double

    init(area: Rect, fieldSize: (width: Double, height: Double)) throws {
        let corners = [area.minX, area.minY, area.maxX, area.maxY]
        guard corners.allSatisfy(\.isFinite), area.width > 0, area.height > 0 else {
            throw PDFError.refused("the screen area \(area) that showed the field has no area: its ink cannot be placed")
        }
        guard fieldSize.width.isFinite, fieldSize.height.isFinite, fieldSize.width > 0, fieldSize.height > 0 else {
            throw PDFError.refused("a field of \(fieldSize.width) × \(fieldSize.height) points has no area to put ink in")
        }
        self.area = area
        scale = min(fieldSize.width / area.width, fieldSize.height / area.height)
        inset = ((fieldSize.width - area.width * scale) / 2, (fieldSize.height - area.height * scale) / 2)
        fieldHeight = fieldSize.height
    }

    func point(_ p: Point) -> Point {
        Point((p.x - area.minX) * scale + inset.x, fieldHeight - ((p.y - area.minY) * scale + inset.y))
    }

    /// The figure in field space. Flipping y turns every subpath the other way, all alike,
    /// so what the non-zero rule fills stays the same.
    func path(_ figure: VectorFigure, opacity: Double) -> InkPath {
        var segments: [VectorFigure.Segment] = []
        segments.reserveCapacity(figure.segments.count)
        func add(_ segment: VectorFigure.Segment) {
            switch segment {
            case .move(let a): segments.append(.move(point(a)))
            case .line(let a): segments.append(.line(point(a)))
            case .cubic(let b, let c, let a): segments.append(.cubic(point(b), point(c), point(a)))
            case .close: segments.append(.close)
            case .circle(let c, let r):
                // As Béziers made on screen and moved like everything else: a circle made after
                // the flip would turn against the polygons, and the non-zero rule cut holes.
                VectorFigure.Segment.bezierCircle(center: c, radius: r).forEach(add)
            }
        }
        figure.segments.forEach(add)
        let painting: InkPath.Painting
        switch figure.painting {
        case .fill: painting = .fill()
        case .stroke(let width): painting = .stroke(width: width * scale, cap: .round, join: .round)
        }
        let c = figure.color
        return InkPath(segments, painting: painting, color: RGBA(c.r, c.g, c.b, c.a * opacity))
    }
}
