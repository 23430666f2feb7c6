// SPDX-License-Identifier: Apache-2.0
import InkCore
import InkRender

/// Where finished frames go. The kiosk's DRM/KMS output and the offscreen display used by
/// replay implement the same interface, so both show the same pixels.
public protocol Display: AnyObject {
    var size: PixelSize { get }
    /// Shows `frame`; only the damaged rectangles differ from the previous frame.
    func present(_ frame: ImageSurface, damage: DamageRegion) throws
}

/// A display whose picture is plain RAM that the renderer may compose its frames in directly
/// (`FrameRenderer(frame:)`): no second screen-sized copy of the same pixels is kept. For a DRM
/// display that is its RAM picture, which `present` copies into the device's scanout buffers.
public protocol RAMDisplay: Display {
    var screen: ImageSurface { get }
    /// The one colour `screen` shows everywhere before the first frame, when the display painted
    /// it so (and its scanout buffers, which then need no copy of it): a first frame of plain
    /// paper in that colour paints only what goes over the paper. Nil: not known.
    var blankColor: RGBA? { get }
}

extension RAMDisplay {
    public var blankColor: RGBA? { nil }
}

/// A display in RAM (replay, benchmarks, tests). The renderer composes into `screen` itself,
/// and only inside the damaged rectangles, as it composes a frame for a scanout buffer: what it
/// holds shows whether damage tracking missed something. A frame drawn elsewhere is copied in,
/// only its damaged rectangles.
public final class OffscreenDisplay: RAMDisplay {
    public let size: PixelSize
    public let screen: ImageSurface
    public private(set) var framesPresented = 0

    public init(size: PixelSize) throws {
        self.size = size
        screen = try ImageSurface(size: size, format: .xrgb)
    }

    public func present(_ frame: ImageSurface, damage: DamageRegion) throws {
        if frame !== screen { screen.copy(from: frame, in: damage.rects) }
        framesPresented += 1
    }

    public func writePNG(to path: String) throws { try screen.writePNG(to: path) }
}
