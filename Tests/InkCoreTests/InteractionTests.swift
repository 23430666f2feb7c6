// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkCore

private let tablet = DeviceInfo(id: 1, kind: .tablet, name: "Pen", widthMM: 160, heightMM: 100, direct: false)
private let touch = DeviceInfo(id: 2, kind: .touch, name: "Touch", widthMM: 160, heightMM: 100, direct: true)
private let pad = DeviceInfo(id: 3, kind: .pad, name: "Pad", widthMM: 160, heightMM: 100, direct: false)

/// Drives an Interaction and a Document together, as the pipeline does.
private struct Rig {
    var interaction: Interaction
    var document = Document()
    var t = 1.0

    init(_ configure: (inout InteractionSettings) -> Void = { _ in }) {
        var s = InteractionSettings(screen: PixelSize(width: 1600, height: 1000))
        configure(&s)
        interaction = Interaction(settings: s, devices: [tablet, touch, pad])
    }

    /// Presses on controls, in order (the pipeline hands them to the screen).
    var presses: [Press] = []

    mutating func send(_ kind: InkEventKind, device: Int = 1, after dt: Double = 0.005) {
        t += dt
        for intent in interaction.handle(InkEvent(time: t, device: device, kind: kind)) {
            if case .press(let p) = intent { presses.append(p) }
            document.apply(intent)
        }
    }

    func axes(_ x: Double, _ y: Double, pressure: Double = 0.5, distance: Double = 0) -> Axes {
        Axes(x: x, y: y, pressure: pressure, distance: distance, tiltX: 10, tiltY: 0)
    }

    mutating func penStroke(y: Double, tool: ToolType = .pen) {
        send(.proximity(isIn: true, tool: tool, serial: 1, axes: axes(0.2, y, pressure: 0, distance: 0.3)))
        send(.tip(isDown: true, axes: axes(0.2, y)))
        for i in 1...10 { send(.axis(axes(0.2 + 0.05 * Double(i), y))) }
        send(.tip(isDown: false, axes: axes(0.7, y, pressure: 0, distance: 0.05)))
    }

    mutating func click(_ button: Int, holding seconds: Double = 0.08) {
        send(.button(code: button, isPressed: true))
        send(.button(code: button, isPressed: false), after: seconds)
    }
}

@Suite struct PenInteraction {
    @Test func sideButtonClickSwitchesToThePreviousToolAndBack() {
        var rig = Rig { $0.tool = .calligraphy }
        rig.penStroke(y: 0.2)
        rig.click(ButtonCode.stylus)
        #expect(rig.interaction.currentTool == .eraser)
        rig.click(ButtonCode.stylus)
        #expect(rig.interaction.currentTool == .calligraphy)
    }

    @Test func aHoldIsNotAClick() {
        var rig = Rig()
        rig.penStroke(y: 0.2)
        rig.click(ButtonCode.stylus, holding: 0.9)
        #expect(rig.interaction.currentTool == .pen)
    }

    @Test func aButtonPressedWhileWritingIsNotAClick() {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2)))
        rig.click(ButtonCode.stylus)
        rig.send(.tip(isDown: false, axes: rig.axes(0.2, 0.2, pressure: 0)))
        #expect(rig.interaction.currentTool == .pen)
    }

    @Test func configuredActions() {
        var rig = Rig { $0.buttons[ButtonCode.stylus] = ButtonBinding(click: .toggleDebug) }
        rig.penStroke(y: 0.1)
        rig.click(ButtonCode.stylus)
        #expect(rig.interaction.currentTool == .debug)
        var palette = Rig { $0.buttons[ButtonCode.stylus] = ButtonBinding(click: .showPalette) }
        palette.penStroke(y: 0.1)
        palette.click(ButtonCode.stylus)
        #expect(palette.interaction.paletteVisible)
        var ignoring = Rig { $0.buttons[ButtonCode.stylus] = ButtonBinding(click: .ignore) }
        ignoring.penStroke(y: 0.1)
        ignoring.click(ButtonCode.stylus)
        #expect(ignoring.interaction.currentTool == .pen)
    }

    @Test func padButtonDoesThePreferredAction() {
        var rig = Rig()
        rig.send(.padButton(button: 0, isPressed: true), device: 3)
        rig.send(.padButton(button: 0, isPressed: false), device: 3, after: 0.08)
        #expect(rig.interaction.currentTool == .eraser)
    }

    @Test func eraserEndErasesWithoutChangingTheTool() {
        var rig = Rig()
        rig.penStroke(y: 0.3)
        rig.send(.proximity(isIn: false, tool: .pen, serial: 1, axes: rig.axes(0.7, 0.3, pressure: 0, distance: 1)))
        #expect(rig.document.strokes.count == 1)
        // Flipped: the eraser end crosses the stroke.
        rig.send(.proximity(isIn: true, tool: .eraser, serial: 1, axes: rig.axes(0.4, 0.2, pressure: 0, distance: 0.3)))
        #expect(rig.interaction.hover[1]?.brush.tool == .eraser)
        rig.send(.tip(isDown: true, axes: rig.axes(0.4, 0.2)))
        for i in 1...10 { rig.send(.axis(rig.axes(0.4, 0.2 + 0.02 * Double(i)))) }
        rig.send(.tip(isDown: false, axes: rig.axes(0.4, 0.4, pressure: 0)))
        #expect(rig.document.strokes.isEmpty)
        #expect(rig.interaction.currentTool == .pen)
        rig.document.undo()
        #expect(rig.document.strokes.count == 1)
    }

    @Test func holdingTheSecondButtonErases() {
        var rig = Rig()
        rig.penStroke(y: 0.3)
        rig.send(.button(code: ButtonCode.stylus2, isPressed: true))
        rig.send(.tip(isDown: true, axes: rig.axes(0.4, 0.2)))
        #expect(rig.document.active.values.first?.brush.tool == .eraser)
    }

    @Test func noHoverPreviewWhileDrawingNorAfterProximityOut() {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        #expect(rig.interaction.hover[1] != nil)
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2)))
        #expect(rig.interaction.hover[1] == nil)
        rig.send(.tip(isDown: false, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.05)))
        #expect(rig.interaction.hover[1] != nil)
        rig.send(.proximity(isIn: false, tool: .pen, serial: 1, axes: rig.axes(0, 0, pressure: 0, distance: 1)))
        #expect(rig.interaction.hover[1] == nil)
    }

    @Test func proximityOutWithTheTipDownEndsTheStrokeWhereItWas() throws {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2)))
        rig.send(.axis(rig.axes(0.3, 0.2)))
        rig.send(.proximity(isIn: false, tool: .pen, serial: 1, axes: rig.axes(0, 0, pressure: 0)))
        let stroke = try #require(rig.document.strokes.first)
        #expect(stroke.samples.count == 2)
        #expect(stroke.samples.allSatisfy { $0.location.x > 100 })
    }

    @Test func aLateTipDownPressureIsAnEstimateThatTheNextSampleReplaces() throws {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2, pressure: 0)))
        let first = try #require(rig.document.active.values.first?.samples.first)
        #expect(first.estimatesExpectingUpdate.contains(.pressure))
        rig.send(.axis(rig.axes(0.21, 0.2, pressure: 0.8)))
        let updated = try #require(rig.document.active.values.first?.samples.first)
        #expect(abs(updated.pressure - 0.8) < 1e-5, "as a stroke keeps it (65536ths)")
        #expect(updated.estimated.isEmpty && updated.estimatesExpectingUpdate.isEmpty)
    }

    @Test func coalescedSamplesAreAllButTheLastOfAFrame() throws {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2)))
        rig.document.finishFrame()
        for i in 1...3 { rig.send(.axis(rig.axes(0.2 + 0.01 * Double(i), 0.2))) }
        rig.document.finishFrame()
        let samples = try #require(rig.document.active.values.first?.samples)
        #expect(samples.map(\.isCoalesced) == [false, true, true, false])
    }

    @Test func toolsWithoutTiltOrPressureGetMarkedEstimates() throws {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: Axes(x: 0.2, y: 0.2)))
        rig.send(.tip(isDown: true, axes: Axes(x: 0.2, y: 0.2)))
        let s = try #require(rig.document.active.values.first?.samples.first)
        #expect(s.estimated == [.pressure, .altitude, .azimuth, .distance])
        #expect(s.estimatesExpectingUpdate.isEmpty)
    }
}

private func finger(_ rig: inout Rig, slot: Int = 0, y: Double, end: InkEventKind? = nil) {
    rig.send(.touchDown(slot: slot, x: 0.2, y: y), device: 2)
    for i in 1...5 { rig.send(.touchMotion(slot: slot, x: 0.2 + 0.05 * Double(i), y: y), device: 2, after: 0.01) }
    rig.send(end ?? .touchUp(slot: slot), device: 2)
}

@Suite struct FingerInteraction {
    @Test func aFingerDrawsWhenNoPenWasSeen() {
        var rig = Rig()
        finger(&rig, y: 0.5)
        #expect(rig.document.strokes.count == 1)
    }

    @Test func afterThePenAFingerDoesNotDraw() {
        var rig = Rig()
        rig.penStroke(y: 0.2)
        rig.send(.proximity(isIn: false, tool: .pen, serial: 1, axes: rig.axes(0.7, 0.2, pressure: 0, distance: 1)))
        finger(&rig, y: 0.5)
        #expect(rig.document.strokes.count == 1)
        var off = Rig { $0.penOnlyAfterPen = 0 }
        off.penStroke(y: 0.2)
        finger(&off, y: 0.5)
        #expect(off.document.strokes.count == 2)
    }

    @Test func pencilModeEndsAfterItsTimeout() {
        var rig = Rig { $0.penOnlyAfterPen = 10 }
        rig.penStroke(y: 0.2)
        rig.t += 11
        finger(&rig, y: 0.5)
        #expect(rig.document.strokes.count == 2)
    }

    @Test func touchCancelLeavesNoStroke() {
        var rig = Rig()
        finger(&rig, y: 0.5, end: .touchCancel(slot: 0))
        #expect(rig.document.strokes.isEmpty && rig.document.active.isEmpty)
    }

    @Test func aSecondFingerLandingEarlyCancelsTheStroke() {
        var rig = Rig()
        rig.send(.touchDown(slot: 0, x: 0.2, y: 0.5), device: 2)
        rig.send(.touchMotion(slot: 0, x: 0.25, y: 0.5), device: 2, after: 0.03)
        rig.send(.touchDown(slot: 1, x: 0.8, y: 0.9), device: 2, after: 0.03)
        rig.send(.touchMotion(slot: 1, x: 0.7, y: 0.9), device: 2)
        rig.send(.touchUp(slot: 0), device: 2)
        rig.send(.touchUp(slot: 1), device: 2)
        #expect(rig.document.strokes.isEmpty)
    }

    @Test func unplugMidStrokeEndsItCleanly() {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2)))
        rig.send(.axis(rig.axes(0.3, 0.2)))
        for intent in rig.interaction.removeDevice(1) { rig.document.apply(intent) }
        #expect(rig.document.strokes.count == 1 && rig.document.active.isEmpty)
    }
}

@Suite struct Undo {
    @Test func undoRedoClear() {
        var rig = Rig()
        rig.penStroke(y: 0.2)
        rig.penStroke(y: 0.4)
        #expect(rig.document.strokes.count == 2)
        rig.document.undo()
        #expect(rig.document.strokes.count == 1)
        rig.document.redo()
        #expect(rig.document.strokes.count == 2)
        rig.document.clear()
        #expect(rig.document.isEmpty)
        rig.document.undo()
        #expect(rig.document.strokes.count == 2)
        rig.penStroke(y: 0.6)
        #expect(!rig.document.canRedo)
    }
}

@Suite struct TipUp {
    @Test func theStrokeReachesWhereThePenLeftTheSurface() throws {
        // The tip-up's frame moved the pen on by 1.6 mm (160 mm wide tablet): the stroke ends there.
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2, pressure: 0.7)))
        rig.send(.axis(rig.axes(0.3, 0.2, pressure: 0.7)))
        rig.send(.tip(isDown: false, axes: rig.axes(0.31, 0.2, pressure: 0, distance: 0.02)))
        let stroke = try #require(rig.document.strokes.first)
        #expect(stroke.samples.count == 3)
        let last = try #require(stroke.samples.last)
        #expect(abs(last.location.x - 0.31 * 1600) < 1e-4 && abs(last.pressure - 0.7) < 1e-5)
    }

    /// Controllers glitch on release: 0,0, the axis maximum, a stale place far away. The stroke
    /// ends at its last sample; only a place the pen could have reached extends it.
    @Test(arguments: [(0.0, 0.0), (1.0, 1.0), (0.3, 0.4), (0.3 + 5.0 / 160, 0.2)])
    func aTipUpThePenCouldNotHaveReachedIsIgnored(_ end: (Double, Double)) throws {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2, pressure: 0.7)))
        rig.send(.axis(rig.axes(0.3, 0.2, pressure: 0.7)))
        rig.send(.tip(isDown: false, axes: rig.axes(end.0, end.1, pressure: 0, distance: 0.02)))
        let stroke = try #require(rig.document.strokes.first)
        #expect(stroke.samples.count == 2 && stroke.state == .done)
        #expect(stroke.samples.last?.location == Point(0.3 * 1600, 0.2 * 1000))
    }

    @Test func theReachIsLimitedByDistanceAndBySpeed() {
        let reach = TipUpReach(maxMM: 3, maxSpeed: 1500)
        #expect(reach.reaches(distanceMM: 2.9, elapsed: 0.005))
        #expect(!reach.reaches(distanceMM: 3.1, elapsed: 0.005), "farther than a few millimetres")
        #expect(!reach.reaches(distanceMM: 2, elapsed: 0.001), "2 mm in 1 ms is 2 m/s: faster than a hand")
        #expect(!reach.reaches(distanceMM: .nan, elapsed: 0.005))
        #expect(!TipUpReach(maxMM: 0).reaches(distanceMM: 0.1, elapsed: 1), "0 mm: never past the last sample")
    }

    @Test func aLiftInPlaceAddsNothing() throws {
        var rig = Rig()
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.2, 0.2, pressure: 0, distance: 0.3)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.2, 0.2, pressure: 0.7)))
        rig.send(.axis(rig.axes(0.3, 0.2, pressure: 0.7)))
        rig.send(.tip(isDown: false, axes: rig.axes(0.3, 0.2, pressure: 0, distance: 0.02)))
        #expect(try #require(rig.document.strokes.first).samples.count == 2)
    }
}


@Suite struct ControlPressesFromInput {
    /// The top 100 px of the 1600×1000 screen are a toolbar.
    static let toolbar = Rect(x: 0, y: 0, width: 1600, height: 100)

    @Test func aFingerOnTheToolbarPressesEvenInPencilModeAndNeverDraws() {
        var rig = Rig()
        rig.interaction.setControlAreas([Self.toolbar], modal: false)
        rig.penStroke(y: 0.5)                          // a pen was used: fingers no longer draw
        rig.send(.touchDown(slot: 0, x: 0.5, y: 0.05), device: 2)
        rig.send(.touchMotion(slot: 0, x: 0.51, y: 0.05), device: 2)
        rig.send(.touchUp(slot: 0), device: 2)
        #expect(rig.presses.map(\.phase) == [.began, .moved, .ended])
        #expect(rig.presses.last?.location.x == 816)
        #expect(rig.document.strokes.count == 1, "only the pen's stroke")
        // Below the toolbar the finger neither presses nor (in pencil mode) draws.
        rig.send(.touchDown(slot: 0, x: 0.5, y: 0.5), device: 2)
        rig.send(.touchUp(slot: 0), device: 2)
        #expect(rig.presses.count == 3 && rig.document.strokes.count == 1)
    }

    @Test func aPenTipOnTheToolbarPressesAndElsewhereDraws() {
        var rig = Rig()
        rig.interaction.setControlAreas([Self.toolbar], modal: false)
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.3, 0.05, pressure: 0, distance: 0.2)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.3, 0.05)))
        rig.send(.axis(rig.axes(0.3, 0.5)))               // dragged out of the toolbar: still a press
        rig.send(.tip(isDown: false, axes: rig.axes(0.3, 0.5, pressure: 0)))
        #expect(rig.presses.map(\.phase) == [.began, .moved, .ended])
        #expect(rig.document.strokes.isEmpty && rig.document.active.isEmpty)
        rig.penStroke(y: 0.5)
        #expect(rig.document.strokes.count == 1)
    }

    @Test func aDialogTakesEveryContactAndAPenLeavingCancelsItsPress() {
        var rig = Rig()
        rig.interaction.setControlAreas([], modal: true)
        rig.penStroke(y: 0.5)
        rig.send(.touchDown(slot: 1, x: 0.5, y: 0.5), device: 2)
        #expect(rig.document.strokes.isEmpty && rig.document.active.isEmpty, "nothing draws under a dialog")
        rig.send(.proximity(isIn: true, tool: .pen, serial: 1, axes: rig.axes(0.3, 0.3, pressure: 0, distance: 0.2)))
        rig.send(.tip(isDown: true, axes: rig.axes(0.3, 0.3)))
        rig.send(.proximity(isIn: false, tool: .pen, serial: 1, axes: rig.axes(0, 0, pressure: 0)))
        #expect(rig.presses.last?.phase == .cancelled)
    }
}
