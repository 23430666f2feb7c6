// SPDX-License-Identifier: Apache-2.0
import CLibInput
import InkCore

/// One libinput event → one `InkEvent`, exactly as `.inklog` defines it: positions normalised
/// to the device (0…1), pressure and distance 0…1, tilt in degrees, a missing axis = absent.
/// Times are the kernel's, in seconds.
struct EventTranslator {
    func translate(_ event: OpaquePointer, device id: Int) -> InkEvent? {
        switch libinput_event_get_type(event) {
        case LIBINPUT_EVENT_TABLET_TOOL_PROXIMITY, LIBINPUT_EVENT_TABLET_TOOL_TIP,
             LIBINPUT_EVENT_TABLET_TOOL_AXIS, LIBINPUT_EVENT_TABLET_TOOL_BUTTON:
            guard let t = libinput_event_get_tablet_tool_event(event) else { return nil }
            return InkEvent(time: Double(libinput_event_tablet_tool_get_time_usec(t)) / 1e6, device: id, kind: tool(event, t))
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION, LIBINPUT_EVENT_TOUCH_UP,
             LIBINPUT_EVENT_TOUCH_CANCEL, LIBINPUT_EVENT_TOUCH_FRAME:
            guard let t = libinput_event_get_touch_event(event) else { return nil }
            return InkEvent(time: Double(libinput_event_touch_get_time_usec(t)) / 1e6, device: id, kind: touch(event, t))
        case LIBINPUT_EVENT_TABLET_PAD_BUTTON:
            guard let p = libinput_event_get_tablet_pad_event(event) else { return nil }
            let pressed = libinput_event_tablet_pad_get_button_state(p) == LIBINPUT_BUTTON_STATE_PRESSED
            return InkEvent(time: Double(libinput_event_tablet_pad_get_time_usec(p)) / 1e6, device: id,
                            kind: .padButton(button: Int(libinput_event_tablet_pad_get_button_number(p)), isPressed: pressed))
        default:
            return nil
        }
    }

    private func tool(_ event: OpaquePointer, _ t: OpaquePointer) -> InkEventKind {
        switch libinput_event_get_type(event) {
        case LIBINPUT_EVENT_TABLET_TOOL_PROXIMITY:
            let tool = libinput_event_tablet_tool_get_tool(t)
            let serial = tool.map { Int(libinput_tablet_tool_get_serial($0)) }
            return .proximity(isIn: libinput_event_tablet_tool_get_proximity_state(t) == LIBINPUT_TABLET_TOOL_PROXIMITY_STATE_IN,
                              tool: toolType(tool), serial: serial == 0 ? nil : serial, axes: axes(t))
        case LIBINPUT_EVENT_TABLET_TOOL_TIP:
            return .tip(isDown: libinput_event_tablet_tool_get_tip_state(t) == LIBINPUT_TABLET_TOOL_TIP_DOWN, axes: axes(t))
        case LIBINPUT_EVENT_TABLET_TOOL_BUTTON:
            return .button(code: Int(libinput_event_tablet_tool_get_button(t)),
                           isPressed: libinput_event_tablet_tool_get_button_state(t) == LIBINPUT_BUTTON_STATE_PRESSED)
        default:
            return .axis(axes(t))
        }
    }

    private func axes(_ t: OpaquePointer) -> Axes {
        let tool = libinput_event_tablet_tool_get_tool(t)
        func has(_ check: (OpaquePointer?) -> Int32) -> Bool { tool.map { check($0) != 0 } ?? false }
        var a = Axes(x: libinput_event_tablet_tool_get_x_transformed(t, 1).clamped(to: 0...1),
                     y: libinput_event_tablet_tool_get_y_transformed(t, 1).clamped(to: 0...1))
        if has(libinput_tablet_tool_has_pressure) { a.pressure = libinput_event_tablet_tool_get_pressure(t).clamped(to: 0...1) }
        if has(libinput_tablet_tool_has_distance) { a.distance = libinput_event_tablet_tool_get_distance(t).clamped(to: 0...1) }
        if has(libinput_tablet_tool_has_tilt) {
            a.tiltX = libinput_event_tablet_tool_get_tilt_x(t).clamped(to: -90...90)
            a.tiltY = libinput_event_tablet_tool_get_tilt_y(t).clamped(to: -90...90)
        }
        if has(libinput_tablet_tool_has_rotation) { a.rotation = libinput_event_tablet_tool_get_rotation(t).clamped(to: 0...360) }
        if has(libinput_tablet_tool_has_slider) { a.slider = libinput_event_tablet_tool_get_slider_position(t).clamped(to: -1...1) }
        return a
    }

    private func toolType(_ tool: OpaquePointer?) -> ToolType {
        guard let tool else { return .pen }
        switch libinput_tablet_tool_get_type(tool) {
        case LIBINPUT_TABLET_TOOL_TYPE_ERASER: return .eraser
        case LIBINPUT_TABLET_TOOL_TYPE_BRUSH: return .brush
        case LIBINPUT_TABLET_TOOL_TYPE_PENCIL: return .pencil
        case LIBINPUT_TABLET_TOOL_TYPE_AIRBRUSH: return .airbrush
        case LIBINPUT_TABLET_TOOL_TYPE_MOUSE: return .mouse
        case LIBINPUT_TABLET_TOOL_TYPE_LENS: return .lens
        default: return .pen
        }
    }

    private func touch(_ event: OpaquePointer, _ t: OpaquePointer) -> InkEventKind {
        let type = libinput_event_get_type(event)
        // A frame has no slot: libinput logs asking for one as a client bug (once per frame).
        guard type != LIBINPUT_EVENT_TOUCH_FRAME else { return .touchFrame }
        let slot = Int(max(libinput_event_touch_get_seat_slot(t), 0))
        switch type {
        case LIBINPUT_EVENT_TOUCH_DOWN:
            return .touchDown(slot: slot, x: libinput_event_touch_get_x_transformed(t, 1).clamped(to: 0...1),
                              y: libinput_event_touch_get_y_transformed(t, 1).clamped(to: 0...1))
        case LIBINPUT_EVENT_TOUCH_MOTION:
            return .touchMotion(slot: slot, x: libinput_event_touch_get_x_transformed(t, 1).clamped(to: 0...1),
                                y: libinput_event_touch_get_y_transformed(t, 1).clamped(to: 0...1))
        case LIBINPUT_EVENT_TOUCH_UP: return .touchUp(slot: slot)
        case LIBINPUT_EVENT_TOUCH_CANCEL: return .touchCancel(slot: slot)
        default: return .touchFrame
        }
    }
}
