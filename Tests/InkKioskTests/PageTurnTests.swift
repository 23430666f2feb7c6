// SPDX-License-Identifier: Apache-2.0
import Testing
import InkConfig
import InkCore
import InkRender
import InkDisplay
import InkPipeline
@testable import InkKiosk
import InkTestSupport

@Suite struct PageTurnTests {
    /// Counts pixels of two screens that differ by more than `tolerance` in any channel.
    private func differing(_ a: ImageSurface, _ b: ImageSurface, tolerance: Int = 2) -> Int {
        var n = 0
        for y in stride(from: 0, to: a.size.height, by: 1) {
            for x in 0..<a.size.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                if abs(Int(p.r) - Int(q.r)) > tolerance || abs(Int(p.g) - Int(q.g)) > tolerance || abs(Int(p.b) - Int(q.b)) > tolerance { n += 1 }
            }
        }
        return n
    }

    /// Turning back to a page shows it from its snapshot, exactly as painting it from its strokes would.
    @Test func aPageTurnedBackToLooksAsItWasLeft() throws {
        let r = try replay("pressure")
        let pipeline = r.pipeline, display = pipeline.display as! OffscreenDisplay
        try pipeline.renderFrame()
        let left = try ImageSurface(size: display.size, format: .xrgb)
        left.copy(from: display.screen, in: [Rect(x: 0, y: 0, width: Double(display.size.width), height: Double(display.size.height))])

        pipeline.addPage()
        try pipeline.renderFrame()
        #expect(pipeline.snapshots.has(0), "the page left is kept")
        #expect(Screen(display.screen).inkCount(x0: 0, y0: 0, x1: display.size.width, y1: display.size.height) == 0, "the new page is blank")

        pipeline.turn(to: 0)
        try pipeline.renderFrame()
        #expect(!pipeline.snapshots.has(0), "the page shown is not kept twice")
        #expect(differing(display.screen, left) == 0)

        // The same page painted from its strokes, as after a restart.
        pipeline.restore(pipeline.notebook.compacted())
        try pipeline.renderFrame()
        #expect(differing(display.screen, left, tolerance: 24) < 50)
    }

    /// Without RAM for the pictures of pages not shown (`[limits] page_cache_mb = 0`), the page
    /// left keeps no picture and is painted again from its ink on return: it looks as it was left.
    @Test func aPageWhosePictureWasDroppedLooksTheSameOnReturn() throws {
        var settings = ScreenSettings()
        settings.notebook.pageCacheMB = 0
        let r = try replay("pressure", screen: settings)
        let pipeline = r.pipeline, display = pipeline.display as! OffscreenDisplay
        try pipeline.renderFrame()
        let left = try ImageSurface(size: display.size, format: .xrgb)
        left.copy(from: display.screen, in: [Rect(x: 0, y: 0, width: Double(display.size.width), height: Double(display.size.height))])
        #expect(Screen(left).inkCount(x0: 0, y0: 0, x1: display.size.width, y1: display.size.height) > 500)

        pipeline.addPage()
        try pipeline.renderFrame()
        #expect(!pipeline.snapshots.has(0), "no picture kept")
        #expect(pipeline.snapshots.bytes == 0)

        pipeline.turn(to: 0)
        try pipeline.renderFrame()
        #expect(differing(display.screen, left, tolerance: 24) < 50)
    }

    /// Each change of the page shown (a turn, a new page) is when the kiosk gives malloc's free
    /// pages back (`afterPageChange`); a turn to the page already shown, or past the last, is none.
    @Test func theMemoryOfAPageLeftIsHandedBackAfterEachChange() throws {
        let changes = Counter()
        var options = PipelineOptions()
        options.afterPageChange = { changes.add() }
        let display = try OffscreenDisplay(size: PixelSize(width: 320, height: 240))
        let pipeline = try FramePipeline(settings: InteractionSettings(screen: display.size), devices: [], display: display, options: options)
        pipeline.addPage()
        #expect(changes.value == 1)
        pipeline.turn(to: 0)
        pipeline.turn(to: 0)
        pipeline.turn(to: 5)
        #expect(changes.value == 2, "only the turn that changed the page")
    }

    /// A page painted ahead of time (as the kiosk does after a restart) is shown when turned to.
    @Test func aPagePaintedAheadIsShownWhenTurnedTo() throws {
        let r = try replay("pressure")
        let pipeline = r.pipeline, display = pipeline.display as! OffscreenDisplay
        pipeline.restore(pipeline.notebook.compacted() + [.addPage])
        try pipeline.renderFrame()
        let todo = pipeline.pagesToPaint()
        #expect(todo.map(\.page) == [0])
        let painted = try FrameRenderer.paintPage(todo[0].strokes, backdrop: pipeline.renderer.backdropSnapshot())
        pipeline.keepPainted(painted, page: 0, revision: todo[0].revision)
        #expect(pipeline.pagesToPaint().isEmpty)
        pipeline.turn(to: 0)
        try pipeline.renderFrame()
        #expect(Screen(display.screen).inkCount(x0: 0, y0: 0, x1: display.size.width, y1: display.size.height) > 500)
    }
}

/// Counts calls from a `@Sendable` closure (the pipeline calls it on the test's thread).
private final class Counter: @unchecked Sendable {
    private(set) var value = 0
    func add() { value += 1 }
}
