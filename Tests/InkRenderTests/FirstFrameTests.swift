// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
@testable import InkRender

/// The kiosk's first frame: plain paper needs no canvas (its paper is laid when ink first needs
/// it, or by `layPaper`), and on a display that opened blank in the paper's colour it paints
/// only what goes over the paper. Whatever the order, the frames show what a renderer that
/// paints everything shows.
@Suite struct FirstFrameTests {
    static let screen = PixelSize(width: 320, height: 200)
    static let toolbar = [UIElement.box(Rect(x: 0, y: 0, width: 320, height: 30), fill: RGBA(0.2, 0.2, 0.2, 1), borderWidth: 0)]

    static func stroke(_ document: inout Document, from x: Double) {
        let pen = StrokeSource.pen(device: 1)
        document.apply(.beginStroke(pen, .standard(.pen), Sample(location: Point(x, 100), pressure: 0.6, time: 0)))
        for i in 1...10 {
            document.apply(.appendSample(pen, Sample(location: Point(x + Double(i) * 8, 100 + Double(i) * 4), pressure: 0.6, time: Double(i) / 100)))
        }
        document.apply(.endStroke(pen))
    }

    @discardableResult
    static func frame(_ renderer: FrameRenderer, _ document: inout Document) throws -> DamageRegion {
        document.finishFrame()
        return try renderer.render(document: document, changes: document.takeChanges(), overlay: OverlayScene())
    }

    @Test func plainPaperIsShownWithoutLayingTheCanvas() throws {
        let renderer = try FrameRenderer(size: Self.screen)
        var document = Document()
        try renderer.setChrome(Self.toolbar)
        try Self.frame(renderer, &document)
        #expect(!renderer.canvasHasPaper)
        #expect(OneSurfaceRendererTests.inked(renderer.frame) == 320 * 30)   // the toolbar, on white
        #expect(renderer.frame.pixel(x: 160, y: 150) == (255, 255, 255, 255))

        // The first ink lays the paper: the frame is the one a renderer laid from the start shows.
        let reference = try FrameRenderer(size: Self.screen)
        var same = Document()
        try reference.setChrome(Self.toolbar)
        reference.layPaper()
        try Self.frame(reference, &same)
        Self.stroke(&document, from: 40)
        Self.stroke(&same, from: 40)
        try Self.frame(renderer, &document)
        try Self.frame(reference, &same)
        #expect(renderer.canvasHasPaper)
        #expect(OneSurfaceRendererTests.inked(renderer.frame) > 320 * 30 + 100)
        #expect(OneSurfaceRendererTests.differing(renderer.frame, reference.frame) == 0)
    }

    @Test func layPaperLaysItBeforeTheInkNeedsIt() throws {
        let renderer = try FrameRenderer(size: Self.screen)
        var document = Document()
        try Self.frame(renderer, &document)
        #expect(!renderer.canvasHasPaper)
        renderer.layPaper()
        #expect(renderer.canvasHasPaper)
        // A page turned to that has ink repaints from the canvas, which now has its paper.
        Self.stroke(&document, from: 100)
        try Self.frame(renderer, &document)
        #expect(renderer.frame.pixel(x: 10, y: 10) == (255, 255, 255, 255))
        #expect(OneSurfaceRendererTests.inked(renderer.frame) > 100)
    }

    @Test func aFrameThatShowsThePaperAlreadyGetsOnlyWhatGoesOverIt() throws {
        let picture = try ImageSurface(size: Self.screen, format: .xrgb)
        picture.fill(with: .white)
        let renderer = try FrameRenderer(size: Self.screen, frame: picture, frameShows: .white)
        var document = Document()
        try renderer.setChrome(Self.toolbar)
        let damage = try Self.frame(renderer, &document)
        // Only the toolbar changed (to a pixel's rounding): the display copies that, not the screen.
        let damaged = damage.rects.reduce(0) { $0 + $1.area }
        #expect(damaged >= 320 * 30 && damaged <= 320 * 32)
        #expect(OneSurfaceRendererTests.inked(picture) == 320 * 30)
        #expect(picture.pixel(x: 160, y: 150) == (255, 255, 255, 255))

        // Later frames are as ever: a stroke damages where it went.
        Self.stroke(&document, from: 40)
        let inked = try Self.frame(renderer, &document)
        #expect(!inked.rects.isEmpty)
        #expect(OneSurfaceRendererTests.inked(picture) > 320 * 30 + 100)
    }

    @Test func aFrameInAnotherColourIsPaintedWhole() throws {
        let picture = try ImageSurface(size: Self.screen, format: .xrgb)
        picture.fill(with: RGBA(0, 0, 0, 1))
        let renderer = try FrameRenderer(size: Self.screen, frame: picture, frameShows: RGBA(0, 0, 0, 1))
        var document = Document()
        let damage = try Self.frame(renderer, &document)
        #expect(damage.rects.reduce(0) { $0 + $1.area } == 320 * 200)
        #expect(OneSurfaceRendererTests.inked(picture) == 0)
    }
}
