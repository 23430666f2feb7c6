// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore

/// The overlay's figures: hover previews, the palette, the debug diagram.
enum OverlayShapes {
    /// The tool's footprint where the pen would touch down, with the hover fade applied.
    static func hover(_ h: HoverState) -> (shapes: [InkShape], alpha: Double) {
        let brush = h.brush
        let color = brush.color.withAlpha(1)
        let alpha = h.alpha * brush.opacity
        switch brush.tool {
        case .calligraphy:
            var sample = h.sample
            sample.pressure = 0.5
            let shaper = StrokeShaper(brush: brush)
            return (shaper.piece(0, samples: [sample], nibAngles: [h.nibAngle]).shapes, alpha)
        case .eraser:
            let ring = circle(h.location, radius: brush.width / 2)
            return ([InkShape(.polyline(ring, width: 2), color)], alpha)
        case .pen, .highlighter, .debug:
            let r = max(brush.inkWidth(pressure: 0.5) / 2, 3)
            return ([InkShape(.disc(center: h.location, radius: r), color)], alpha)
        }
    }

    static let swatchRadius = 22.0

    /// A row of colour swatches centred at the top of the screen.
    static func palette(_ colors: [RGBA], screen: PixelSize) -> [InkShape] {
        let spacing = swatchRadius * 2.6
        let x0 = Double(screen.width) / 2 - spacing * Double(colors.count - 1) / 2
        let y = swatchRadius * 2
        var shapes = [InkShape(.polygon(roundedBar(Rect(x: x0 - spacing / 2 - 8, y: y - swatchRadius - 12,
                                                          width: spacing * Double(colors.count) + 16,
                                                          height: swatchRadius * 2 + 24))), RGBA(0.95, 0.95, 0.95))]
        for (i, c) in colors.enumerated() {
            let center = Point(x0 + spacing * Double(i), y)
            shapes.append(InkShape(.disc(center: center, radius: swatchRadius + 1.5), RGBA(0.3, 0.3, 0.3)))
            shapes.append(InkShape(.disc(center: center, radius: swatchRadius), c.withAlpha(1)))
        }
        return shapes
    }

    private static func roundedBar(_ r: Rect) -> [Point] {
        [Point(r.minX, r.minY), Point(r.maxX, r.minY), Point(r.maxX, r.maxY), Point(r.minX, r.maxY)]
    }

    static let diagramRadius = 40.0

    /// The Touch Canvas diagram under the pen: a ring, the azimuth as a line the pen leans
    /// along (its length is cos(altitude), so an upright pen shows a dot), orange if estimated.
    static func debugDiagram(_ s: Sample) -> [InkShape] {
        let r = diagramRadius
        let lean = cos(s.altitude) * r
        let estimated = s.estimated.contains(.azimuth) || s.estimated.contains(.altitude)
        let color: RGBA = estimated ? .debugEstimated : RGBA(0.55, 0.2, 0.75)
        let tip = s.location + Point.direction(angle: s.azimuth) * lean
        return [InkShape(.polyline(circle(s.location, radius: r), width: 1), RGBA(0.4, 0.4, 0.4)),
                InkShape(.polyline([s.location, tip], width: 3), color),
                InkShape(.disc(center: tip, radius: 4), color)]
    }

    static func circle(_ c: Point, radius r: Double) -> [Point] {
        (0...48).map { c + Point.direction(angle: Double($0) / 48 * 2 * .pi) * r }
    }
}
