// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// Turns a stroke's samples into ink shapes, one piece per sample.
///
/// Piece 0 is the start cap; piece k ≥ 1 is the curve from sample k−1 to k and the joint at k.
/// Piece k depends on samples k−2…k+1 only (the spline's neighbours), so once sample k+1 is
/// known (or the stroke is done), piece k never changes and can be committed to the canvas.
public struct StrokeShaper: Sendable {
    public let brush: Brush
    /// Subdivision spacing of the curve, in pixels: small enough that no corner shows.
    public var spacing = 2.0

    public init(brush: Brush) { self.brush = brush }

    /// Whether piece `k` of a stroke with `count` samples can no longer change.
    public static func isFinal(piece k: Int, count: Int, done: Bool) -> Bool {
        done ? k < count : k + 1 < count
    }

    /// The ink of piece `k`, from `samples` and their nib angles (same count).
    public func piece(_ k: Int, samples: [Sample], nibAngles: [Double]) -> StrokePiece {
        shape(k, samples, nibAngles)
    }

    /// The ink of piece `k` of a stroke's kept samples.
    public func piece(_ k: Int, samples: StrokeSamples, nibAngles: StrokeSamples.NibAngles) -> StrokePiece {
        shape(k, samples, nibAngles)
    }

    /// One body for both kinds of sample list (specialised for each by the compiler).
    private func shape<S: SampleList, A: AngleList>(_ k: Int, _ samples: S, _ nibAngles: A) -> StrokePiece {
        precondition(k >= 0 && k < samples.count && nibAngles.count == samples.count)
        switch brush.tool {
        case .eraser:
            return StrokePiece(shapes: [])
        case .debug:
            return debugPiece(k, samples)
        case .calligraphy:
            return calligraphyPiece(k, samples, nibAngles)
        case .pen, .highlighter:
            return roundPiece(k, samples)
        }
    }

    private var solid: RGBA { brush.color.withAlpha(1) }

    /// The centre line of piece `k` (k ≥ 1): the curve from sample k−1 to k.
    public func centreline(_ k: Int, samples s: [Sample]) -> CatmullRomSegment { curve(k, s) }

    public func centreline(_ k: Int, samples s: StrokeSamples) -> CatmullRomSegment { curve(k, s) }

    private func curve<S: SampleList>(_ k: Int, _ s: S) -> CatmullRomSegment {
        let p1 = s[k - 1].location, p2 = s[k].location
        let before = k >= 2 ? s[k - 2].location : nil
        let after = k + 1 < s.count ? s[k + 1].location : nil
        // At a stroke's ends the missing neighbour is extrapolated along a parabola through
        // the three known samples, so a curve keeps bending to its first and last sample.
        func extrapolate(_ a: Point, _ b: Point, _ c: Point?) -> Point {
            guard let c else { return a }
            let p = a * 3 - b * 3 + c
            return p.distance(to: a) <= 2 * a.distance(to: b) ? p : a
        }
        let p0 = before ?? extrapolate(p1, p2, after)
        let p3 = after ?? extrapolate(p2, p1, before)
        return CatmullRomSegment(p0, p1, p2, p3)
    }

    /// Pen and highlighter: a variable-width band along the curve, rounded at its joint.
    ///
    /// The band ends in a half disc ahead of the joint, in the same polygon: it covers the
    /// seam with the next piece, so antialiased edges of neighbouring pieces never leave a faint
    /// line across the stroke, and the last piece ends round. The half behind the joint is the
    /// band itself. One polygon of straight edges is about half what cairo spends on a band and
    /// a separate full disc (whose arc it flattens into many more edges), on every piece drawn.
    private func roundPiece<S: SampleList>(_ k: Int, _ s: S) -> StrokePiece {
        let r1 = brush.inkWidth(pressure: s[k].pressure) / 2
        guard k > 0 else { return StrokePiece(shapes: [InkShape(.disc(center: s[0].location, radius: r1), solid)]) }
        let r0 = brush.inkWidth(pressure: s[k - 1].pressure) / 2
        let pts = curve(k, s).points(spacing: spacing)
        // A pen that did not move (a dot pressed harder): no direction to round towards.
        guard pts.count >= 2, s[k - 1].location.distance(to: s[k].location) > 1e-6 else {
            return StrokePiece(shapes: [InkShape(.disc(center: s[k].location, radius: max(r0, r1)), solid)])
        }
        var outline: [Point] = []
        var right: [Point] = []
        outline.reserveCapacity(2 * pts.count + 8); right.reserveCapacity(pts.count)
        let chord = (pts[pts.count - 1] - pts[0]).normalized()
        var endNormal = chord.perpendicular
        for (j, p) in pts.enumerated() {
            let a = pts[max(j - 1, 0)], b = pts[min(j + 1, pts.count - 1)]
            let normal = (b - a).normalized(or: chord).perpendicular
            let r = r0 + (r1 - r0) * Double(j) / Double(pts.count - 1)
            outline.append(p + normal * r)
            right.append(p - normal * r)
            endNormal = normal
        }
        // The half disc: from the left edge round the front (the way the pen went) to the right.
        let ahead = Point(endNormal.y, -endNormal.x)
        let end = pts[pts.count - 1]
        let steps = Self.arcSteps(radius: r1)
        for i in 1..<steps {
            let angle = Double.pi * Double(i) / Double(steps)
            outline.append(end + endNormal * (r1 * cos(angle)) + ahead * (r1 * sin(angle)))
        }
        outline.append(contentsOf: right.reversed())
        return StrokePiece(shapes: [InkShape(.polygon(outline), solid)])
    }

    /// A finished stroke's ink at once, for a picture drawn with one fill per stroke (a replay's
    /// final picture, `StrokeRaster`), never piece by piece on the live screen.
    ///
    /// Pen and highlighter: consecutive pieces' bands joined into one polygon (one side along the
    /// curve, the half disc, the other side back) for as long as the curve turns gently at the
    /// samples; where it turns sharply the polygon ends in its half disc and the next begins, as
    /// every piece does. The pieces' half discs inside a gentle run are left out: the same ink
    /// (they cover a sliver at the outside of a joint that the joined band covers to within a
    /// fraction of a pixel) from about half the edges, which is what cairo's rasteriser pays for.
    /// Other tools: nil, they are drawn piece by piece (a calligraphy nib's pieces are not bands).
    public func wholeStroke(samples: StrokeSamples, nibAngles: StrokeSamples.NibAngles) -> [InkShape]? {
        guard brush.tool == .pen || brush.tool == .highlighter else { return nil }
        guard !samples.isEmpty else { return [] }
        var shapes = roundPiece(0, samples).shapes
        var run = BandRun()
        for k in 1..<samples.count {
            let r0 = brush.inkWidth(pressure: samples[k - 1].pressure) / 2
            let r1 = brush.inkWidth(pressure: samples[k].pressure) / 2
            let pts = curve(k, samples).points(spacing: spacing)
            guard pts.count >= 2, samples[k - 1].location.distance(to: samples[k].location) > 1e-6 else {
                if let band = run.close() { shapes.append(InkShape(.polygon(band), solid)) }
                shapes += roundPiece(k, samples).shapes
                continue
            }
            if !run.continuesGently(into: pts, radius: r0), let band = run.close() {
                shapes.append(InkShape(.polygon(band), solid))
            }
            run.append(pts, from: r0, to: r1)
        }
        if let band = run.close() { shapes.append(InkShape(.polygon(band), solid)) }
        return shapes
    }

    /// Pieces' centre lines joined end to end, with the ink's radius at each point.
    private struct BandRun {
        var points: [Point] = []
        var radii: [Double] = []

        /// Whether the pieces so far and the next (`pts`, from the joint on) make one band: the
        /// curve turns by less than 0.5 rad at the joint, and little enough that the inside edge
        /// does not fold back over itself (the radius's step along the joint's bisector stays
        /// within two fifths of the shorter of the two segments beside it).
        func continuesGently(into pts: [Point], radius: Double) -> Bool {
            guard points.count >= 2 else { return true }
            let before = points[points.count - 1] - points[points.count - 2], after = pts[1] - pts[0]
            let lb = before.length, la = after.length
            guard lb > 1e-9, la > 1e-9 else { return false }
            let cross = before.x * after.y - before.y * after.x, dot = before.x * after.x + before.y * after.y
            let turn = abs(atan2(cross, dot))
            return turn < 0.5 && radius * tan(turn / 2) < 0.4 * min(lb, la)
        }

        mutating func append(_ pts: [Point], from r0: Double, to r1: Double) {
            let skip = points.isEmpty ? 0 : 1   // the joint is the run's last point already
            let last = Double(pts.count - 1)
            for j in skip..<pts.count {
                points.append(pts[j])
                radii.append(r0 + (r1 - r0) * Double(j) / last)
            }
        }

        /// The run's outline (as `roundPiece` outlines one piece), and an empty run after it.
        mutating func close() -> [Point]? {
            defer { points.removeAll(keepingCapacity: true); radii.removeAll(keepingCapacity: true) }
            guard points.count >= 2 else { return nil }
            let n = points.count
            var outline: [Point] = []
            var right: [Point] = []
            outline.reserveCapacity(2 * n + 8); right.reserveCapacity(n)
            let chord = (points[n - 1] - points[0]).normalized()
            var endNormal = chord.perpendicular
            for j in 0..<n {
                let a = points[max(j - 1, 0)], b = points[min(j + 1, n - 1)]
                let normal = (b - a).normalized(or: chord).perpendicular
                outline.append(points[j] + normal * radii[j])
                right.append(points[j] - normal * radii[j])
                endNormal = normal
            }
            let r1 = radii[n - 1]
            let ahead = Point(endNormal.y, -endNormal.x)
            let end = points[n - 1]
            let steps = StrokeShaper.arcSteps(radius: r1)
            for i in 1..<steps {
                let angle = Double.pi * Double(i) / Double(steps)
                outline.append(end + endNormal * (r1 * cos(angle)) + ahead * (r1 * sin(angle)))
            }
            outline.append(contentsOf: right.reversed())
            return outline
        }
    }

    /// Edges for a half circle of `radius` that stray from the true circle by at most a tenth of
    /// a pixel (cairo's own tolerance for the arcs it flattens).
    public static func arcSteps(radius: Double) -> Int {
        let tolerance = 0.1
        guard radius > tolerance else { return 2 }
        return max(2, Int((Double.pi / (2 * acos(1 - tolerance / radius))).rounded(.up)))
    }

    /// Calligraphy: the nib (a thin rectangle across the lean of the pen) swept along the curve.
    private func calligraphyPiece<S: SampleList, A: AngleList>(_ k: Int, _ s: S, _ angles: A) -> StrokePiece {
        func nib(_ c: Point, _ angle: Double, _ length: Double) -> [Point] {
            let along = Point.direction(angle: angle) * (length / 2)
            let across = Point.direction(angle: angle).perpendicular * (brush.nibThickness / 2)
            return [c + along + across, c - along + across, c - along - across, c + along - across]
        }
        let len1 = brush.inkWidth(pressure: s[k].pressure)
        guard k > 0 else { return StrokePiece(shapes: [InkShape(.polygon(nib(s[0].location, angles[0], len1)), solid)]) }
        let len0 = brush.inkWidth(pressure: s[k - 1].pressure)
        let pts = curve(k, s).points(spacing: spacing)
        let a0 = angles[k - 1], turn = shortestTurn(from: a0, to: angles[k])
        var shapes: [InkShape] = []
        var previous = nib(pts[0], a0, len0)
        for j in 1..<pts.count {
            let f = Double(j) / Double(pts.count - 1)
            let current = nib(pts[j], a0 + turn * f, len0 + (len1 - len0) * f)
            shapes.append(InkShape(.polygon(convexHull(previous + current)), solid))
            previous = current
        }
        return StrokePiece(shapes: shapes)
    }

    /// Debug: a thin centre line coloured by what the end sample is, and its pen markings.
    private func debugPiece<S: SampleList>(_ k: Int, _ s: S) -> StrokePiece {
        let sample = s[k]
        var shapes: [InkShape] = []
        if k > 0 {
            let color: RGBA = sample.isPredicted ? .debugPredicted : sample.isCoalesced ? .debugCoalesced : .debugReal
            shapes.append(InkShape(.polyline(curve(k, s).points(spacing: spacing), width: brush.width), color))
        }
        shapes += DebugMarks.sampleMarks(sample)
        return StrokePiece(shapes: shapes)
    }

    private func shortestTurn(from a: Double, to b: Double) -> Double {
        var d = (b - a).truncatingRemainder(dividingBy: 2 * .pi)
        if d > .pi { d -= 2 * .pi }
        if d < -.pi { d += 2 * .pi }
        // A nib is symmetric: turning by π is no turn at all.
        if d > .pi / 2 { d -= .pi }
        if d < -.pi / 2 { d += .pi }
        return d
    }
}

extension DebugMarks {
    /// Per-sample markings: the azimuth as a line the pen leans along (longer when more tilted),
    /// a dot at the sample, orange where its values are estimates.
    public static func sampleMarks(_ s: Sample) -> [InkShape] {
        let lean = cos(s.altitude) * markerLength
        let tip = s.location + Point.direction(angle: s.azimuth) * max(lean, 3)
        let dotColor: RGBA = s.estimated.isEmpty ? .debugReal : .debugEstimated
        let azimuthColor: RGBA = s.estimated.contains(.azimuth) ? .debugEstimated : RGBA(0.55, 0.2, 0.75)
        return [InkShape(.polyline([s.location, tip], width: 1), azimuthColor),
                InkShape(.disc(center: s.location, radius: 1.8), dotColor)]
    }
}

/// Convex hull (Andrew's monotone chain), counter-clockwise.
func convexHull(_ points: [Point]) -> [Point] {
    let pts = points.sorted { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
    guard pts.count > 2 else { return pts }
    func cross(_ o: Point, _ a: Point, _ b: Point) -> Double { (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) }
    var lower: [Point] = [], upper: [Point] = []
    for p in pts {
        while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
        lower.append(p)
    }
    for p in pts.reversed() {
        while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
        upper.append(p)
    }
    return Array(lower.dropLast() + upper.dropLast())
}

/// What the shaper reads samples from: an array (the overlay's predicted tail) or a stroke's
/// kept samples.
protocol SampleList: RandomAccessCollection where Element == Sample, Index == Int {}
extension Array: SampleList where Element == Sample {}
extension StrokeSamples: SampleList {}

protocol AngleList: RandomAccessCollection where Element == Double, Index == Int {}
extension Array: AngleList where Element == Double {}
extension StrokeSamples.NibAngles: AngleList {}
