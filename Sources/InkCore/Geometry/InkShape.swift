// SPDX-License-Identifier: Apache-2.0
/// One filled or stroked figure of ink, in screen pixels. The renderer (cairo) and every
/// export draw exactly these, so screen and files cannot disagree.
public enum ShapePath: Sendable, Equatable {
    /// Filled with the non-zero rule.
    case polygon([Point])
    case disc(center: Point, radius: Double)
    /// An open line of the given width with round ends (debug markings).
    case polyline([Point], width: Double)
}

public struct InkShape: Sendable, Equatable {
    public var path: ShapePath
    public var color: RGBA
    public init(_ path: ShapePath, _ color: RGBA) { self.path = path; self.color = color }
}

/// The ink one sample adds to its stroke: the segment that reaches it from the previous
/// sample and its joint (or, for the first sample, the stroke's start cap).
public struct StrokePiece: Sendable, Equatable {
    public var shapes: [InkShape]
    public var bounds: Rect
    public init(shapes: [InkShape]) {
        self.shapes = shapes
        bounds = shapes.reduce(Rect.empty) { $0.union($1.path.bounds) }
    }
}

extension ShapePath {
    public var bounds: Rect {
        switch self {
        case .polygon(let pts):
            return Rect.bounding(pts)
        case .disc(let c, let r):
            return Rect.around(c, radius: r)
        case .polyline(let pts, let w):
            return Rect.bounding(pts).outset(by: w / 2)
        }
    }
}
