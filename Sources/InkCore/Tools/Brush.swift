// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// The tools a person picks from.
public enum ToolKind: String, Sendable, Equatable, CaseIterable {
    case pen, calligraphy, highlighter, eraser, debug

    /// Whether the tool leaves ink (the eraser removes strokes instead).
    public var inks: Bool { self != .eraser }
}

/// A straight RGBA colour, components 0…1.
public struct RGBA: Sendable, Equatable, Hashable {
    public var r: Double, g: Double, b: Double, a: Double
    public init(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }
    public func withAlpha(_ a: Double) -> RGBA { RGBA(r, g, b, a) }

    /// "#1a237e" or "#1a237eff".
    public init?(hex: String) {
        var h = Substring(hex)
        if h.hasPrefix("#") { h = h.dropFirst() }
        guard h.count == 6 || h.count == 8, let v = UInt32(h, radix: 16) else { return nil }
        let n = h.count == 6 ? (v << 8) | 0xff : v
        self.init(Double((n >> 24) & 0xff) / 255, Double((n >> 16) & 0xff) / 255,
                  Double((n >> 8) & 0xff) / 255, Double(n & 0xff) / 255)
    }

    /// Colours are whole 8-bit values, so that "#0d1759" in a config is exactly the default.
    public static let ink = RGBA(13 / 255, 23 / 255, 89 / 255)      // #0d1759, blue-black like a ballpoint
    public static let highlighterYellow = RGBA(1, 217 / 255, 0)     // #ffd900
    public static let white = RGBA(1, 1, 1)
    public static let black = RGBA(0, 0, 0)
    /// Debug colours, as in Apple's Touch Canvas: coalesced, predicted, estimated.
    public static let debugReal = RGBA(0, 0, 0)
    public static let debugCoalesced = RGBA(0.0, 0.45, 1.0)
    public static let debugPredicted = RGBA(0.2, 0.75, 0.2)
    public static let debugEstimated = RGBA(1.0, 0.55, 0.0)
}

/// Maps normalised pressure to a width factor 0…1 through points joined by straight lines,
/// like the pressure-curve setting of tablet drivers. Always passes (0, y0) … (1, y1).
public struct PressureCurve: Sendable, Equatable {
    public let points: [Point]

    /// Slightly soft: light pressure still leaves a visible line.
    public static let standard = PressureCurve(validated: [Point(0, 0), Point(0.05, 0.12), Point(0.5, 0.6), Point(1, 1)])
    public static let linear = PressureCurve(validated: [Point(0, 0), Point(1, 1)])

    private init(validated points: [Point]) { self.points = points }

    public enum Problem: Error, CustomStringConvertible {
        case unparsable(String), notIncreasing, outOfRange, tooFew
        public var description: String {
            switch self {
            case .unparsable(let t): return "cannot read pressure curve point '\(t)' (write it as x,y)"
            case .notIncreasing: return "pressure curve x values must increase strictly"
            case .outOfRange: return "pressure curve values must lie in 0…1"
            case .tooFew: return "a pressure curve needs at least two points, from x=0 to x=1"
            }
        }
    }

    public init(points: [Point]) throws {
        guard points.count >= 2, points.first?.x == 0, points.last?.x == 1 else { throw Problem.tooFew }
        guard points.allSatisfy({ (0...1).contains($0.x) && (0...1).contains($0.y) }) else { throw Problem.outOfRange }
        guard zip(points, points.dropFirst()).allSatisfy({ $0.x < $1.x }) else { throw Problem.notIncreasing }
        self.points = points
    }

    /// Parses "0,0 0.5,0.3 1,1".
    public init(parsing text: String) throws {
        let pts = try text.split(whereSeparator: { $0 == " " || $0 == ";" }).map { pair -> Point in
            let xy = pair.split(separator: ",")
            guard xy.count == 2, let x = Double(xy[0]), let y = Double(xy[1]) else { throw Problem.unparsable(String(pair)) }
            return Point(x, y)
        }
        try self.init(points: pts)
    }

    public func callAsFunction(_ pressure: Double) -> Double {
        let p = pressure.clamped(to: 0...1)
        for (a, b) in zip(points, points.dropFirst()) where p <= b.x {
            return a.y + (b.y - a.y) * (p - a.x) / (b.x - a.x)
        }
        return points.last?.y ?? p
    }
}

/// How a tool turns samples into ink.
public struct Brush: Sendable, Equatable {
    public var tool: ToolKind
    public var color: RGBA
    /// Pen: the width at full pressure. Calligraphy: the nib's length. Highlighter: its width.
    /// Eraser: the diameter it removes strokes within.
    public var width: Double
    public var pressureCurve: PressureCurve
    /// Calligraphy: the nib's thin side, so strokes along the nib stay visible.
    public var nibThickness: Double
    /// Calligraphy: above this altitude the pen is near vertical and its azimuth is noise.
    public var azimuthLockAltitude: Double
    /// Calligraphy: the nib direction (radians, screen axes) for tools without tilt.
    public var fallbackNibAngle: Double

    /// Touch Canvas floors force at 0.025 so that the lightest touch still makes a line.
    public static let pressureFloor = 0.025

    public init(tool: ToolKind, color: RGBA, width: Double, pressureCurve: PressureCurve = .standard,
                nibThickness: Double = 1.5, azimuthLockAltitude: Double = 70 * .pi / 180,
                fallbackNibAngle: Double = -45 * .pi / 180) {
        self.tool = tool; self.color = color; self.width = width; self.pressureCurve = pressureCurve
        self.nibThickness = nibThickness; self.azimuthLockAltitude = azimuthLockAltitude
        self.fallbackNibAngle = fallbackNibAngle
    }

    public static func standard(_ tool: ToolKind) -> Brush {
        switch tool {
        case .pen: return Brush(tool: .pen, color: .ink, width: 9)
        case .calligraphy: return Brush(tool: .calligraphy, color: .ink, width: 18)
        case .highlighter: return Brush(tool: .highlighter, color: RGBA.highlighterYellow.withAlpha(102 / 255), width: 26)
        case .eraser: return Brush(tool: .eraser, color: RGBA(128 / 255, 128 / 255, 128 / 255, 153 / 255), width: 24)
        case .debug: return Brush(tool: .debug, color: .debugReal, width: 3)
        }
    }

    /// The ink's full width at this pressure: width × curve(max(pressure, 0.025)).
    public func inkWidth(pressure: Double) -> Double {
        switch tool {
        case .pen: return width * pressureCurve(max(pressure, Self.pressureFloor))
        case .calligraphy: return width * (0.55 + 0.45 * pressureCurve(max(pressure, Self.pressureFloor)))
        case .highlighter, .eraser, .debug: return width
        }
    }

    /// The farthest any ink of one sample reaches from its centre (for bounds and damage).
    public var reach: Double {
        switch tool {
        case .pen, .highlighter, .eraser: return width / 2 + 1
        case .calligraphy: return width / 2 + nibThickness + 1
        case .debug: return DebugMarks.markerLength + 2
        }
    }

    /// The calligraphy nib lies across the pen's lean (perpendicular to the azimuth). While the
    /// pen is near vertical, or has no tilt, the azimuth means nothing: the nib keeps its last
    /// direction, or the fallback angle at the start of a stroke.
    public func nibAngle(for s: Sample, previous: Double?) -> Double {
        let measured = !s.estimated.contains(.azimuth) && !s.estimated.contains(.altitude)
        if measured && s.altitude < azimuthLockAltitude { return s.azimuth + .pi / 2 }
        return previous ?? fallbackNibAngle
    }

    /// Whether overlapping parts of one stroke must not darken (drawn as one translucent layer).
    public var opacity: Double { color.a }
}

/// Sizes of the debug markings (Touch Canvas / Speed Sketch style).
public enum DebugMarks {
    public static let markerLength = 22.0
}
