// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// Altitude and azimuth of a pen, from libinput's tilt in degrees.
///
/// The pen's barrel points from the tip along (tan tiltX, tan tiltY, 1): a positive tiltX means
/// the top of the pen leans towards +x (right), a positive tiltY towards +y (down on screen).
/// Altitude is the angle between the barrel and the screen (π/2 = upright); azimuth is the
/// direction the barrel leans, in screen axes (0 = right, π/2 = down).
public struct PenOrientation: Sendable, Equatable {
    public var altitude: Double
    public var azimuth: Double

    public init(altitude: Double, azimuth: Double) {
        self.altitude = altitude; self.azimuth = azimuth
    }

    /// Tilt beyond ±89.5° would put the barrel in the screen plane (tan → ∞); real pens stop
    /// near 60°, so the limit only guards against out-of-range values.
    public init(tiltXDegrees tx: Double, tiltYDegrees ty: Double) {
        let limit = 89.5
        let ax = tan(tx.clamped(to: -limit...limit) * .pi / 180)
        let ay = tan(ty.clamped(to: -limit...limit) * .pi / 180)
        let lean = (ax * ax + ay * ay).squareRoot()
        altitude = atan2(1, lean)
        azimuth = lean > 1e-12 ? atan2(ay, ax) : 0
    }

    /// An upright pen: what a tool without tilt is assumed to be.
    public static let upright = PenOrientation(altitude: .pi / 2, azimuth: 0)
}
