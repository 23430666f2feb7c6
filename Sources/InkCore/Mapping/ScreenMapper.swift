// SPDX-License-Identifier: Apache-2.0
/// Screen rotation of a device, clockwise, as installed.
public enum Rotation: Int, Sendable, Equatable, CaseIterable {
    case none = 0, quarter = 90, half = 180, threeQuarters = 270
}

/// Maps device-normalised positions (0…1 over the device's area) to screen pixels.
///
/// A direct device (screen tablet, touchscreen) covers the whole screen. An indirect desk
/// tablet keeps its proportions: as tablet drivers' "keep proportions" setting does, a centred
/// part of the tablet with the screen's aspect ratio maps onto the whole screen, so a circle
/// drawn on the tablet is a circle on screen; the unused tablet edges clamp to the screen edge.
public struct ScreenMapper: Sendable, Equatable {
    public let screen: PixelSize
    public let rotation: Rotation
    public let leftHanded: Bool
    /// The used part of the (rotated) device area, in normalised units.
    private let area: (x0: Double, y0: Double, w: Double, h: Double)

    public static func == (a: ScreenMapper, b: ScreenMapper) -> Bool {
        a.screen == b.screen && a.rotation == b.rotation && a.leftHanded == b.leftHanded
            && a.area == b.area
    }

    public init(device: DeviceInfo, screen: PixelSize, rotation: Rotation = .none, leftHanded: Bool = false) {
        self.screen = screen; self.rotation = rotation; self.leftHanded = leftHanded
        guard !device.direct else { area = (0, 0, 1, 1); return }
        let turned = Self.effectiveTurns(rotation, leftHanded) % 2 == 1
        let deviceAspect = turned ? device.heightMM / device.widthMM : device.widthMM / device.heightMM
        let screenAspect = Double(screen.width) / Double(screen.height)
        if deviceAspect > screenAspect {
            let w = screenAspect / deviceAspect
            area = ((1 - w) / 2, 0, w, 1)
        } else {
            let h = deviceAspect / screenAspect
            area = (0, (1 - h) / 2, 1, h)
        }
    }

    /// Left-handed use turns the tablet by half a turn, as libinput's left-handed setting does.
    private static func effectiveTurns(_ r: Rotation, _ leftHanded: Bool) -> Int {
        (r.rawValue / 90 + (leftHanded ? 2 : 0)) % 4
    }

    /// Device-normalised (x, y) in the device's own orientation → rotated unit square.
    private func turn(_ x: Double, _ y: Double) -> (Double, Double) {
        switch Self.effectiveTurns(rotation, leftHanded) {
        case 1: return (1 - y, x)
        case 2: return (1 - x, 1 - y)
        case 3: return (y, 1 - x)
        default: return (x, y)
        }
    }

    public func map(x: Double, y: Double) -> Point {
        let (u, v) = turn(x.clamped(to: 0...1), y.clamped(to: 0...1))
        let su = ((u - area.x0) / area.w).clamped(to: 0...1)
        let sv = ((v - area.y0) / area.h).clamped(to: 0...1)
        return Point(su * Double(screen.width), sv * Double(screen.height))
    }

    /// A direction on the device (an azimuth) as a direction on screen.
    public func mapAzimuth(_ azimuth: Double) -> Double {
        let turns = Double(Self.effectiveTurns(rotation, leftHanded))
        return azimuth + turns * .pi / 2
    }
}
