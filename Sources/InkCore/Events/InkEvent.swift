// SPDX-License-Identifier: Apache-2.0
/// What kind of input device a recording or a seat has.
public enum DeviceKind: String, Sendable, Codable, Equatable {
    case tablet, touch, pad
}

/// One input device, as the `.inklog` header and `inkkiosk devices` describe it.
public struct DeviceInfo: Sendable, Equatable, Codable {
    public var id: Int
    public var kind: DeviceKind
    public var name: String
    public var widthMM: Double
    public var heightMM: Double
    /// A screen tablet or touchscreen (drawn on the display itself) rather than a desk tablet.
    public var direct: Bool

    public init(id: Int, kind: DeviceKind, name: String, widthMM: Double, heightMM: Double, direct: Bool) {
        self.id = id; self.kind = kind; self.name = name
        self.widthMM = widthMM; self.heightMM = heightMM; self.direct = direct
    }
}

/// The physical tool libinput reports in proximity.
public enum ToolType: String, Sendable, Equatable, CaseIterable {
    case pen, eraser, brush, pencil, airbrush, mouse, lens
}

/// The state of a tablet tool's axes. `nil` means the tool has no such axis.
/// Positions are normalised to the device area (0…1), as libinput's transformed coordinates.
public struct Axes: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var pressure: Double?
    public var distance: Double?
    public var tiltX: Double?
    public var tiltY: Double?
    public var rotation: Double?
    public var slider: Double?

    public init(x: Double, y: Double, pressure: Double? = nil, distance: Double? = nil,
                tiltX: Double? = nil, tiltY: Double? = nil, rotation: Double? = nil, slider: Double? = nil) {
        self.x = x; self.y = y; self.pressure = pressure; self.distance = distance
        self.tiltX = tiltX; self.tiltY = tiltY; self.rotation = rotation; self.slider = slider
    }
}

/// Linux input key codes for the buttons a pen has.
public enum ButtonCode {
    public static let stylus = 331   // BTN_STYLUS
    public static let stylus2 = 332  // BTN_STYLUS2
    public static let stylus3 = 329  // BTN_STYLUS3
}

/// What happened, independent of where it came from (libinput or a recording).
public enum InkEventKind: Sendable, Equatable {
    case proximity(isIn: Bool, tool: ToolType, serial: Int?, axes: Axes)
    case tip(isDown: Bool, axes: Axes)
    case axis(Axes)
    case button(code: Int, isPressed: Bool)
    case touchDown(slot: Int, x: Double, y: Double)
    case touchMotion(slot: Int, x: Double, y: Double)
    case touchUp(slot: Int)
    case touchCancel(slot: Int)
    case touchFrame
    case padButton(button: Int, isPressed: Bool)
}

/// One input event: a monotonic time in seconds, the device it came from, and what happened.
public struct InkEvent: Sendable, Equatable {
    public var time: Double
    public var device: Int
    public var kind: InkEventKind
    public init(time: Double, device: Int, kind: InkEventKind) {
        self.time = time; self.device = device; self.kind = kind
    }
}
