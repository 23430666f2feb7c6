// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
import InkDisplay
@testable import InkKiosk

@Suite struct CanvasInputs {
    let canvas = PixelSize(width: 1280, height: 800)
    let touch = DeviceInfo(id: 2, kind: .touch, name: "touch", widthMM: 300, heightMM: 190, direct: true)
    let tablet = DeviceInfo(id: 1, kind: .tablet, name: "pen", widthMM: 224, heightMM: 140, direct: false)

    @Test func aTouchOnALargerScreenDrawsUnderTheFinger() {
        var input = CanvasInput()
        input.added(touch); input.added(tablet)
        let placement = ScreenPlacement(canvas: canvas, screen: PixelSize(width: 1440, height: 900))
        // The finger at screen pixel (720, 450), the screen's centre: the canvas's centre.
        let e = input.map(InkEvent(time: 1, device: 2, kind: .touchDown(slot: 0, x: 0.5, y: 0.5)), placement)
        #expect(e.kind == .touchDown(slot: 0, x: 0.5, y: 0.5))
        // Screen pixel (80 + 128, 50 + 80) is canvas pixel (128, 80).
        let m = input.map(InkEvent(time: 1, device: 2, kind: .touchMotion(slot: 0, x: 208 / 1440, y: 130 / 900)), placement)
        guard case .touchMotion(_, let x, let y) = m.kind else { Issue.record("kind changed"); return }
        #expect(abs(x * 1280 - 128) < 1e-9 && abs(y * 800 - 80) < 1e-9)
    }

    @Test func aDeskTabletStandsForTheCanvasAndIsLeftAlone() {
        var input = CanvasInput()
        input.added(tablet)
        let placement = ScreenPlacement(canvas: canvas, screen: PixelSize(width: 1024, height: 768))
        let e = InkEvent(time: 1, device: 1, kind: .tip(isDown: true, axes: Axes(x: 0.1, y: 0.2, pressure: 0.5)))
        #expect(input.map(e, placement) == e)
    }

    @Test func aScreenTabletOnAScaledCanvasMapsItsAxesAndKeepsTheRest() {
        var input = CanvasInput()
        let screenTablet = DeviceInfo(id: 3, kind: .tablet, name: "Cintiq", widthMM: 300, heightMM: 190, direct: true)
        input.added(screenTablet)
        let placement = ScreenPlacement(canvas: canvas, screen: PixelSize(width: 1024, height: 768))   // 0.8, at +0+64
        let e = input.map(InkEvent(time: 1, device: 3, kind: .axis(Axes(x: 0.25, y: (64 + 320) / 768, pressure: 0.7, tiltX: 10))), placement)
        #expect(e.kind == .axis(Axes(x: 0.25, y: 0.5, pressure: 0.7, tiltX: 10)))
        input.removed(3)
        let after = InkEvent(time: 2, device: 3, kind: .axis(Axes(x: 0.25, y: 0.1)))
        #expect(input.map(after, placement) == after, "a device gone is forgotten")
    }
}
