// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
import InkRender
import InkKiosk
import InkDisplay
import InkTestSupport

@Suite struct InkOnScreen {
    @Test func inkWhereThePenWentDownNoneWhereItHovered() throws {
        let r = try replay("pressure")
        for y in [0.25, 0.5, 0.75] {
            for x in stride(from: 0.16, through: 0.84, by: 0.04) {
                let (sx, sy) = px(x, y)
                #expect(r.screen.inkNear(sx, sy, radius: 1), "no ink at (\(sx), \(sy))")
            }
            // The pen approaches from above-left and drifts on after lifting: no ink there.
            let (bx, by) = px(0.13, y - 0.02)
            #expect(!r.screen.inkNear(bx, by, radius: 2), "hover left ink at (\(bx), \(by))")
            let (ax, ay) = px(0.9, y)
            #expect(!r.screen.inkNear(ax, ay, radius: 2), "ink after the lift at (\(ax), \(ay))")
        }
        // Between the strokes the paper is blank.
        #expect(r.screen.inkCount(x0: 0, y0: 230, x1: 1280, y1: 370) == 0)
        #expect(r.screen.inkCount(x0: 0, y0: 0, x1: 1280, y1: 180) == 0)
        #expect(r.stats.strokes == 3)
    }

    @Test func higherPressureGivesWiderInk() throws {
        let r = try replay("pressure")
        let light = r.screen.thickness(x: 640, around: 200)
        let firm = r.screen.thickness(x: 640, around: 400)
        #expect(light >= 1 && firm >= 3 * light, "light \(light) px, firm \(firm) px")
        // The ramp widens from left to right.
        let widths = [0.2, 0.4, 0.6, 0.8].map { r.screen.thickness(x: px($0, 0.75).0, around: 600) }
        #expect(widths == widths.sorted() && widths.last! > widths.first! + 3, "ramp widths \(widths)")
    }

    @Test func calligraphyFollowsTheAzimuthAndHoldsWhenUpright() throws {
        let r = try replay("tilt", tool: .calligraphy)
        // Leaning right (azimuth 0): the nib stands across a horizontal stroke: thick.
        let across = r.screen.thickness(x: 640, around: 160)
        // Leaning down (azimuth 90°): the nib lies along the stroke: a hairline.
        let along = r.screen.thickness(x: 640, around: 320)
        let diagonal = r.screen.thickness(x: 640, around: 480)
        #expect(across >= 12 && along <= 3 && diagonal > along && diagonal < across,
                "across \(across), along \(along), diagonal \(diagonal)")
        // The last stroke starts leaning right, then the pen stands upright: the nib stays.
        let before = r.screen.thickness(x: px(0.35, 0.8).0, around: 640)
        let after = r.screen.thickness(x: px(0.75, 0.8).0, around: 640)
        #expect(abs(before - after) <= 1 && after >= 12, "before \(before), after upright \(after)")
    }

    @Test func everySampleOfAFastZigZagIsACorner() throws {
        let r = try replay("zigzag")
        let events = try Fixtures.recording("zigzag").events
        // The first stroke's samples: every axis event while the tip is down.
        var down = false, corners: [(Double, Double)] = []
        for e in events {
            switch e.kind {
            case .tip(let isDown, let a): down = isDown; if isDown { corners.append((a.x, a.y)) }
            case .axis(let a) where down: corners.append((a.x, a.y))
            case .proximity(false, _, _, _): if !corners.isEmpty { down = false }
            default: break
            }
            if case .proximity(false, _, _, _) = e.kind, corners.count > 10 { break }
        }
        #expect(corners.count == 61)
        for (x, y) in corners {
            let (sx, sy) = px(x, y)
            #expect(r.screen.inkNear(sx, sy, radius: 1), "corner at (\(sx), \(sy)) has no ink")
        }
        // And the peaks are really reached: ink 1 px inside each outer corner, none 4 px beyond.
        for (x, y) in corners.dropFirst().dropLast() {
            let (sx, sy) = px(x, y)
            let outward = y < 0.5 ? -1 : 1
            #expect(!r.screen.inkNear(sx, sy + outward * 8, radius: 0), "ink overshoots at (\(sx), \(sy))")
        }
    }

    @Test func finalPictureIsTheSameWithAndWithoutPrediction() throws {
        for name in ["pressure", "zigzag", "buttons", "finger"] {
            let with = try replay(name, prediction: true)
            let without = try replay(name, prediction: false)
            var differing = 0
            for y in 0..<screenSize.height { for x in 0..<screenSize.width
                where with.screen.image.pixel(x: x, y: y) != without.screen.image.pixel(x: x, y: y) { differing += 1 } }
            #expect(differing == 0, "\(name): \(differing) pixels differ")
        }
    }

    @Test func noStrayInkWhenThePenLiftsLeavesOrFlips() throws {
        let r = try replay("stray")
        #expect(r.stats.strokes == 1)
        // The stroke itself is there, end to end.
        let (x0, y0) = px(0.3, 0.5), (x1, _) = px(0.6, 0.5)
        #expect(r.screen.inkNear(x0, y0) && r.screen.inkNear(x1, y0))
        // Nothing where the pen hovered off to, nothing at the (0, 0) that proximity-out reported,
        // nothing towards it, nothing where the eraser end or the pen hovered later.
        #expect(!r.screen.inkNear(px(0.8, 0.2).0, px(0.8, 0.2).1, radius: 4))
        #expect(r.screen.inkCount(x0: 0, y0: 0, x1: 40, y1: 40) == 0)
        #expect(!r.screen.inkNear(384, 200, radius: 4))
        #expect(!r.screen.inkNear(px(0.2, 0.8).0, px(0.2, 0.8).1, radius: 6))
        #expect(!r.screen.inkNear(px(0.9, 0.9).0, px(0.9, 0.9).1, radius: 6))
        // Only the stroke's ink exists on the whole screen.
        #expect(r.screen.inkTotal == r.screen.inkCount(x0: x0 - 10, y0: y0 - 10, x1: x1 + 10, y1: y0 + 10))
    }

    /// A controller's glitch on release must not draw a line to where it says the pen lifted.
    @Test func aTipUpThePenCouldNotHaveReachedEndsTheStrokeAtItsLastSample() throws {
        let r = try replay("tipup-glitch")
        #expect(r.stats.strokes == 5)
        var band = 0
        for i in 0..<5 {
            let y = 0.15 + 0.16 * Double(i)
            let (x0, sy) = px(0.3, y), (x1, _) = px(0.6, y)
            #expect(r.screen.inkNear(x0, sy) && r.screen.inkNear(x1, sy), "stroke \(i) is not whole")
            // Nothing beyond the stroke's end: the glitches (0,0; 20 mm away; the maximum; a
            // proximity-out at 0,0) are ignored.
            if i < 4 { #expect(!r.screen.inkNear(x1 + 8, sy, radius: 2), "stroke \(i) reaches past its last sample") }
            band += r.screen.inkCount(x0: x0 - 10, y0: sy - 10, x1: x1 + 16, y1: sy + 10)
        }
        // The true tip-up 1 mm past the end (≈ 4 px here) is reached.
        let (end, last) = px(0.6 + 1.0 / 224, 0.79)
        #expect(r.screen.inkNear(end, last, radius: 1), "the true tip-up was not reached")
        // Every ink pixel on the screen lies in a stroke's own band.
        #expect(r.screen.inkTotal == band, "\(r.screen.inkTotal - band) ink pixels outside the strokes' bands")
        #expect(r.screen.inkCount(x0: 0, y0: 0, x1: 60, y1: 60) == 0)
        #expect(r.screen.inkCount(x0: 1220, y0: 740, x1: 1280, y1: 800) == 0)
    }

    @Test func eraserEndRemovesTheWholeStrokeItTouches() throws {
        let r = try replay("eraser")
        let (ax, ay) = px(0.3, 0.3), (bx, by) = px(0.3, 0.7)
        #expect(!r.screen.inkNear(ax, ay, radius: 3), "stroke A survived the eraser")
        #expect(r.screen.inkCount(x0: 0, y0: 0, x1: 1280, y1: 400) == 0)
        #expect(r.screen.inkNear(bx, by), "stroke B was erased too")
        #expect(r.pipeline.document.strokes.count == 1)
        r.pipeline.undo()
        try r.pipeline.renderFrame()
        let display = try #require(r.pipeline.display as? OffscreenDisplay)
        #expect(Screen(display.screen).inkNear(ax, ay), "undo did not bring stroke A back")
    }
}
