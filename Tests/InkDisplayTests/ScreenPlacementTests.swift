// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
@testable import InkDisplay

@Suite struct Placement {
    let canvas = PixelSize(width: 1280, height: 800)

    @Test func theSameScreenShowsTheCanvasAsItIs() {
        let p = ScreenPlacement(canvas: canvas, screen: canvas)
        #expect(p.isIdentity && !p.isScaled && p.borders.isEmpty)
        #expect(p.screenRect(for: Rect(minX: 10.5, minY: 20, maxX: 30, maxY: 40.2)) == Rect(minX: 10, minY: 20, maxX: 30, maxY: 41))
    }

    @Test func aLargerScreenShowsItCentredOneToOneWithBlackBorders() {
        let p = ScreenPlacement(canvas: canvas, screen: PixelSize(width: 1440, height: 900))
        #expect(p.scale == 1 && p.originX == 80 && p.originY == 50 && p.shownWidth == 1280 && p.shownHeight == 800)
        #expect(p.screenRect(for: Rect(minX: 0, minY: 0, maxX: 10, maxY: 10)) == Rect(minX: 80, minY: 50, maxX: 90, maxY: 60))
        let borderArea = p.borders.reduce(0) { $0 + $1.area }
        #expect(borderArea == Double(1440 * 900 - 1280 * 800))
        #expect(p.screenPoint(Point(640, 400)) == Point(720, 450))
    }

    @Test func aSmallerScreenShowsItScaledDownToFitAndCentred() {
        let p = ScreenPlacement(canvas: canvas, screen: PixelSize(width: 1024, height: 768))
        #expect(p.isScaled && p.scale == 0.8)
        #expect(p.shownWidth == 1024 && p.shownHeight == 640 && p.originX == 0 && p.originY == 64)
        // A scaled pixel blends its neighbours: one more screen pixel on each side, clipped to the picture.
        #expect(p.screenRect(for: Rect(minX: 100, minY: 100, maxX: 200, maxY: 150)) == Rect(minX: 79, minY: 143, maxX: 161, maxY: 185))
        #expect(p.screenRect(for: Rect(minX: 0, minY: 0, maxX: 5, maxY: 5)) == Rect(minX: 0, minY: 64, maxX: 5, maxY: 69))
    }

    @Test func aTouchOnTheScreenLandsWhereTheCanvasShowsThatSpot() {
        for screen in [PixelSize(width: 1440, height: 900), PixelSize(width: 1024, height: 640), PixelSize(width: 800, height: 600)] {
            let p = ScreenPlacement(canvas: canvas, screen: screen)
            let canvasPoint = Point(300, 500)
            let onScreen = p.screenPoint(canvasPoint)
            let n = p.canvasNormalised(x: onScreen.x / Double(screen.width), y: onScreen.y / Double(screen.height))
            #expect(abs(n.x * 1280 - 300) < 1e-6 && abs(n.y * 800 - 500) < 1e-6, "\(screen)")
        }
        let p = ScreenPlacement(canvas: canvas, screen: PixelSize(width: 1440, height: 900))
        #expect(p.canvasNormalised(x: 0.01, y: 0.5).x < 0, "a touch on the left border is left of the canvas")
    }
}

@Suite struct Modes {
    let modes = [ModeCandidate(width: 1920, height: 1080, refresh: 60, preferred: false),
                 ModeCandidate(width: 1440, height: 900, refresh: 75, preferred: true),
                 ModeCandidate(width: 1280, height: 800, refresh: 60, preferred: false)]

    @Test func theScreensPreferredModeUnlessTheConfigurationNamesOneItOffers() {
        #expect(ModeChoice.choose(from: modes, configured: nil) == 1)
        #expect(ModeChoice.choose(from: modes, configured: "1280x800") == 2)
        #expect(ModeChoice.choose(from: modes, configured: "1920x1080@60") == 0)
        #expect(ModeChoice.choose(from: modes, configured: "800x600") == 1, "a configured mode the new screen lacks: its preferred one")
        #expect(ModeChoice.choose(from: modes.map { var m = $0; m.preferred = false; return m }, configured: nil) == 0)
        #expect(ModeChoice.choose(from: [], configured: nil) == nil)
    }
}

@Suite struct Stale {
    @Test func aBufferCollectsWhatItMissedAndManyPiecesBecomeOne() {
        var s = StaleRegion()
        s.add([Rect(minX: 0, minY: 0, maxX: 10, maxY: 10), Rect(minX: 5, minY: 5, maxX: 5, maxY: 20)])
        #expect(s.rects == [Rect(minX: 0, minY: 0, maxX: 10, maxY: 10)], "an empty rectangle adds nothing")
        for i in 0..<40 { s.add([Rect(minX: Double(i * 10), minY: 50, maxX: Double(i * 10 + 5), maxY: 60)]) }
        #expect(s.rects.count <= StaleRegion.mergeAbove)
        let all = s.rects.reduce(Rect.empty) { $0.union($1) }
        #expect(all == Rect(minX: 0, minY: 0, maxX: 395, maxY: 60), "nothing missed is lost by merging")
        let taken = s.take()
        #expect(!taken.isEmpty && s.rects.isEmpty)
    }
}
