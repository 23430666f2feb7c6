import Foundation

/// Everything that decides how input becomes ink, with the defaults a kiosk ships with.
public struct InteractionSettings: Sendable, Equatable {
    public var screen: PixelSize
    public var rotation: Rotation = .none
    public var leftHanded = false
    public var tool: ToolKind = .pen
    /// Brushes per tool; colours and widths come from here.
    public var brushes: [ToolKind: Brush] = Dictionary(uniqueKeysWithValues: ToolKind.allCases.map { ($0, Brush.standard($0)) })
    /// Per pen button (Linux key code): BTN_STYLUS clicks switch tool, BTN_STYLUS2 erases while held.
    public var buttons: [Int: ButtonBinding] = [
        ButtonCode.stylus: ButtonBinding(click: .switchPrevious),
        ButtonCode.stylus2: ButtonBinding(click: .ignore, holdErases: true),
        ButtonCode.stylus3: ButtonBinding(click: .ignore),
    ]
    /// What a tablet-pad button click does.
    public var padButtonAction: PreferredAction = .switchPrevious
    /// A press longer than this is a hold, not a click.
    public var clickMaxDuration = 0.35
    /// Whether a click counts while the tip is down (off: pressing the button while writing
    /// is almost always an accident).
    public var clickWhileDrawing = false
    /// Pencil mode: after a pen was seen, fingers stop drawing for this long (seconds);
    /// 0 turns pencil mode off, `.infinity` keeps it on once a pen was seen.
    public var penOnlyAfterPen: Double = 300
    /// A second finger this soon after the first means a gesture: the finger stroke is cancelled.
    public var secondFingerCancelWindow = 0.25
    /// Hover preview: fully opaque up to `fade`, invisible at `maxZ` (normalised distance).
    public var hover = HoverFade()
    /// Settings for particular devices, matched by name; the first match wins.
    public var devices: [DeviceSettings] = []

    public init(screen: PixelSize) { self.screen = screen }

    public func brush(_ tool: ToolKind) -> Brush { brushes[tool] ?? .standard(tool) }
    public func device(named name: String) -> DeviceSettings? { devices.first { $0.matches(name) } }
    public func binding(_ button: Int) -> ButtonBinding { buttons[button] ?? ButtonBinding(click: .ignore) }
}

/// The hover preview's opacity from the pen's distance: 1 − max(z − fade, 0) / (maxZ − fade).
public struct HoverFade: Sendable, Equatable {
    public var fade: Double = 0.1
    public var maxZ: Double = 1.0
    /// For pens without a distance axis.
    public var fixedAlpha: Double = 0.5
    public var enabled = true

    public init(fade: Double = 0.1, maxZ: Double = 1.0, fixedAlpha: Double = 0.5) {
        self.fade = fade; self.maxZ = maxZ; self.fixedAlpha = fixedAlpha
    }

    public func alpha(distance z: Double?) -> Double {
        guard let z else { return fixedAlpha }
        guard maxZ > fade else { return z <= fade ? 1 : 0 }
        return (1 - max(z - fade, 0) / (maxZ - fade)).clamped(to: 0...1)
    }
}

/// How one kind of device is installed: matched by (part of) its name.
public struct DeviceSettings: Sendable, Equatable {
    public var match: String
    public var rotation: Rotation?
    public var leftHanded: Bool?
    /// Applied to the device's raw pressure before any brush sees it (the "feel" of this pen).
    public var pressureCurve: PressureCurve?
    /// libinput's calibration matrix (direct devices only).
    public var calibration: [Float]?

    public init(match: String, rotation: Rotation? = nil, leftHanded: Bool? = nil,
                pressureCurve: PressureCurve? = nil, calibration: [Float]? = nil) {
        self.match = match; self.rotation = rotation; self.leftHanded = leftHanded
        self.pressureCurve = pressureCurve; self.calibration = calibration
    }

    public func matches(_ name: String) -> Bool { name.localizedCaseInsensitiveContains(match) }
}
