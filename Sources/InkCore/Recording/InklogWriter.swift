// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// Writes `.inklog` lines: the header first, then one event per line.
/// Output is what `InklogReader` reads back to equal events.
public struct InklogWriter {
    public init() {}

    public func header(devices: [DeviceInfo]) -> String {
        let list = devices.map { d in
            "{\"id\":\(d.id),\"kind\":\"\(d.kind.rawValue)\",\"name\":\(quoted(d.name)),\"widthMM\":\(number(d.widthMM)),\"heightMM\":\(number(d.heightMM)),\"direct\":\(d.direct)}"
        }
        return "{\"inklog\":\(InklogReader.version),\"devices\":[\(list.joined(separator: ","))]}"
    }

    public func line(_ e: InkEvent) -> String {
        var s = "{\"t\":\(number(e.time)),\"dev\":\(e.device),\"ev\":"
        switch e.kind {
        case let .proximity(isIn, tool, serial, axes):
            s += "\"proximity\",\"in\":\(isIn),\"tool\":\"\(tool.rawValue)\""
            if let serial { s += ",\"serial\":\(serial)" }
            s += fields(axes)
        case let .tip(isDown, axes):
            s += "\"tip\",\"down\":\(isDown)" + fields(axes)
        case let .axis(axes):
            s += "\"axis\"" + fields(axes)
        case let .button(code, isPressed):
            s += "\"button\",\"button\":\(code),\"pressed\":\(isPressed)"
        case let .touchDown(slot, x, y):
            s += "\"touch-down\",\"slot\":\(slot),\"x\":\(number(x)),\"y\":\(number(y))"
        case let .touchMotion(slot, x, y):
            s += "\"touch-motion\",\"slot\":\(slot),\"x\":\(number(x)),\"y\":\(number(y))"
        case let .touchUp(slot):
            s += "\"touch-up\",\"slot\":\(slot)"
        case let .touchCancel(slot):
            s += "\"touch-cancel\",\"slot\":\(slot)"
        case .touchFrame:
            s += "\"touch-frame\""
        case let .padButton(button, isPressed):
            s += "\"pad-button\",\"button\":\(button),\"pressed\":\(isPressed)"
        }
        return s + "}"
    }

    public func document(devices: [DeviceInfo], events: [InkEvent]) -> String {
        ([header(devices: devices)] + events.map(line)).joined(separator: "\n") + "\n"
    }

    private func fields(_ a: Axes) -> String {
        var s = ",\"x\":\(number(a.x)),\"y\":\(number(a.y))"
        let optional: [(String, Double?)] = [("pressure", a.pressure), ("distance", a.distance), ("tiltX", a.tiltX),
                                             ("tiltY", a.tiltY), ("rotation", a.rotation), ("slider", a.slider)]
        for case let (name, v?) in optional { s += ",\"\(name)\":\(number(v))" }
        return s
    }

    /// Shortest text that reads back to the same Double.
    private func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return "\(v)"
    }

    private func quoted(_ s: String) -> String {
        let data = (try? JSONEncoder().encode(s)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
