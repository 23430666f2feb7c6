// SPDX-License-Identifier: Apache-2.0
import InkConfig
import Foundation
import Testing
import InkCore
import InkRender
import InkDisplay
import InkKiosk
@testable import InkPipeline
import InkTestSupport

@Suite struct RecordedSessions {
    /// Ink along a horizontal line of the tablet, at a few points.
    func inked(_ r: Replayed, y: Double, from x0: Double = 0.25, to x1: Double = 0.75) -> [Bool] {
        stride(from: x0, through: x1, by: 0.125).map { x in
            let (sx, sy) = px(x, y)
            return r.screen.inkNear(sx, sy, radius: 1)
        }
    }

    @Test func sideButtonClickSwitchesToThePreviousToolAndBack() throws {
        let r = try replay("buttons")
        #expect(inked(r, y: 0.15).allSatisfy { $0 }, "stroke 1 (pen)")
        #expect(inked(r, y: 0.35).allSatisfy { !$0 }, "stroke 2 should be the eraser after a click")
        #expect(inked(r, y: 0.55).allSatisfy { $0 }, "stroke 3 should be the pen again after a second click")
        // Stroke 5, drawn with BTN_STYLUS2 held, erased all of stroke 4 and left no ink itself.
        #expect(r.screen.inkCount(x0: 0, y0: 500, x1: 1280, y1: 800) == 0)
        #expect(r.pipeline.interaction.currentTool == .pen)
    }

    @Test func aLongPressDoesNotSwitchTools() throws {
        // Play up to just before BTN_STYLUS2 is pressed: stroke 4 follows the 900 ms hold.
        let full = try Fixtures.recording("buttons")
        guard let cut = full.events.firstIndex(where: { $0.kind == .button(code: ButtonCode.stylus2, isPressed: true) }) else {
            Issue.record("no BTN_STYLUS2 press in the recording"); return
        }
        let display = try OffscreenDisplay(size: screenSize)
        let partial = Recording(devices: full.devices, events: Array(full.events[..<cut]))
        let (pipeline, _) = try Replay(recording: partial, settings: InteractionSettings(screen: screenSize)).run(on: display, screen: ScreenSettings())
        #expect(pipeline.interaction.currentTool == .pen)
        let screen = Screen(display.screen)
        for x in [0.3, 0.5, 0.7] { #expect(screen.inkNear(px(x, 0.75).0, px(x, 0.75).1, radius: 1), "stroke 4 at x \(x)") }
    }

    @Test func clickActionsAreConfigurable() throws {
        let r = try replay("buttons", label: "-clicks-ignored") { $0.buttons[ButtonCode.stylus] = ButtonBinding(click: .ignore) }
        #expect(inked(r, y: 0.35).allSatisfy { $0 }, "with clicks ignored, stroke 2 is ink")
        let palette = try replay("buttons", label: "-palette") { $0.buttons[ButtonCode.stylus] = ButtonBinding(click: .showPalette) }
        #expect(palette.pipeline.interaction.paletteVisible == false, "two clicks open and close the palette")
        #expect(inked(palette, y: 0.35).allSatisfy { $0 })
    }

    @Test func padButtonClickSwitchesTools() throws {
        let r = try replay("pad")
        #expect(inked(r, y: 0.3).allSatisfy { $0 })
        #expect(inked(r, y: 0.5).allSatisfy { !$0 }, "after a pad click the pen erases")
        #expect(inked(r, y: 0.7).allSatisfy { $0 }, "a second click switches back")
    }

    @Test func fingerStrokesCancelledOrGesturesLeaveNoInk() throws {
        let r = try replay("finger")
        #expect(inked(r, y: 0.3).allSatisfy { $0 }, "a finger draws when no pen was seen")
        #expect(r.screen.inkCount(x0: 0, y0: 330, x1: 1280, y1: 800) == 0,
                "a touch-cancel or a second finger must leave no ink")
        #expect(r.stats.strokes == 1)
    }

    @Test func afterThePenAFingerDoesNotDraw() throws {
        let r = try replay("finger-after-pen")
        #expect(inked(r, y: 0.3).allSatisfy { $0 })
        #expect(inked(r, y: 0.6).allSatisfy { !$0 })
        let fingersAlways = try replay("finger-after-pen", label: "-fingers-always") { $0.penOnlyAfterPen = 0 }
        #expect(inked(fingersAlways, y: 0.6).allSatisfy { $0 })
    }

    @Test func incrementalFramesEqualAFullRedraw() throws {
        // The offscreen display only ever receives damaged rectangles. If damage tracking missed
        // anything, its picture would differ from drawing every finished stroke from scratch.
        for (name, tool) in [("pressure", ToolKind.pen), ("tilt", .calligraphy), ("eraser", .pen), ("zigzag", .highlighter)] {
            let r = try replay(name, tool: tool)
            let dir = try Fixtures.outputDirectory("full-redraw")
            let path = "\(dir)/\(name)-\(tool.rawValue).png"
            try Exporter(size: screenSize, background: .color(.white)).png(r.pipeline.document.strokes, to: path)
            let full = Screen(try ImageSurface.readPNG(path))
            let diff = compare(r.screen, full)
            #expect(diff.maxDelta <= 2, "\(name): incremental and full redraw differ by up to \(diff.maxDelta) at \(diff.worst)")
        }
    }
}

/// The largest channel difference between two same-size screens, and where it is.
func compare(_ a: Screen, _ b: Screen) -> (maxDelta: Int, worst: (Int, Int), meanDelta: Double) {
    var worst = (0, 0), maxDelta = 0, total = 0.0
    let size = a.image.size
    for y in 0..<size.height {
        for x in 0..<size.width {
            let p = a.image.pixel(x: x, y: y), q = b.image.pixel(x: x, y: y)
            let d = max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
            total += Double(d)
            if d > maxDelta { maxDelta = d; worst = (x, y) }
        }
    }
    return (maxDelta, worst, total / Double(size.width * size.height))
}
