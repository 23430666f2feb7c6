// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CCairo
import InkCore
@testable import InkRender

/// A stroke being drawn has a layer only as large as the part of the screen it has reached.
/// Its pixels must be those of a layer the size of the screen (what the renderer had before),
/// to the last bit: each picture here is compared with one drawn that way, with real cairo.
@Suite struct StrokeLayerTests {
    static let screen = PixelSize(width: 640, height: 400)
    static var screenRect: Rect { Rect(x: 0, y: 0, width: 640, height: 400) }

    /// Strokes drawn sample by sample, a frame after every `perFrame` samples of each.
    struct Session {
        var document = Document()
        let renderer: FrameRenderer
        init() throws { renderer = try FrameRenderer(size: StrokeLayerTests.screen) }

        mutating func frame() throws {
            document.finishFrame()
            _ = try renderer.render(document: document, changes: document.takeChanges(), overlay: OverlayScene())
        }

        /// Draws `paths` at once (each its own source: a pen, or fingers), `perFrame` samples
        /// of each between frames; `end` false leaves them being drawn.
        mutating func draw(_ paths: [(source: StrokeSource, brush: Brush, points: [Point])], perFrame: Int = 3,
                           end: Bool = true, afterEachFrame: (inout Session) throws -> Void = { _ in }) throws {
            let longest = paths.map(\.points.count).max() ?? 0
            var t = 0.0
            for i in 0..<longest {
                for p in paths where i < p.points.count {
                    t += 0.001
                    let sample = Sample(location: p.points[i], pressure: 0.3 + 0.6 * Double(i % 7) / 6, time: t)
                    document.apply(i == 0 ? .beginStroke(p.source, p.brush, sample) : .appendSample(p.source, sample))
                }
                if i % perFrame == perFrame - 1 { try frame(); try afterEachFrame(&self) }
            }
            if end { for p in paths { document.apply(.endStroke(p.source)) } }
            try frame()
        }
    }

    // MARK: the reference: every stroke on a layer the size of the screen

    /// Finished strokes painted as the renderer painted them with screen-sized layers.
    static func reference(finished: [Stroke], live: [Stroke] = []) throws -> ImageSurface {
        let canvas = try ImageSurface(size: screen, format: .xrgb)
        let ctx = CairoContext(canvas)
        ctx.fill(screenRect, with: .white)
        for stroke in finished {
            let (layer, inked) = try screenLayer(stroke, done: true)
            if !inked.isEmpty { ctx.paint(layer, opacity: stroke.brush.opacity, in: inked.outset(by: 2).integral) }
        }
        // Live strokes: the final pieces on the layer, the tail over it, in one group.
        for stroke in live {
            let (layer, _) = try screenLayer(stroke, done: false)
            let shaper = StrokeShaper(brush: stroke.brush)
            let tail = stroke.samples.indices.filter { !StrokeShaper.isFinal(piece: $0, count: stroke.samples.count, done: false) }
                .flatMap { shaper.piece($0, samples: stroke.samples, nibAngles: stroke.nibAngles).shapes }
            cairo_push_group(ctx.cr)
            cairo_set_source_surface(ctx.cr, layer.surface, 0, 0)
            cairo_paint(ctx.cr)
            ShapePainter.draw(tail, in: ctx.cr)
            cairo_pop_group_to_source(ctx.cr)
            cairo_paint_with_alpha(ctx.cr, stroke.brush.opacity)
        }
        cairo_surface_flush(canvas.surface)
        return canvas
    }

    static func screenLayer(_ stroke: Stroke, done: Bool) throws -> (ImageSurface, Rect) {
        let layer = try ImageSurface(size: screen, format: .argb)
        let ctx = CairoContext(layer)
        let shaper = StrokeShaper(brush: stroke.brush)
        var inked = Rect.empty
        for k in stroke.samples.indices where StrokeShaper.isFinal(piece: k, count: stroke.samples.count, done: done) {
            let piece = shaper.piece(k, samples: stroke.samples, nibAngles: stroke.nibAngles)
            ShapePainter.draw(piece.shapes, in: ctx.cr)
            inked = inked.union(piece.bounds)
        }
        cairo_surface_flush(layer.surface)
        return (layer, inked)
    }

    /// Pixels that differ (XRGB: the X byte ignored), and the first.
    static func difference(_ a: ImageSurface, _ b: ImageSurface) -> (count: Int, first: (x: Int, y: Int)?) {
        var count = 0
        var first: (x: Int, y: Int)?
        for y in 0..<a.size.height {
            for x in 0..<a.size.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                if p.r != q.r || p.g != q.g || p.b != q.b {
                    count += 1
                    if first == nil { first = (x, y) }
                }
            }
        }
        return (count, first)
    }

    static func isInk(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool { p.r < 250 || p.g < 250 || p.b < 250 }

    /// The picture is the reference's, there is ink under every sample on the screen, and none
    /// farther than the brush reaches from every stroke.
    static func expectSameAsScreenSizedLayers(_ session: Session, _ what: String) throws {
        let strokes = session.document.strokes
        let reference = try reference(finished: strokes, live: session.document.active.values.sorted { $0.id < $1.id })
        let diff = difference(session.renderer.frame, reference)
        #expect(diff.count == 0, "\(what): \(diff.count) pixels differ from screen-sized layers, the first at \(String(describing: diff.first))")
        let all = strokes + session.document.active.values
        for stroke in all {
            for s in stroke.samples where s.location.x >= 0 && s.location.y >= 0 && s.location.x < 640 && s.location.y < 400 {
                #expect(isInk(session.renderer.frame.pixel(x: Int(s.location.x), y: Int(s.location.y))),
                        "\(what): no ink under the sample at \(s.location)")
            }
        }
        let reach = all.map { $0.bounds.outset(by: 2).integral }
        var stray = 0
        for y in stride(from: 0, to: 400, by: 3) {
            for x in stride(from: 0, to: 640, by: 3) where !reach.contains(where: { $0.contains(Point(Double(x), Double(y))) }) {
                if isInk(session.renderer.frame.pixel(x: x, y: y)) { stray += 1 }
            }
        }
        #expect(stray == 0, "\(what): \(stray) inked pixels away from every stroke")
    }

    // MARK: paths

    static func line(from a: Point, to b: Point, steps: Int) -> [Point] {
        (0...steps).map { i in
            let t = Double(i) / Double(steps)
            return Point(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
        }
    }

    static func spiral(centre c: Point, from r0: Double, to r1: Double, turns: Double, steps: Int) -> [Point] {
        (0...steps).map { i in
            let t = Double(i) / Double(steps)
            let a = t * turns * 2 * .pi, r = r0 + (r1 - r0) * t
            return Point(c.x + r * cos(a), c.y + r * sin(a) * 0.8)
        }
    }

    static let pen = StrokeSource.pen(device: 1)
    static func finger(_ slot: Int) -> StrokeSource { .finger(device: 2, slot: slot) }

    // MARK: tests

    @Test(arguments: [ToolKind.pen, .highlighter, .calligraphy])
    func aStrokeThatGrowsBeyondItsFirstBoundsKeepsEveryPixel(tool: ToolKind) throws {
        // A spiral from a dot in the middle out past every edge of the screen: the layer
        // grows many times, in every direction, and is cut by all four edges at the end.
        var session = try Session()
        var areas: [Rect] = []
        try session.draw([(Self.pen, Brush.standard(tool), Self.spiral(centre: Point(320, 200), from: 1, to: 420, turns: 3, steps: 360))],
                         perFrame: 2) { s in
            if let a = s.renderer.layerAreas.first, a != areas.last { areas.append(a) }
        }
        #expect(areas.count >= 5, "the layer grew \(areas.count) times")
        #expect(areas.first.map { $0.area < 200 * 200 } ?? false, "the first layer is small: \(String(describing: areas.first))")
        try Self.expectSameAsScreenSizedLayers(session, "spiral, \(tool)")
        #expect(session.renderer.layerMemory == .none, "nothing is kept once the stroke ended")
    }

    @Test func strokesAlongAndAcrossTheScreenEdges() throws {
        var session = try Session()
        let w = 640.0, h = 400.0
        let paths: [[Point]] = [
            Self.line(from: Point(-30, 5), to: Point(w + 30, 2), steps: 80),            // along the top, off both ends
            Self.line(from: Point(3, h + 20), to: Point(1, -20), steps: 60),           // along the left
            Self.line(from: Point(w - 2, 10), to: Point(w - 4, h - 10), steps: 60),    // along the right
            Self.line(from: Point(20, h - 1), to: Point(w - 20, h + 3), steps: 80),    // along the bottom, leaving it
            Self.line(from: Point(-15, -15), to: Point(60, 50), steps: 20),            // into the corner
            Self.line(from: Point(w + 40, h + 40), to: Point(w - 50, h - 30), steps: 20),
        ]
        for (i, p) in paths.enumerated() {
            let tool: ToolKind = i % 2 == 0 ? .pen : .highlighter
            try session.draw([(Self.pen, Brush.standard(tool), p)])
        }
        try Self.expectSameAsScreenSizedLayers(session, "edges")
        // Wholly off the screen: no layer pixels, no ink.
        var off = try Session()
        try off.draw([(Self.pen, Brush.standard(.pen), Self.line(from: Point(-100, -100), to: Point(-50, 500), steps: 10))], end: false)
        #expect(off.renderer.layerMemory.bytes == 0)
        try Self.expectSameAsScreenSizedLayers(off, "off the screen")
    }

    @Test func tenFingersAtOnceWhileTheyAreDrawnAndAfter() throws {
        // Ten fingers, five of them crossing each other's paths, highlighters among them.
        var session = try Session()
        let paths = (0..<10).map { i -> (source: StrokeSource, brush: Brush, points: [Point]) in
            let y = 20.0 + Double(i) * 38
            let points = i < 5 ? Self.line(from: Point(30 + Double(i) * 20, y), to: Point(600, 390 - y), steps: 50)
                               : Self.spiral(centre: Point(80 + Double(i - 5) * 120, y), from: 2, to: 30, turns: 1.5, steps: 50)
            return (Self.finger(i), Brush.standard(i % 3 == 0 ? .highlighter : .pen), points)
        }
        var checkedLive = false
        try session.draw(paths, perFrame: 4, end: false) { s in
            guard !checkedLive, s.document.active.count == 10, (s.document.active.values.first?.samples.count ?? 0) > 20 else { return }
            // Mid-stroke, a frame that repaints the whole screen: layers and tails as before.
            s.renderer.invalidateAll()
            try s.frame()
            try Self.expectSameAsScreenSizedLayers(s, "ten fingers, being drawn")
            checkedLive = true
        }
        #expect(checkedLive)
        #expect(session.renderer.layerMemory.layers == 10)
        for p in paths { session.document.apply(.endStroke(p.source)) }
        try session.frame()
        try Self.expectSameAsScreenSizedLayers(session, "ten fingers, ended")
        #expect(session.renderer.layerMemory == .none)
    }

    @Test func undoOnDecoratedPaperBringsBackThePaperExactly() throws {
        // The paper's decorations are kept as runs, not as a screen-sized image: repainting
        // part of the canvas (an undo) gives back exactly what was painted there.
        let decorations: [UIElement] = [
            .text("Please sign below", in: Rect(x: 40, y: 30, width: 560, height: 60), size: 28, color: .ink),
            .line(from: Point(60, 300), to: Point(580, 300), width: 2, color: RGBA(0.5, 0.5, 0.5, 1)),
            .box(Rect(x: 500.5, y: 330.5, width: 100, height: 40), fill: RGBA(0.9, 0.9, 0.95, 1), border: .black, radius: 6),
        ]
        var session = try Session()
        session.renderer.setBackdrop(decorations)
        try session.frame()
        let paper = try ImageSurface(size: Self.screen, format: .xrgb)
        paper.copy(from: session.renderer.frame, in: [Self.screenRect])
        let decorated = (0..<400).reduce(0) { n, y in n + (0..<640).filter { Self.isInk(paper.pixel(x: $0, y: y)) }.count }
        #expect(decorated > 2000, "the decorations show: \(decorated) pixels")
        // Strokes across the prompt, the line and the box, then undone one by one.
        try session.draw([(Self.pen, Brush.standard(.pen), Self.line(from: Point(30, 40), to: Point(620, 380), steps: 60))])
        try session.draw([(Self.pen, Brush.standard(.highlighter), Self.spiral(centre: Point(320, 300), from: 5, to: 90, turns: 2, steps: 120))])
        #expect(Self.difference(session.renderer.frame, paper).count > 1000)
        session.document.undo()
        session.document.undo()
        try session.frame()
        let diff = Self.difference(session.renderer.frame, paper)
        #expect(diff.count == 0, "\(diff.count) pixels differ from the paper, the first at \(String(describing: diff.first))")
    }

    @Test func layerMemoryIsBoundedByTheStrokesNotTheScreen() throws {
        // 1920x1080, twelve short strokes being drawn at once (a pen and eleven fingers).
        let size = PixelSize(width: 1920, height: 1080)
        let renderer = try FrameRenderer(size: size)
        var document = Document()
        var t = 0.0
        let starts = (0..<12).map { Point(100 + Double($0 % 4) * 450, 150 + Double($0 / 4) * 350) }
        for step in 0..<30 {
            for (i, start) in starts.enumerated() {
                t += 0.001
                let source: StrokeSource = i == 0 ? .pen(device: 1) : .finger(device: 2, slot: i)
                let s = Sample(location: Point(start.x + Double(step) * 4, start.y + Double(step % 5) * 3), pressure: 0.6, time: t)
                document.apply(step == 0 ? .beginStroke(source, .standard(i % 2 == 0 ? .pen : .highlighter), s) : .appendSample(source, s))
            }
            document.finishFrame()
            _ = try renderer.render(document: document, changes: document.takeChanges(), overlay: OverlayScene())
        }
        let memory = renderer.layerMemory
        #expect(memory.layers == 12)
        // Each layer is at most its stroke's reach grown by a quarter of it, and at least 32 px,
        // on each side (the room a stroke moving on is given), in 4-byte pixels.
        let bound = document.active.values.reduce(0) { sum, stroke in
            let r = stroke.bounds.outset(by: 2).integral
            return sum + Int((r.width * 1.5 + 2 * 34) * (r.height * 1.5 + 2 * 34)) * 4
        }
        #expect(memory.bytes > 0 && memory.bytes <= bound, "\(memory.bytes) bytes of layers, bound \(bound)")
        let oneScreen = size.width * size.height * 4
        #expect(memory.bytes < oneScreen / 10, "twelve short strokes hold \(memory.bytes) bytes, a screen is \(oneScreen)")
    }
}
