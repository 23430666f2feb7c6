// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkRender

/// The round pen's pieces (a band ending in a half disc) drawn as a stroke's layer is drawn, and
/// drawn whole (`StrokeRaster`'s one fill per stroke, a replay's final picture): the same ink.
@Suite struct StrokeShape {
    static let screen = PixelSize(width: 400, height: 300)

    /// A finished stroke through `points`, all at `pressure`.
    func stroke(_ brush: Brush, _ points: [Point], pressure: [Double]? = nil) -> Stroke {
        let samples = points.enumerated().map { i, p in
            Sample(location: p, pressure: pressure?[i] ?? 0.5, time: Double(i) * 0.005)
        }
        return Stroke(id: 1, brush: brush, source: .pen(device: 1), samples: samples, state: .done)
    }

    /// The layer's alpha at a screen position (0 outside the layer).
    func alpha(_ d: StrokeRaster.Drawn, _ p: Point) -> UInt8 {
        guard let image = d.image else { return 0 }
        let x = Int(p.x.rounded(.down)) - Int(max(d.clip.minX, 0)), y = Int(p.y.rounded(.down)) - Int(max(d.clip.minY, 0))
        guard x >= 0, y >= 0, x < image.size.width, y < image.size.height else { return 0 }
        return image.pixel(x: x, y: y).a
    }

    /// Along a wide stroke's middle every pixel is fully inked: pieces meet without a faint line
    /// between them, which would show through a translucent highlighter.
    @Test(arguments: [false, true]) func piecesMeetWithoutSeams(whole: Bool) throws {
        let brush = Brush.standard(.highlighter)
        // A gentle arc, samples 3 to 7 px apart as a hand moves at varying speed.
        var points: [Point] = []
        var t = 0.0
        while t < 1 {
            points.append(Point(60 + 280 * t, 150 + 60 * sin(t * .pi)))
            t += 0.01 + 0.015 * abs(sin(t * 9))
        }
        let drawn = try StrokeRaster.draw(stroke(brush, points), screen: Self.screen, whole: whole)
        for (a, b) in zip(points, points.dropFirst()) {
            for f in stride(from: 0.0, through: 1.0, by: 0.125) {
                let p = a + (b - a) * f
                #expect(alpha(drawn, p) == 255, "a seam at (\(p.x), \(p.y))")
            }
        }
    }

    /// The last piece ends round: ink a little short of the radius ahead of the last sample,
    /// none beyond it; the first sample's cap too.
    @Test(arguments: [false, true]) func bothEndsAreRound(whole: Bool) throws {
        let brush = Brush(tool: .highlighter, color: .ink, width: 20)
        let points = (0...20).map { Point(100 + Double($0) * 5, 120) }
        let drawn = try StrokeRaster.draw(stroke(brush, points), screen: Self.screen, whole: whole)
        let r = 10.0
        for angle in stride(from: -80.0, through: 80.0, by: 20.0) {
            let d = Point.direction(angle: angle * .pi / 180)
            let end = points.last!, start = points.first!
            #expect(alpha(drawn, end + d * (r - 1.5)) == 255, "end cap at \(angle)°")
            #expect(alpha(drawn, end + d * (r + 1.5)) == 0, "ink past the end cap at \(angle)°")
            #expect(alpha(drawn, start - d * (r - 1.5)) == 255, "start cap at \(angle)°")
            #expect(alpha(drawn, start - d * (r + 1.5)) == 0, "ink before the start cap at \(angle)°")
        }
        // The sides are straight: full width all along, nothing beyond.
        for x in stride(from: 100.0, through: 200.0, by: 7) {
            #expect(alpha(drawn, Point(x, 120 - (r - 1.5))) == 255 && alpha(drawn, Point(x, 120 + (r - 1.5))) == 255)
            #expect(alpha(drawn, Point(x, 120 - (r + 1.5))) == 0 && alpha(drawn, Point(x, 120 + (r + 1.5))) == 0)
        }
    }

    /// Drawn whole, a stroke that turns sharply (a hairpin, a zigzag) or winds over itself (a
    /// loop a little more than once round) with a wide nib, where an edge joined across a turn could fold
    /// over itself, has the ink its pieces have: every pixel they ink fully is inked at least
    /// three quarters, every pixel they leave clear is at most a quarter inked. (Only edge pixels
    /// differ more: there the pieces' overlapping antialiased edges add up, the more the more
    /// often the stroke passes.)
    @Test(arguments: ["hairpin", "zigzag", "loop"]) func aSharpTurnDrawnWholeHasItsPiecesInk(_ shape: String) throws {
        let brush = Brush(tool: .highlighter, color: .ink, width: 24)
        var points: [Point] = []
        switch shape {
        case "hairpin": points = (0...20).map { Point(100 + Double($0) * 8, 140) } + (0...20).map { Point(260 - Double($0) * 8, 146) }
        case "zigzag": points = (0...16).map { Point(60 + Double($0) * 18, $0 % 2 == 0 ? 100 : 190) }
        default: points = (0...20).map { i in Point(200 + 30 * cos(Double(i) * 0.35), 150 + 30 * sin(Double(i) * 0.35)) }
        }
        let pieces = try StrokeRaster.draw(stroke(brush, points), screen: Self.screen, whole: false)
        let whole = try StrokeRaster.draw(stroke(brush, points), screen: Self.screen, whole: true)
        var full = 0, lost = 0, added = 0
        for y in 0..<Self.screen.height {
            for x in 0..<Self.screen.width {
                let p = Point(Double(x) + 0.5, Double(y) + 0.5)
                let a = alpha(pieces, p), b = alpha(whole, p)
                if a == 255 { full += 1 }
                if a == 255 && b < 192 { lost += 1 }
                if a == 0 && b > 64 { added += 1 }
            }
        }
        #expect(full > 2000, "\(shape): the pieces ink \(full) pixels fully")
        #expect(lost == 0 && added == 0, "\(shape): drawn whole, \(lost) pixels lose their ink, \(added) gain some")
    }

    /// A pen held still while pressing harder leaves a round dot as wide as the firmest press.
    @Test(arguments: [false, true]) func aPenHeldStillLeavesARoundDot(whole: Bool) throws {
        let brush = Brush.standard(.pen)
        let centre = Point(200, 150)
        let pressures = [0.1, 0.3, 0.6, 1.0, 1.0]
        let drawn = try StrokeRaster.draw(stroke(brush, Array(repeating: centre, count: pressures.count), pressure: pressures),
                                          screen: Self.screen, whole: whole)
        let r = brush.inkWidth(pressure: 1.0) / 2
        for angle in stride(from: 0.0, to: 360.0, by: 30.0) {
            let d = Point.direction(angle: angle * .pi / 180)
            #expect(alpha(drawn, centre + d * (r - 1.5)) == 255, "dot at \(angle)°")
            #expect(alpha(drawn, centre + d * (r + 1.5)) == 0, "ink beyond the dot at \(angle)°")
        }
    }

    /// Half a circle's edges follow the circle within a tenth of a pixel, and no more are used
    /// than that needs (the pieces' cost is in their edges).
    @Test(arguments: [0.5, 1, 2, 4.5, 13, 40])
    func halfCircleEdgesStayWithinATenthOfAPixel(radius: Double) {
        let steps = StrokeShaper.arcSteps(radius: radius)
        let sagitta = { (n: Int) in radius * (1 - cos(Double.pi / Double(2 * n))) }
        #expect(sagitta(steps) <= 0.1 + 1e-9)
        if steps > 2 { #expect(sagitta(steps - 1) > 0.1) }
    }
}
