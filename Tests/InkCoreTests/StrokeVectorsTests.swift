// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkCore

@Suite struct StrokeVectorFigures {
    private func stroke(_ tool: ToolKind, _ points: [(Double, Double, pressure: Double)]) -> Stroke {
        let brush = Brush(tool: tool, color: .ink, width: 10, pressureCurve: .linear)
        let samples = points.enumerated().map { Sample(location: Point($1.0, $1.1), pressure: $1.pressure, time: Double($0) * 0.01) }
        return Stroke(id: 1, brush: brush, source: .pen(device: 1), samples: samples, state: .done)
    }

    @Test func aPenStrokeIsOnePathPerWidthOfCurvesThroughItsSamples() {
        // Pressures a stroke keeps exactly (single precision).
        let s = stroke(.pen, [(0, 0, 1), (10, 0, 1), (20, 5, 1), (30, 5, 0.25), (40, 0, 0.25)])
        let figures = StrokeVectors.figures(of: s)
        // Pieces 1, 2 are 10 px wide; piece 3 is (10 + 2.5) / 2 = 6.25; piece 4 is 2.5.
        #expect(figures.map(\.painting) == [.stroke(width: 10), .stroke(width: 6.25), .stroke(width: 2.5)])
        #expect(figures[0].segments.first == .move(Point(0, 0)) && figures[0].segments.count == 3)
        if case .cubic(_, _, let end)? = figures[0].segments.last { #expect(end == Point(20, 5)) } else { Issue.record("not a curve") }
        #expect(figures[1].segments.first == .move(Point(20, 5)), "the next run starts where the last ended")
        #expect(figures.allSatisfy { $0.color == RGBA.ink })
    }

    @Test func aSingleSampleIsAFilledDotAndAnEraserNothing() {
        #expect(StrokeVectors.figures(of: stroke(.pen, [(5, 6, 0.5)])) ==
                [VectorFigure([.circle(center: Point(5, 6), radius: 2.5)], painting: .fill, color: .ink)])
        #expect(StrokeVectors.figures(of: stroke(.eraser, [(0, 0, 1), (9, 9, 1)])).isEmpty)
    }

    @Test func shapesOfOneColourAreOneFillAndALineIsStrokedInItsPlace() {
        let red = RGBA(1, 0, 0), blue = RGBA(0, 0, 1)
        // Turning counter-clockwise on screen: written the other way round, as a circle turns.
        let square = [Point(0, 0), Point(0, 10), Point(10, 10), Point(10, 0)]
        let figures = StrokeVectors.figures(of: [
            InkShape(.polygon(square), red), InkShape(.polyline([Point(0, 0), Point(5, 5)], width: 1), red),
            InkShape(.disc(center: Point(3, 3), radius: 2), red), InkShape(.disc(center: Point(3, 3), radius: 0), blue),
        ])
        #expect(figures == [
            VectorFigure([.move(Point(10, 0)), .line(Point(10, 10)), .line(Point(0, 10)), .line(Point(0, 0)), .close], painting: .fill, color: red),
            VectorFigure([.move(Point(0, 0)), .line(Point(5, 5))], painting: .stroke(width: 1), color: red),
            VectorFigure([.circle(center: Point(3, 3), radius: 2), .close], painting: .fill, color: red),
            VectorFigure([.circle(center: Point(3, 3), radius: StrokeVectors.thinnest), .close], painting: .fill, color: blue),
        ])
    }
}
