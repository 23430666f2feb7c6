// SPDX-License-Identifier: Apache-2.0
import InkCore

/// One figure of ink as vector path: segments, and how they are painted.
public struct InkPath: Sendable, Equatable {
    /// The kiosk's own segments (InkCore): move, line, cubic, close, and a circle (written as
    /// four Béziers, turning as angles grow in the field's space).
    public typealias Segment = VectorFigure.Segment

    public enum LineCap: Int, Sendable { case butt = 0, round = 1, square = 2 }
    public enum LineJoin: Int, Sendable { case miter = 0, round = 1, bevel = 2 }

    public enum Painting: Sendable, Equatable {
        /// Filled by the non-zero winding rule, or the even-odd rule.
        case fill(evenOdd: Bool = false)
        /// Stroked with a line `width` points wide.
        case stroke(width: Double, cap: LineCap = .round, join: LineJoin = .round)
    }

    public var segments: [Segment]
    public var painting: Painting
    public var color: RGBA

    public init(_ segments: [Segment], painting: Painting, color: RGBA) {
        self.segments = segments; self.painting = painting; self.color = color
    }
}

/// Ink for a signature field, in the field's own coordinate space: points, origin at the
/// lower left corner of the field's rectangle, y upwards, the rectangle `size` wide and high.
/// (The kiosk maps its strokes from the screen into this; the appearance is then drawn
/// exactly into the field's /Rect.)
public struct VectorInk: Sendable, Equatable {
    public var paths: [InkPath]
    public init(_ paths: [InkPath]) { self.paths = paths }
}

/// The appearance of ink: a Form XObject's content stream (PDF path operators) and its
/// resources (an ExtGState per alpha below 1).
struct InkAppearance {
    var content: [UInt8]
    var resources: PDFDictionary

    /// Coordinates with 3 decimals: a thousandth of a point is far below what any device shows.
    static let decimals = 3

    init(_ ink: VectorInk) throws {
        var text = ""
        var states: [Double: String] = [:]
        var extGStates = PDFDictionary()
        func n(_ v: Double) -> String { PDFSerializer.fixed(v, decimals: Self.decimals) }
        func p(_ point: Point) throws -> String {
            guard point.x.isFinite, point.y.isFinite else { throw PDFError.refused("ink with a point that is not finite (\(point.x), \(point.y))") }
            return n(point.x) + " " + n(point.y)
        }
        for (i, path) in ink.paths.enumerated() where !path.segments.isEmpty {
            let c = path.color
            guard [c.r, c.g, c.b, c.a].allSatisfy({ $0.isFinite }) else { throw PDFError.refused("ink path \(i) has a colour that is not finite") }
            let (r, g, b) = (Self.clamp(c.r), Self.clamp(c.g), Self.clamp(c.b))
            let alpha = Self.clamp(c.a)
            if alpha == 0 { continue }
            text += "q\n"
            if alpha < 1 {
                let state: String
                if let known = states[alpha] {
                    state = known
                } else {
                    state = "GS\(states.count)"
                    states[alpha] = state
                    extGStates[PDFName(state)] = .dictionary(PDFDictionary([
                        ("Type", .name("ExtGState")), ("ca", .real(alpha)), ("CA", .real(alpha)),
                    ]))
                }
                text += "/\(state) gs\n"
            }
            let paint: String
            switch path.painting {
            case .fill(let evenOdd):
                text += "\(n(r)) \(n(g)) \(n(b)) rg\n"
                paint = evenOdd ? "f*" : "f"
            case .stroke(let width, let cap, let join):
                guard width.isFinite, width >= 0 else { throw PDFError.refused("ink path \(i) has the line width \(width)") }
                text += "\(n(r)) \(n(g)) \(n(b)) RG \(n(width)) w \(cap.rawValue) J \(join.rawValue) j\n"
                paint = "S"
            }
            // A path must start with a move; one that does not starts where its first segment does.
            var started = false
            for segment in path.segments.flatMap(Self.withoutCircles) {
                switch segment {
                case .move(let a): text += try p(a) + " m\n"; started = true
                case .line(let a): text += try p(a) + (started ? " l\n" : " m\n"); started = true
                case .cubic(let c1, let c2, let a):
                    if !started { text += try p(c1) + " m\n"; started = true }
                    text += try p(c1) + " " + p(c2) + " " + p(a) + " c\n"
                case .close: if started { text += "h\n" }
                case .circle: preconditionFailure("circles are Béziers by now")
                }
            }
            text += paint + "\nQ\n"
        }
        content = Array(text.utf8)
        resources = PDFDictionary()
        if extGStates.count > 0 { resources["ExtGState"] = .dictionary(extGStates) }
    }

    /// PDF has no circles: four Béziers each.
    private static func withoutCircles(_ segment: InkPath.Segment) -> [InkPath.Segment] {
        guard case .circle(let c, let r) = segment else { return [segment] }
        return InkPath.Segment.bezierCircle(center: c, radius: r)
    }

    private static func clamp(_ v: Double) -> Double { min(1, max(0, v)) }

    /// The Form XObject: /BBox the field's size, so that the appearance fills its /Rect exactly.
    func formXObject(size: (width: Double, height: Double)) throws -> PDFStream {
        let compressed = try Zlib.deflate(content)
        let dictionary = PDFDictionary([
            ("Type", .name("XObject")), ("Subtype", .name("Form")), ("FormType", .integer(1)),
            ("BBox", PDFRect(0, 0, size.width, size.height).object), ("Resources", .dictionary(resources)),
            ("Filter", .name("FlateDecode")),
        ])
        return PDFStream(dictionary: dictionary, data: compressed[...])
    }
}
