// SPDX-License-Identifier: Apache-2.0
import InkCore

/// What the kiosk's screens are drawn from: the paper's decorations (a prompt, a signature
/// line) and the controls over the ink (buttons, toolbar, banners). Plain values, so a frame
/// redraws only the elements that changed.
public enum UIElement: Sendable, Equatable {
    case box(Rect, fill: RGBA, border: RGBA? = nil, radius: Double = 0, borderWidth: Double = 2)
    case text(String, in: Rect, size: Double, color: RGBA, align: TextAlign = .center, bold: Bool = false)
    case line(from: Point, to: Point, width: Double, color: RGBA)
    case dot(center: Point, radius: Double, color: RGBA, ring: RGBA? = nil)
    /// A picture (a worksheet's first page in a list), scaled to fit the rectangle, centred.
    case image(UIImage, in: Rect)

    /// The pixels it may touch.
    public var bounds: Rect {
        switch self {
        case .box(let r, _, _, _, let w): return r.outset(by: w)
        case .text(_, let r, _, _, _, _): return r
        case .line(let a, let b, let w, _): return Rect.bounding([a, b]).outset(by: w)
        case .dot(let c, let radius, _, _): return Rect.bounding([c]).outset(by: radius + 3)
        case .image(_, let r): return r
        }
    }
}

public enum TextAlign: Sendable, Equatable { case leading, center, trailing }

/// A picture for the controls, compared by identity (the same picture is not redrawn).
/// Immutable: its one stored property is a `let`, a surface only read from once made.
public final class UIImage: Sendable, Equatable {
    /// Only read once made.
    let surface: ImageSurface
    public init(_ surface: ImageSurface) { self.surface = surface }
    public var size: PixelSize { surface.size }
    public static func == (a: UIImage, b: UIImage) -> Bool { a === b }
}
