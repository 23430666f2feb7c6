// SPDX-License-Identifier: Apache-2.0
import InkCore

/// The parts of the screen a frame must repaint: whole-pixel rectangles inside the screen,
/// overlapping ones merged so that no pixel is painted twice for nothing.
public struct DamageRegion: Sendable, Equatable {
    public private(set) var rects: [Rect] = []
    let bounds: Rect
    /// Past this many rectangles, the cost of many small paints beats one larger one.
    static let maxRects = 24

    public init(screen: PixelSize) {
        bounds = Rect(x: 0, y: 0, width: Double(screen.width), height: Double(screen.height))
    }

    public var isEmpty: Bool { rects.isEmpty }
    public var pixelCount: Int { rects.reduce(0) { $0 + Int($1.area) } }

    public mutating func add(_ r: Rect) {
        var r = r.outset(by: 1).integral.intersection(bounds)
        guard !r.isEmpty, r.area > 0 else { return }
        // Absorb every rectangle this one overlaps; the union may overlap others, so repeat.
        var merged = true
        while merged {
            merged = false
            if let i = rects.firstIndex(where: { $0.intersects(r) && $0.intersection(r).area > 0 }) {
                r = r.union(rects.remove(at: i))
                merged = true
            }
        }
        rects.append(r)
        if rects.count > Self.maxRects { rects = [rects.reduce(Rect.empty) { $0.union($1) }] }
    }

    public mutating func addAll() { rects = [bounds] }
}
