// SPDX-License-Identifier: Apache-2.0
/// A plane of a DRM card as atomic KMS describes it (universal planes).
public struct PlaneInfo: Equatable, Sendable {
    public enum Kind: String, Sendable { case primary = "Primary", cursor = "Cursor", overlay = "Overlay" }
    public var id: UInt32
    public var kind: Kind?
    /// Bit i set: the plane can be on the card's i-th CRTC.
    public var possibleCRTCs: UInt32
    /// The CRTC it is on now (0: none).
    public var crtc: UInt32
    public var formats: [UInt32]

    public init(id: UInt32, kind: Kind?, possibleCRTCs: UInt32, crtc: UInt32, formats: [UInt32]) {
        self.id = id
        self.kind = kind
        self.possibleCRTCs = possibleCRTCs
        self.crtc = crtc
        self.formats = formats
    }
}

/// Which planes show the kiosk: the CRTC's primary plane for the frames (XRGB8888) and, if it
/// has one, its cursor plane for the hover preview (ARGB8888). A plane already on the CRTC is
/// preferred (it is the one the driver pairs with it); a plane on another CRTC is never taken.
/// Pure: the display reads the planes, this picks.
public enum PlaneChoice {
    public static func choose(from planes: [PlaneInfo], crtc: UInt32, crtcIndex: Int,
                              frameFormat: UInt32, cursorFormat: UInt32) -> (primary: PlaneInfo?, cursor: PlaneInfo?) {
        func pick(_ kind: PlaneInfo.Kind, _ format: UInt32) -> PlaneInfo? {
            let usable = planes.filter {
                $0.kind == kind && crtcIndex < 32 && $0.possibleCRTCs & (1 << UInt32(crtcIndex)) != 0
                    && ($0.crtc == 0 || $0.crtc == crtc) && $0.formats.contains(format)
            }
            return usable.first { $0.crtc == crtc } ?? usable.first
        }
        return (pick(.primary, frameFormat), pick(.cursor, cursorFormat))
    }
}
