// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
@testable import InkRender

/// The controls over the ink are kept on an image of only the part of the screen they cover.
@Suite struct ChromeImageTests {
    let screen = PixelSize(width: 640, height: 400)
    let toolbar = Rect(x: 0, y: 0, width: 640, height: 48)
    let grey = RGBA(0.5, 0.5, 0.5)

    /// The strip of the toolbar (a box's bounds include its border's reach: 2 px).
    func isStrip(_ r: Rect) -> Bool { r.minX == 0 && r.minY == 0 && r.maxX == 640 && (48...52).contains(r.maxY) }

    func frame(_ renderer: FrameRenderer, _ document: inout Document) throws {
        document.finishFrame()
        _ = try renderer.render(document: document, changes: document.takeChanges(), overlay: OverlayScene())
    }

    @Test func aToolbarTakesAStripAndADialogTheScreenUntilItCloses() throws {
        let renderer = try FrameRenderer(size: screen)
        var document = Document()
        try renderer.setChrome([.box(toolbar, fill: grey)])
        try frame(renderer, &document)
        #expect(isStrip(renderer.chromeImageArea))
        #expect(renderer.frame.pixel(x: 320, y: 20).r == 128)
        #expect(renderer.frame.pixel(x: 320, y: 200).r == 255)

        // A dialog dims the whole screen: the image grows to it.
        let dim = UIElement.box(Rect(x: 0, y: 0, width: 640, height: 400), fill: RGBA(0, 0, 0, 0.5))
        try renderer.setChrome([.box(toolbar, fill: grey), dim])
        try frame(renderer, &document)
        #expect(renderer.chromeImageArea == Rect(x: 0, y: 0, width: 640, height: 400))
        #expect(renderer.frame.pixel(x: 320, y: 200).r < 140)

        // Closed: back to the strip, and nothing of the dim is left on the paper.
        try renderer.setChrome([.box(toolbar, fill: grey)])
        try frame(renderer, &document)
        #expect(isStrip(renderer.chromeImageArea))
        #expect(renderer.frame.pixel(x: 320, y: 200).r == 255)
        #expect(renderer.frame.pixel(x: 320, y: 20).r == 128)

        // A banner low on the screen: one image from the toolbar down to it, the banner drawn.
        let banner = Rect(x: 100, y: 300, width: 440, height: 40)
        try renderer.setChrome([.box(toolbar, fill: grey), .box(banner, fill: RGBA(1, 0, 0))])
        try frame(renderer, &document)
        let both = renderer.chromeImageArea
        #expect(both.minY == 0 && (340...344).contains(both.maxY))
        let p = renderer.frame.pixel(x: 320, y: 320)
        #expect(p.r == 255 && p.g == 0)

        // No controls: no image, and the paper is back where the toolbar was.
        try renderer.setChrome([])
        try frame(renderer, &document)
        #expect(renderer.chromeImageArea.isEmpty)
        #expect(renderer.frame.pixel(x: 320, y: 20).r == 255)
        #expect(renderer.frame.pixel(x: 320, y: 320).g == 255)
    }
}
