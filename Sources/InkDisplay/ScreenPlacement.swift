// SPDX-License-Identifier: Apache-2.0
import InkCore

/// Where the canvas (the document, in the pixels of the screen the kiosk started on) lies on
/// the screen actually plugged in. The canvas never changes size: re-mapping every stroke to a
/// new size would move or distort ink that is already saved. A canvas that fits is shown 1:1,
/// centred, with black borders; one that does not is scaled down to fit, centred.
public struct ScreenPlacement: Sendable, Equatable, CustomStringConvertible {
    public let canvas: PixelSize
    public let screen: PixelSize
    /// Screen pixels per canvas pixel: 1, or less than 1 when the canvas is scaled down.
    public let scale: Double
    /// The picture's rectangle on the screen, in whole pixels.
    public let originX: Int, originY: Int
    public let shownWidth: Int, shownHeight: Int

    public init(canvas: PixelSize, screen: PixelSize) {
        self.canvas = canvas
        self.screen = screen
        let fit = min(Double(screen.width) / Double(canvas.width), Double(screen.height) / Double(canvas.height))
        scale = min(1, fit)
        shownWidth = scale == 1 ? canvas.width : min(screen.width, Int((Double(canvas.width) * scale).rounded()))
        shownHeight = scale == 1 ? canvas.height : min(screen.height, Int((Double(canvas.height) * scale).rounded()))
        originX = (screen.width - shownWidth) / 2
        originY = (screen.height - shownHeight) / 2
    }

    /// The canvas fills the screen exactly: frames are copied as they are.
    public var isIdentity: Bool { canvas == screen }
    public var isScaled: Bool { scale < 1 }

    public var description: String {
        isIdentity ? "\(screen), the canvas fills it"
            : "\(screen): the \(canvas) canvas \(isScaled ? String(cFormat: "scaled by %.3f to %dx%d", scale, shownWidth, shownHeight) : "1:1") at +\(originX)+\(originY), black borders"
    }

    /// The screen pixels a canvas rectangle touches, clipped to the picture (a scaled pixel
    /// blends its neighbours, so one more on each side); nil when nothing of it is shown.
    public func screenRect(for r: Rect) -> Rect? {
        let grow = isScaled ? 1.0 : 0
        let x0 = max(Double(originX), (Double(originX) + r.minX * scale - grow).rounded(.down))
        let y0 = max(Double(originY), (Double(originY) + r.minY * scale - grow).rounded(.down))
        let x1 = min(Double(originX + shownWidth), (Double(originX) + r.maxX * scale + grow).rounded(.up))
        let y1 = min(Double(originY + shownHeight), (Double(originY) + r.maxY * scale + grow).rounded(.up))
        guard x1 > x0, y1 > y0 else { return nil }
        return Rect(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    /// A canvas position on the screen (the hardware cursor).
    public func screenPoint(_ p: Point) -> Point {
        Point(Double(originX) + p.x * scale, Double(originY) + p.y * scale)
    }

    /// A direct device's position (normalised over the whole screen, as a touchscreen reports
    /// it) as a position normalised over the canvas; outside 0…1 on the borders.
    public func canvasNormalised(x: Double, y: Double) -> (x: Double, y: Double) {
        let sx = x * Double(screen.width) - Double(originX), sy = y * Double(screen.height) - Double(originY)
        return (sx / Double(shownWidth), sy / Double(shownHeight))
    }

    /// The black borders around the picture.
    public var borders: [Rect] {
        let w = Double(screen.width), h = Double(screen.height)
        let x0 = Double(originX), y0 = Double(originY)
        let x1 = Double(originX + shownWidth), y1 = Double(originY + shownHeight)
        return [Rect(minX: 0, minY: 0, maxX: w, maxY: y0), Rect(minX: 0, minY: y1, maxX: w, maxY: h),
                Rect(minX: 0, minY: y0, maxX: x0, maxY: y1), Rect(minX: x1, minY: y0, maxX: w, maxY: y1)]
            .filter { $0.maxX > $0.minX && $0.maxY > $0.minY }
    }
}
