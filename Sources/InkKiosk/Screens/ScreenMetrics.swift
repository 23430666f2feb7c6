// SPDX-License-Identifier: Apache-2.0
import InkCore

/// Millimetres on this screen, so touch targets have the same physical size on any panel.
public struct ScreenMetrics: Sendable, Equatable {
    public var size: PixelSize
    public var pixelsPerMM: Double

    /// 96 dpi: what a screen without a usable EDID size is assumed to have.
    public static let fallbackPixelsPerMM = 96 / 25.4

    public init(size: PixelSize, pixelsPerMM: Double) {
        self.size = size
        self.pixelsPerMM = pixelsPerMM
    }

    /// From the panel's physical width; implausible sizes (0, or projectors' nominal values)
    /// fall back to 96 dpi.
    public init(size: PixelSize, widthMM: Int, dpi: Double? = nil) {
        self.size = size
        if let dpi, dpi > 0 {
            pixelsPerMM = dpi / 25.4
        } else {
            let measured = widthMM > 0 ? Double(size.width) / Double(widthMM) : 0
            pixelsPerMM = (1.5...40).contains(measured) ? measured : Self.fallbackPixelsPerMM
        }
    }

    public var dpi: Double { pixelsPerMM * 25.4 }
    public func mm(_ millimetres: Double) -> Double { (millimetres * pixelsPerMM).rounded() }
    public var bounds: Rect { Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)) }
}
