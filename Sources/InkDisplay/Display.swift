import InkCore
import InkRender

/// Where finished frames go. The kiosk's DRM/KMS output and the offscreen display used by
/// replay implement the same interface, so both show the same pixels.
public protocol Display: AnyObject {
    var size: PixelSize { get }
    /// Shows `frame`; only the damaged rectangles differ from the previous frame.
    func present(_ frame: ImageSurface, damage: DamageRegion) throws
}

/// A display in RAM: like a scanout buffer, it receives only the damaged rectangles of each
/// frame, so what it holds proves that damage tracking missed nothing.
public final class OffscreenDisplay: Display {
    public let size: PixelSize
    public let screen: ImageSurface
    public private(set) var framesPresented = 0

    public init(size: PixelSize) throws {
        self.size = size
        screen = try ImageSurface(size: size, format: .xrgb)
    }

    public func present(_ frame: ImageSurface, damage: DamageRegion) throws {
        screen.copy(from: frame, in: damage.rects)
        framesPresented += 1
    }

    public func writePNG(to path: String) throws { try screen.writePNG(to: path) }
}
