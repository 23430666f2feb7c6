// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// A point in screen pixels (y grows downwards, as on the framebuffer).
public struct Point: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    public static let zero = Point(0, 0)

    public static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    public static func * (a: Point, s: Double) -> Point { Point(a.x * s, a.y * s) }
    public var length: Double { (x * x + y * y).squareRoot() }
    public func distance(to p: Point) -> Double { (self - p).length }
    /// Unit vector, or `fallback` for a zero-length vector.
    public func normalized(or fallback: Point = Point(1, 0)) -> Point {
        let l = length
        return l > 1e-9 ? Point(x / l, y / l) : fallback
    }
    /// Rotated 90° (clockwise on a y-down screen).
    public var perpendicular: Point { Point(-y, x) }
    public static func direction(angle: Double) -> Point { Point(cos(angle), sin(angle)) }
}

/// Integer pixel dimensions of a screen or image.
public struct PixelSize: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }

    /// Parses "1280x800".
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0,
              w <= 16384, h <= 16384 else { return nil }
        self.init(width: w, height: h)
    }
}

/// An axis-aligned rectangle in pixels; `isEmpty` when it covers nothing.
public struct Rect: Sendable, Equatable, CustomStringConvertible {
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(minX: x, minY: y, maxX: x + width, maxY: y + height)
    }
    public static let empty = Rect(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
    public static func around(_ p: Point, radius r: Double) -> Rect {
        Rect(minX: p.x - r, minY: p.y - r, maxX: p.x + r, maxY: p.y + r)
    }

    /// Empty covers no point at all; a zero-width rectangle (a horizontal line's box) is not empty.
    public var isEmpty: Bool { !(maxX >= minX && maxY >= minY) }
    public static func bounding(_ points: [Point]) -> Rect { points.reduce(Rect.empty) { $0.including($1) } }
    public var width: Double { max(0, maxX - minX) }
    public var height: Double { max(0, maxY - minY) }
    public var area: Double { isEmpty ? 0 : width * height }
    public var description: String { "(\(minX),\(minY))-(\(maxX),\(maxY))" }

    public func union(_ r: Rect) -> Rect {
        if r.isEmpty { return self }
        if isEmpty { return r }
        return Rect(minX: min(minX, r.minX), minY: min(minY, r.minY), maxX: max(maxX, r.maxX), maxY: max(maxY, r.maxY))
    }
    public func including(_ p: Point) -> Rect {
        Rect(minX: min(minX, p.x), minY: min(minY, p.y), maxX: max(maxX, p.x), maxY: max(maxY, p.y))
    }
    public func intersection(_ r: Rect) -> Rect {
        let i = Rect(minX: max(minX, r.minX), minY: max(minY, r.minY), maxX: min(maxX, r.maxX), maxY: min(maxY, r.maxY))
        return i.isEmpty ? .empty : i
    }
    public func intersects(_ r: Rect) -> Bool { !intersection(r).isEmpty }
    public func outset(by d: Double) -> Rect {
        isEmpty ? self : Rect(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d)
    }
    /// Grown outwards to whole pixels (what a damage rectangle must cover).
    public var integral: Rect {
        isEmpty ? self : Rect(minX: floor(minX), minY: floor(minY), maxX: ceil(maxX), maxY: ceil(maxY))
    }
    public func contains(_ p: Point) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }
}

extension Double {
    /// Clamped into `range`.
    @inlinable public func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}

/// Distance from `p` to the segment `a`–`b`.
public func distance(from p: Point, toSegment a: Point, _ b: Point) -> Double {
    let ab = b - a
    let len2 = ab.x * ab.x + ab.y * ab.y
    guard len2 > 1e-12 else { return p.distance(to: a) }
    let t = (((p - a).x * ab.x + (p - a).y * ab.y) / len2).clamped(to: 0...1)
    return p.distance(to: a + ab * t)
}
