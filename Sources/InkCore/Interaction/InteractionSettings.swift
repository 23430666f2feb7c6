// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

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
    /// How far a tip-up's position may be from the stroke's last sample and still end it there.
    public var tipUp = TipUpReach()
    /// Hover preview: fully opaque up to `fade`, invisible at `maxZ` (normalised distance).
    public var hover = HoverFade()
    /// Settings for particular devices, matched by name; the first match wins.
    public var devices: [DeviceSettings] = []

    public init(screen: PixelSize) { self.screen = screen }

    public func brush(_ tool: ToolKind) -> Brush { brushes[tool] ?? .standard(tool) }
    public func device(named name: String) -> DeviceSettings? { devices.first { $0.matches(name) } }
    public func binding(_ button: Int) -> ButtonBinding { buttons[button] ?? ButtonBinding(click: .ignore) }
}

/// Pens and controllers glitch on release: a tip-up may report 0,0, the axis maximum or a
/// stale place. The stroke reaches the tip-up's position only if the pen could have got there:
/// no farther than `maxMM` on the device's surface, and no faster than `maxSpeed` since the
/// stroke's last sample. Otherwise the stroke ends at its last sample.
public struct TipUpReach: Sendable, Equatable {
    /// Millimetres on the device; 0: a stroke never reaches past its last sample.
    public var maxMM: Double = 3
    /// Millimetres per second: a quick flick of the hand, well above handwriting (≈ 0.3 m/s).
    public var maxSpeed: Double = 1500

    public init(maxMM: Double = 3, maxSpeed: Double = 1500) { self.maxMM = maxMM; self.maxSpeed = maxSpeed }

    /// Whether a tip-up `distanceMM` from the last sample, `elapsed` seconds after it, is a place the pen reached.
    public func reaches(distanceMM: Double, elapsed: Double) -> Bool {
        guard distanceMM.isFinite, elapsed.isFinite else { return false }
        return distanceMM <= maxMM && distanceMM <= maxSpeed * max(elapsed, 0)
    }
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

    /// Case-insensitive substring match (an empty `match` matches nothing, as with
    /// Foundation's localizedCaseInsensitiveContains before).
    public func matches(_ name: String) -> Bool { !match.isEmpty && name.lowercased().contains(match.lowercased()) }
}
