// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
@testable import InkRender

@Suite struct Damage {
    let screen = PixelSize(width: 100, height: 80)

    @Test func rectanglesGrowToWholePixelsAndStayOnScreen() {
        var d = DamageRegion(screen: screen)
        d.add(Rect(minX: 10.4, minY: 10.6, maxX: 20.2, maxY: 12))
        d.add(Rect(minX: -30, minY: 70, maxX: 5, maxY: 200))
        #expect(d.rects.contains(Rect(minX: 9, minY: 9, maxX: 22, maxY: 13)))
        #expect(d.rects.contains(Rect(minX: 0, minY: 69, maxX: 6, maxY: 80)))
        d.add(Rect(minX: 500, minY: 500, maxX: 600, maxY: 600))
        #expect(d.rects.count == 2)
    }

    @Test func overlappingRectanglesMergeSoNoPixelIsPaintedTwice() {
        var d = DamageRegion(screen: screen)
        d.add(Rect(minX: 10, minY: 10, maxX: 20, maxY: 20))
        d.add(Rect(minX: 40, minY: 10, maxX: 50, maxY: 20))
        d.add(Rect(minX: 15, minY: 15, maxX: 45, maxY: 18))   // bridges both
        #expect(d.rects.count == 1)
        #expect(d.rects[0] == Rect(minX: 9, minY: 9, maxX: 51, maxY: 21))
    }

    @Test func manySmallRectanglesBecomeOne() {
        var d = DamageRegion(screen: PixelSize(width: 1000, height: 1000))
        for i in 0..<40 { d.add(Rect(x: Double(i * 20), y: Double(i * 20), width: 4, height: 4)) }
        #expect(d.rects.count <= DamageRegion.maxRects)
        #expect(d.pixelCount > 0)
    }
}
