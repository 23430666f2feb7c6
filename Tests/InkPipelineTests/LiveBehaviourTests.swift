// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
import InkRender
import InkDisplay
@testable import InkPipeline
import InkTestSupport

private let tablet = DeviceInfo(id: 1, kind: .tablet, name: "Pen", widthMM: 224, heightMM: 140, direct: false)

/// A pipeline fed event by event, the way the kiosk's loop feeds it.
private final class Live {
    let pipeline: FramePipeline
    let display: OffscreenDisplay
    var t = 1.0

    init(tool: ToolKind = .pen, prediction: Bool = true, configure: (inout InteractionSettings) -> Void = { _ in }) throws {
        var s = InteractionSettings(screen: screenSize)
        s.tool = tool
        configure(&s)
        var o = PipelineOptions()
        o.prediction = prediction
        display = try OffscreenDisplay(size: screenSize)
        pipeline = try FramePipeline(settings: s, devices: [tablet], display: display, options: o)
    }

    func send(_ kind: InkEventKind, dt: Double = 0.005) {
        t += dt
        pipeline.handle(InkEvent(time: t, device: 1, kind: kind))
    }

    @discardableResult
    func frame() throws -> FrameReport { try pipeline.renderFrame() }

    var screen: Screen { Screen(display.screen) }

    static func axes(_ p: (Double, Double), pressure: Double = 0.6, distance: Double = 0) -> Axes {
        Axes(x: p.0 / Double(screenSize.width), y: p.1 / Double(screenSize.height), pressure: pressure, distance: distance,
             tiltX: 20, tiltY: 0)
    }
}

@Suite struct LiveBehaviour {
    /// The preview's opacity, read back from the pixel under the pen against the paper and ink colours.
    @Test(arguments: [0.0, 0.05, 0.1, 0.3, 0.55, 0.8, 0.95])
    func hoverPreviewAlphaFollowsTheDistance(z: Double) throws {
        let live = try Live()
        live.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: Live.axes((400, 300), pressure: 0, distance: z)))
        try live.frame()
        let fade = HoverFade()
        let expected = fade.alpha(distance: z)
        let p = live.screen.image.pixel(x: 400, y: 300)
        let ink = RGBA.ink
        let measured = (255 - Double(p.r)) / (255 - ink.r * 255)
        #expect(abs(measured - expected) < 0.02, "z \(z): alpha \(measured), formula \(expected)")
    }

    @Test func hoverPreviewDisappearsOnTouchDownAndAfterProximityOut() throws {
        let live = try Live()
        live.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: Live.axes((400, 300), pressure: 0, distance: 0.05)))
        try live.frame()
        #expect(live.screen.hasInk(400, 300))
        live.send(.axis(Live.axes((700, 500), pressure: 0, distance: 0.05)))
        try live.frame()
        #expect(!live.screen.inkNear(400, 300, radius: 3), "the old preview stayed behind")
        #expect(live.screen.hasInk(700, 500))
        live.send(.proximity(isIn: false, tool: .pen, serial: 1, axes: Live.axes((0, 0), pressure: 0, distance: 1)))
        try live.frame()
        #expect(live.screen.inkTotal == 0, "preview left after proximity out")
    }

    @Test func predictionDrawsAheadAndIsReplacedByRealInk() throws {
        for prediction in [true, false] {
            let live = try Live(prediction: prediction)
            live.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: Live.axes((200, 400), pressure: 0, distance: 0.1)))
            live.send(.tip(isDown: true, axes: Live.axes((200, 400))))
            // 1200 px/s to the right, 200 Hz.
            for i in 1...12 { live.send(.axis(Live.axes((200 + 6 * Double(i), 400)))) }
            try live.frame()
            let ahead = live.screen.inkNear(272 + 12, 400, radius: 1)
            #expect(ahead == prediction, "prediction \(prediction): ink ahead of the pen \(ahead)")
            // The pen turns down instead: the wrong guess must vanish.
            for i in 1...12 { live.send(.axis(Live.axes((272, 400 + 6 * Double(i))))) }
            live.send(.tip(isDown: false, axes: Live.axes((272, 472), pressure: 0, distance: 0.02)))
            live.send(.proximity(isIn: false, tool: .pen, serial: 1, axes: Live.axes((272, 472), pressure: 0, distance: 1)))
            try live.frame()
            #expect(!live.screen.inkNear(272 + 14, 400, radius: 1), "stale prediction left on screen")
            #expect(live.screen.inkNear(272, 440, radius: 1))
        }
    }

    @Test func aStrokeUpdateRepaintsOnlyAroundTheNewInk() throws {
        let live = try Live()
        live.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: Live.axes((100, 400), pressure: 0, distance: 0.1)))
        try live.frame()
        live.send(.tip(isDown: true, axes: Live.axes((100, 400))))
        var damaged: [Int] = []
        for f in 0..<30 {
            for i in 1...3 { live.send(.axis(Live.axes((100 + Double(f * 3 + i) * 4, 400)))) }
            damaged.append(try live.frame().damagedPixels)
        }
        let screenPixels = screenSize.width * screenSize.height
        #expect(damaged.allSatisfy { $0 > 0 && $0 < screenPixels / 100 }, "damage per frame \(damaged)")
    }

    @Test func highlighterDoesNotDarkenWhereItCrossesItself() throws {
        let live = try Live(tool: .highlighter)
        live.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: Live.axes((300, 300), pressure: 0, distance: 0.1)))
        live.send(.tip(isDown: true, axes: Live.axes((300, 300))))
        // Right, then down, then left, then up through the first line: a crossing at (400, 300).
        var path: [(Double, Double)] = []
        for i in 1...40 { path.append((300 + Double(i) * 5, 300)) }
        for i in 1...20 { path.append((500, 300 + Double(i) * 5)) }
        for i in 1...20 { path.append((500 - Double(i) * 5, 400)) }
        for i in 1...40 { path.append((400, 400 - Double(i) * 5)) }
        for (n, p) in path.enumerated() {
            live.send(.axis(Live.axes(p)))
            if n % 3 == 2 { try live.frame() }
        }
        live.send(.tip(isDown: false, axes: Live.axes((400, 200), pressure: 0, distance: 0.05)))
        live.send(.proximity(isIn: false, tool: .pen, serial: 1, axes: Live.axes((400, 200), pressure: 0, distance: 1)))
        try live.frame()
        let crossing = live.screen.image.pixel(x: 400, y: 300)
        let single = live.screen.image.pixel(x: 350, y: 300)
        #expect(single.b < 200, "highlighter left no colour")
        #expect(abs(Int(crossing.b) - Int(single.b)) <= 2, "crossing \(crossing) vs single \(single)")
    }

    @Test func aFastCircleShowsNoPolygonCorners() throws {
        let live = try Live()
        let c = (640.0, 400.0), radius = 150.0
        func at(_ a: Double) -> (Double, Double) { (c.0 + radius * cos(a), c.1 + radius * sin(a)) }
        live.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: Live.axes(at(0), pressure: 0, distance: 0.1)))
        live.send(.tip(isDown: true, axes: Live.axes(at(0))))
        // A fast flick: 16 samples per turn (a chord of a 16-gon sags 2.9 px from the circle).
        for i in 1...16 {
            live.send(.axis(Live.axes(at(Double(i) * .pi / 8))))
            if i % 3 == 0 { try live.frame() }
        }
        live.send(.tip(isDown: false, axes: Live.axes(at(0), pressure: 0, distance: 0.05)))
        try live.frame()
        // Between samples, the ink's centre stays on the circle.
        for k in 0..<16 {
            let a = (Double(k) + 0.5) * .pi / 8
            let radii = stride(from: radius - 8, through: radius + 8, by: 0.25).filter { r in
                let p = (c.0 + r * cos(a), c.1 + r * sin(a))
                return live.screen.darkness(Int(p.0.rounded()), Int(p.1.rounded())) > 0.5
            }
            let centre = radii.isEmpty ? 0 : (radii.first! + radii.last!) / 2
            #expect(abs(centre - radius) < 1.2, "between samples \(k) and \(k + 1) the ink runs at radius \(centre)")
        }
    }

    @Test func debugToolColoursCoalescedSegmentsAndEstimates() throws {
        let live = try Live(tool: .debug)
        live.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: Live.axes((200, 400), pressure: 0, distance: 0.1)))
        live.send(.tip(isDown: true, axes: Live.axes((200, 400))))
        for f in 0..<10 {
            for i in 1...3 { live.send(.axis(Live.axes((200 + Double(f * 3 + i) * 8, 400 + Double(i % 2) * 10)))) }
            try live.frame()
        }
        // A pen without tilt: its azimuth is an estimate, shown in orange.
        live.send(.axis(Axes(x: 0.3, y: 0.5, pressure: 0.5)))
        live.send(.tip(isDown: false, axes: Axes(x: 0.3, y: 0.5, pressure: 0)))
        try live.frame()
        var blue = 0, black = 0, orange = 0
        for y in 380..<430 { for x in 190..<500 {
            let p = live.screen.image.pixel(x: x, y: y)
            if p.b > 200 && p.r < 60 { blue += 1 }
            if p.r < 40 && p.g < 40 && p.b < 40 { black += 1 }
        } }
        for y in 390..<410 { for x in 374..<394 {
            let p = live.screen.image.pixel(x: x, y: y)
            if p.r > 220 && p.g > 100 && p.g < 180 && p.b < 60 { orange += 1 }
        } }
        #expect(blue > 50 && black > 50, "coalesced (blue) \(blue) px, real (black) \(black) px")
        #expect(orange > 3, "estimated (orange) \(orange) px")
    }
}

@Suite struct Clock {
    @Test func aFrameDeadlineIsNeverBeforeItsEvent() {
        let clock = FrameClock(start: 10.0, fps: 60)
        // Times that fall on a frame boundary up to rounding: the classic infinite-replay trap.
        for i in 0..<200_000 {
            let t = 10.0 + Double(i) * 0.005
            let d = clock.deadline(after: t)
            #expect(d >= t && d - t < clock.interval + 1e-9, "t \(t) → deadline \(d)")
            if d < t { break }
        }
    }
}
