// SPDX-License-Identifier: Apache-2.0
import InkCore
import InkDisplay

/// Input from devices drawn on the screen itself (touchscreens, screen tablets) reports where
/// on the *screen* it is; the ink belongs where that spot shows the canvas. While the canvas
/// fills the screen the two agree. On a screen of another size (`ScreenPlacement`: centred,
/// maybe scaled down) a direct device's position is mapped onto the canvas; on the black
/// borders it lies outside 0…1 (and the mapper clamps it to the canvas edge). A desk tablet's
/// area stands for the canvas itself and is left as it is.
public struct CanvasInput: Sendable {
    private var direct: Set<Int> = []
    public init() {}

    public mutating func added(_ device: DeviceInfo) { if device.direct { direct.insert(device.id) } }
    public mutating func removed(_ id: Int) { direct.remove(id) }

    public func map(_ event: InkEvent, _ placement: ScreenPlacement) -> InkEvent {
        guard !placement.isIdentity, direct.contains(event.device) else { return event }
        func axes(_ a: Axes) -> Axes {
            var a = a
            (a.x, a.y) = placement.canvasNormalised(x: a.x, y: a.y)
            return a
        }
        var e = event
        switch event.kind {
        case .proximity(let isIn, let tool, let serial, let a): e.kind = .proximity(isIn: isIn, tool: tool, serial: serial, axes: axes(a))
        case .tip(let down, let a): e.kind = .tip(isDown: down, axes: axes(a))
        case .axis(let a): e.kind = .axis(axes(a))
        case .touchDown(let slot, let x, let y):
            let p = placement.canvasNormalised(x: x, y: y)
            e.kind = .touchDown(slot: slot, x: p.x, y: p.y)
        case .touchMotion(let slot, let x, let y):
            let p = placement.canvasNormalised(x: x, y: y)
            e.kind = .touchMotion(slot: slot, x: p.x, y: p.y)
        case .button, .touchUp, .touchCancel, .touchFrame, .padButton: break
        }
        return e
    }
}
