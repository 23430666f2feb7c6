// SPDX-License-Identifier: Apache-2.0
/// One figure of ink as a vector path, in screen pixels (y down): its segments, how they are
/// painted, and the colour. What a stroke is in an SVG, a PDF export or a signed PDF's field:
/// cairo replays these (InkRender), the PDF writer maps them into a field (InkDocument).
public struct VectorFigure: Sendable, Equatable {
    public enum Segment: Sendable, Equatable {
        case move(Point)
        case line(Point)
        /// A cubic Bézier: two control points, then the end.
        case cubic(Point, Point, Point)
        /// A whole circle as a subpath of its own, starting at angle 0 and turning the way
        /// angles grow (clockwise on screen), as `cairo_arc` draws it.
        case circle(center: Point, radius: Double)
        case close
    }

    public enum Painting: Sendable, Equatable {
        /// Filled by the non-zero winding rule.
        case fill
        /// Stroked with round caps and joins, a line `width` pixels wide.
        case stroke(width: Double)
    }

    public var segments: [Segment]
    public var painting: Painting
    public var color: RGBA

    public init(_ segments: [Segment], painting: Painting, color: RGBA) {
        self.segments = segments; self.painting = painting; self.color = color
    }
}

extension VectorFigure.Segment {
    /// The circle as four cubic Béziers (a quarter each, the usual 0.5523 handle length), for
    /// writers with no arcs: at most 0.03 % of the radius off the true circle.
    public static func bezierCircle(center c: Point, radius r: Double) -> [VectorFigure.Segment] {
        let k = 0.552_284_749_831 * r
        return [
            .move(Point(c.x + r, c.y)),
            .cubic(Point(c.x + r, c.y + k), Point(c.x + k, c.y + r), Point(c.x, c.y + r)),
            .cubic(Point(c.x - k, c.y + r), Point(c.x - r, c.y + k), Point(c.x - r, c.y)),
            .cubic(Point(c.x - r, c.y - k), Point(c.x - k, c.y - r), Point(c.x, c.y - r)),
            .cubic(Point(c.x + k, c.y - r), Point(c.x + r, c.y - k), Point(c.x + r, c.y)),
            .close,
        ]
    }
}

/// Where figures go as they are made: a path's segments, then how that path is painted. The
/// screen's painter sends them straight to cairo (no figure is kept); files and signed PDFs
/// collect them (`FigureList`).
public protocol VectorSink {
    mutating func add(_ segment: VectorFigure.Segment)
    /// The segments added since the last paint make one figure, painted so.
    mutating func paint(_ painting: VectorFigure.Painting, color: RGBA)
}

/// The figures, kept.
public struct FigureList: VectorSink {
    public private(set) var figures: [VectorFigure] = []
    private var segments: [VectorFigure.Segment] = []
    public init() {}
    public mutating func add(_ segment: VectorFigure.Segment) { segments.append(segment) }
    public mutating func paint(_ painting: VectorFigure.Painting, color: RGBA) {
        figures.append(VectorFigure(segments, painting: painting, color: color))
        segments.removeAll(keepingCapacity: true)
    }
}

