// SPDX-License-Identifier: Apache-2.0
/// A centripetal Catmull-Rom spline segment from p1 to p2 (p0 and p3 are its neighbours).
/// It passes through every sample, so a zig-zag keeps its corners, and the centripetal
/// parameterisation never loops or overshoots at sharp turns as the uniform one does.
public struct CatmullRomSegment: Sendable {
    let p0: Point, p1: Point, p2: Point, p3: Point
    let t0: Double, t1: Double, t2: Double, t3: Double
    let isStraight: Bool

    public init(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point) {
        let eps = 1e-6
        self.p1 = p1; self.p2 = p2
        // Missing or repeated neighbours are reflected, which keeps the end tangent along the chord.
        self.p0 = p0.distance(to: p1) < eps ? p1 * 2 - p2 : p0
        self.p3 = p3.distance(to: p2) < eps ? p2 * 2 - p1 : p3
        isStraight = p1.distance(to: p2) < eps || self.p0.distance(to: p1) < eps || self.p3.distance(to: p2) < eps
        func knot(_ a: Point, _ b: Point) -> Double { max(a.distance(to: b).squareRoot(), eps) }
        t0 = 0
        t1 = t0 + knot(self.p0, p1)
        t2 = t1 + knot(p1, p2)
        t3 = t2 + knot(p2, self.p3)
    }

    /// The point at fraction `u` (0…1) of the way from p1 to p2.
    public func point(at u: Double) -> Point {
        if isStraight { return p1 + (p2 - p1) * u }
        let t = t1 + (t2 - t1) * u
        func lerp(_ a: Point, _ b: Point, _ ta: Double, _ tb: Double) -> Point {
            a * ((tb - t) / (tb - ta)) + b * ((t - ta) / (tb - ta))
        }
        let a1 = lerp(p0, p1, t0, t1), a2 = lerp(p1, p2, t1, t2), a3 = lerp(p2, p3, t2, t3)
        let b1 = lerp(a1, a2, t0, t2), b2 = lerp(a2, a3, t1, t3)
        return lerp(b1, b2, t1, t2)
    }

    /// The same curve as a cubic Bézier from p1 to p2: its two inner control points.
    ///
    /// A Catmull-Rom segment is a cubic in its knot parameter, so this is exact: each control
    /// point lies a third of the knot interval along the curve's tangent at its end. SVG and PDF
    /// carry it as one curve where a polyline would need a point every few pixels.
    public var bezierControls: (Point, Point) {
        if isStraight { return (p1 + (p2 - p1) * (1.0 / 3), p2 - (p2 - p1) * (1.0 / 3)) }
        let m1 = (p1 - p0) * (1 / (t1 - t0)) - (p2 - p0) * (1 / (t2 - t0)) + (p2 - p1) * (1 / (t2 - t1))
        let m2 = (p2 - p1) * (1 / (t2 - t1)) - (p3 - p1) * (1 / (t3 - t1)) + (p3 - p2) * (1 / (t3 - t2))
        let third = (t2 - t1) / 3
        return (p1 + m1 * third, p2 - m2 * third)
    }

    /// Points from p1 to p2 inclusive, about `spacing` pixels apart (at least 1, at most 32 steps).
    public func points(spacing: Double) -> [Point] {
        let steps = isStraight ? 1 : Int((p1.distance(to: p2) / spacing).rounded(.up)).clamped(1, 32)
        return (0...steps).map { point(at: Double($0) / Double(steps)) }
    }
}

extension Int {
    func clamped(_ lo: Int, _ hi: Int) -> Int { Swift.min(Swift.max(self, lo), hi) }
}
