// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkCore

@Suite struct PenAngles {
    @Test func tiltSignConventions() {
        // Top of the pen leaning right (+x): azimuth points right, altitude 45°.
        let right = PenOrientation(tiltXDegrees: 45, tiltYDegrees: 0)
        #expect(abs(right.azimuth) < 1e-9)
        #expect(abs(right.altitude - .pi / 4) < 1e-9)
        // Leaning towards +y, which is down on screen.
        let down = PenOrientation(tiltXDegrees: 0, tiltYDegrees: 45)
        #expect(abs(down.azimuth - .pi / 2) < 1e-9)
        let upLeft = PenOrientation(tiltXDegrees: -30, tiltYDegrees: -30)
        #expect(abs(upLeft.azimuth - (-3 * .pi / 4)) < 1e-9)
        #expect(PenOrientation(tiltXDegrees: 0, tiltYDegrees: 0).altitude == .pi / 2)
        // Out-of-range tilt stays finite.
        #expect(PenOrientation(tiltXDegrees: 90, tiltYDegrees: 0).altitude > 0)
    }
}

@Suite struct Mapping {
    let tablet = DeviceInfo(id: 1, kind: .tablet, name: "t", widthMM: 200, heightMM: 150, direct: false)  // 4:3
    let screen = PixelSize(width: 1600, height: 1000)  // 16:10

    @Test func directDeviceCoversTheScreen() {
        let touch = DeviceInfo(id: 2, kind: .touch, name: "t", widthMM: 100, heightMM: 100, direct: true)
        let m = ScreenMapper(device: touch, screen: screen)
        #expect(m.map(x: 0, y: 0) == Point(0, 0))
        #expect(m.map(x: 1, y: 1) == Point(1600, 1000))
    }

    @Test func indirectTabletKeepsProportions() {
        let m = ScreenMapper(device: tablet, screen: screen)
        // The used tablet area is 150 mm × (150 × 10/16) mm: a square on the tablet stays a square.
        let a = m.map(x: 0.4, y: 0.4), b = m.map(x: 0.6, y: 0.6)
        let widthMM = 0.2 * 200, heightMM = 0.2 * 150
        #expect(abs((b.x - a.x) / (b.y - a.y) - widthMM / heightMM) < 1e-9)
        #expect(m.map(x: 0, y: 0.5).x == 0)
        #expect(m.map(x: 1, y: 0.5).x == 1600)
        #expect(m.map(x: 0.5, y: 0).y == 0)   // clamped: the top strip is unused
        #expect(abs(m.map(x: 0.5, y: 0.5).y - 500) < 1e-9)
    }

    @Test func rotationAndLeftHanded() {
        let square = DeviceInfo(id: 1, kind: .tablet, name: "t", widthMM: 100, heightMM: 100, direct: true)
        let s = PixelSize(width: 100, height: 100)
        #expect(ScreenMapper(device: square, screen: s, rotation: .quarter).map(x: 0, y: 0) == Point(100, 0))
        #expect(ScreenMapper(device: square, screen: s, rotation: .half).map(x: 0, y: 0) == Point(100, 100))
        #expect(ScreenMapper(device: square, screen: s, rotation: .threeQuarters).map(x: 0, y: 0) == Point(0, 100))
        #expect(ScreenMapper(device: square, screen: s, leftHanded: true).map(x: 0.25, y: 0) == Point(75, 100))
        #expect(abs(ScreenMapper(device: square, screen: s, rotation: .quarter).mapAzimuth(0) - .pi / 2) < 1e-12)
    }
}

@Suite struct Curves {
    @Test func splinePassesThroughItsSamples() {
        let seg = CatmullRomSegment(Point(0, 0), Point(10, 10), Point(20, 0), Point(30, 10))
        #expect(seg.point(at: 0).distance(to: Point(10, 10)) < 1e-9)
        #expect(seg.point(at: 1).distance(to: Point(20, 0)) < 1e-9)
        let pts = seg.points(spacing: 2)
        #expect(pts.count > 5)
    }

    @Test func splineFollowsACircleWhereAPolylineCutsCorners() {
        // Samples every 30° on a circle of radius 100: a straight chord sags 3.4 px at its middle.
        let p = (0..<4).map { Point.direction(angle: Double($0) * .pi / 6) * 100 }
        let mid = CatmullRomSegment(p[0], p[1], p[2], p[3]).point(at: 0.5)
        #expect(abs(mid.length - 100) < 0.5)
    }

    /// The Bézier form is the same curve, not an approximation: at every fraction along it, for
    /// uneven spacing, a missing neighbour and a straight piece.
    @Test func bezierFormIsTheSameCurve() {
        var rng = SystemRandomNumberGenerator()
        var segments = [CatmullRomSegment(Point(0, 0), Point(10, 10), Point(20, 0), Point(30, 10)),
                        CatmullRomSegment(Point(10, 10), Point(10, 10), Point(40, 5), Point(41, 5)),
                        CatmullRomSegment(Point(0, 0), Point(1, 1), Point(2, 2), Point(3, 3))]
        for _ in 0..<50 {
            let p = (0..<4).map { _ in Point(Double.random(in: 0...100, using: &rng), Double.random(in: 0...100, using: &rng)) }
            segments.append(CatmullRomSegment(p[0], p[1], p[2], p[3]))
        }
        for seg in segments {
            let a = seg.point(at: 0), d = seg.point(at: 1)
            let (b, c) = seg.bezierControls
            for u in stride(from: 0.0, through: 1.0, by: 0.05) {
                let v = 1 - u
                let bezier = a * (v * v * v) + b * (3 * v * v * u) + c * (3 * v * u * u) + d * (u * u * u)
                #expect(bezier.distance(to: seg.point(at: u)) < 1e-6, "at \(u): \(bezier) vs \(seg.point(at: u))")
            }
        }
    }

    @Test func pressureCurve() throws {
        let c = try PressureCurve(parsing: "0,0 0.5,0.2 1,1")
        #expect(abs(c(0.25) - 0.1) < 1e-12)
        #expect(abs(c(0.75) - 0.6) < 1e-12)
        #expect(c(2) == 1)
        #expect(throws: PressureCurve.Problem.self) { try PressureCurve(parsing: "0,0 0.5") }
        #expect(throws: PressureCurve.Problem.self) { try PressureCurve(parsing: "0,0 0.6,0.5 0.4,0.6 1,1") }
    }

    @Test func widthHasAPressureFloor() {
        let pen = Brush(tool: .pen, color: .ink, width: 10, pressureCurve: .linear)
        #expect(pen.inkWidth(pressure: 0) == 10 * Brush.pressureFloor)
        #expect(pen.inkWidth(pressure: 0.5) == 5)
        #expect(pen.inkWidth(pressure: 1) == 10)
    }

    @Test func hoverFadeFormula() {
        let f = HoverFade(fade: 0.2, maxZ: 1.0)
        #expect(f.alpha(distance: 0) == 1)
        #expect(f.alpha(distance: 0.2) == 1)
        #expect(abs(f.alpha(distance: 0.6) - 0.5) < 1e-12)
        #expect(f.alpha(distance: 1) == 0)
        #expect(f.alpha(distance: nil) == f.fixedAlpha)
    }
}

@Suite struct Prediction {
    func samples(_ velocity: Point, count: Int = 6) -> [Sample] {
        (0..<count).map { i in Sample(location: velocity * (Double(i) * 0.005), pressure: 0.5, time: Double(i) * 0.005) }
    }

    @Test func extrapolatesAlongTheMotion() throws {
        let predicted = Predictor(horizon: 1.0 / 60).predict(from: samples(Point(600, 0)))
        let last = try #require(predicted.last)
        #expect(abs(last.location.x - (600 * 0.025 + 10)) < 0.01)
        #expect(predicted.allSatisfy { $0.isPredicted && $0.estimated == .all })
    }

    @Test func staysPutWhenThePenDoes() {
        #expect(Predictor(horizon: 1.0 / 60).predict(from: samples(Point(0, 0))).isEmpty)
    }

    @Test func neverRunsFarAhead() throws {
        let p = Predictor(horizon: 1.0 / 60)
        let last = try #require(p.predict(from: samples(Point(50_000, 0))).last)
        #expect(last.location.x - 50_000 * 0.025 <= p.maxDistance + 1e-9)
    }
}

@Suite struct Tools {
    @Test func switchPreviousGoesBackAndForth() {
        var t = ToolSelection(current: .calligraphy)
        #expect(t.previous == .eraser)
        t.switchToPrevious()
        #expect(t.current == .eraser)
        t.switchToPrevious()
        #expect(t.current == .calligraphy)
        t.select(.highlighter)
        t.switchToPrevious()
        #expect(t.current == .calligraphy && t.previous == .highlighter)
        t.toggle(.debug)
        #expect(t.current == .debug)
        t.toggle(.debug)
        #expect(t.current == .calligraphy)
    }

    @Test func calligraphyNibLocksWhenThePenIsUpright() {
        let b = Brush.standard(.calligraphy)
        let tilted = Sample(location: .zero, pressure: 0.5, altitude: 0.6, azimuth: 0.3, time: 0)
        let upright = Sample(location: .zero, pressure: 0.5, altitude: 1.5, azimuth: 2.5, time: 0)
        let a = b.nibAngle(for: tilted, previous: nil)
        #expect(abs(a - (0.3 + .pi / 2)) < 1e-12)
        #expect(b.nibAngle(for: upright, previous: a) == a)
        #expect(b.nibAngle(for: upright, previous: nil) == b.fallbackNibAngle)
        let noTilt = Sample(location: .zero, pressure: 0.5, time: 0, estimated: [.altitude, .azimuth])
        #expect(b.nibAngle(for: noTilt, previous: nil) == b.fallbackNibAngle)
    }
}
