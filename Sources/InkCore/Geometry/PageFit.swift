// SPDX-License-Identifier: Apache-2.0
/// A page of a worksheet (its size in PDF points) fitted whole into an area of the screen,
/// centred: the side that meets the area's first sets the scale, and the other side gets equal
/// margins. A tall A4 page on a wide screen is as tall as the area, with margins left and right.
public struct PageFit: Sendable, Equatable {
    /// Screen pixels per page point.
    public let scale: Double
    /// Where the page lies on the screen.
    public let rect: Rect

    public init(pageWidth: Double, pageHeight: Double, into area: Rect) {
        let w = max(pageWidth, 1), h = max(pageHeight, 1)
        scale = min(area.width / w, area.height / h)
        let size = (w * scale, h * scale)
        rect = Rect(x: area.minX + (area.width - size.0) / 2, y: area.minY + (area.height - size.1) / 2,
                    width: size.0, height: size.1)
    }

    /// A screen point in the page's own points (where ink drawn there lies on the printed page).
    public func toPage(_ p: Point) -> Point { Point((p.x - rect.minX) / scale, (p.y - rect.minY) / scale) }

    /// A page point on the screen.
    public func toScreen(_ p: Point) -> Point { Point(rect.minX + p.x * scale, rect.minY + p.y * scale) }
}
