// SPDX-License-Identifier: Apache-2.0
import CCairo
import InkCore

/// Keeps the screen's picture in RAM and updates it incrementally, frame by frame.
///
/// - The **canvas** holds finished ink on the paper colour.
/// - Each active stroke draws into its own **layer** (`StrokeLayer`, only as large as the
///   part of the screen the stroke has reached); a piece is drawn once, when it becomes
///   final, so a long stroke costs the same per frame as a short one. The layer is painted
///   with the brush's opacity, so a translucent highlighter does not darken where it crosses
///   itself. When the stroke ends, its layer is painted onto the canvas and freed.
/// - The **overlay** (the stroke's not-yet-final tail, prediction, hover preview, palette,
///   debug diagram) is drawn fresh every frame and never committed.
/// - The **frame** is canvas + layers + overlay, recomposed only inside the damaged rectangles.
public final class FrameRenderer {
    public let size: PixelSize
    public let background: RGBA
    /// What the screen shows (XRGB8888, the scanout format).
    public let frame: ImageSurface
    let canvas: ImageSurface
    /// The paper with the screen's decorations under the ink (a prompt, a line), kept as runs
    /// of one colour (a fraction of a screen); nil for plain paper, the background colour.
    private var backdrop: PageSnapshot?
    private var backdropElements: [UIElement] = []
    /// The page's own paper (a worksheet's page on its desk), over the screen's backdrop.
    private var pagePaper: PageSnapshot?
    /// Controls over the ink (buttons, toolbar, banners), on an image of the part of the screen
    /// they cover (a toolbar's strip, not a screen); transparent elsewhere.
    private var chrome: ImageSurface?
    private var chromeArea = Rect.empty
    private var chromeElements: [UIElement] = []
    private var chromeDamage: [Rect] = []
    private var canvasStale = false
    /// The canvas holds exactly the paper `paintPaper` would paint, no ink: a repaint need not
    /// paint the paper again (a backdrop set before the first frame was just painted on it: one
    /// full-screen pass of that frame fewer).
    private var canvasIsBarePaper = true
    private var layers: [StrokeID: StrokeLayer] = [:]
    /// What the layers of the strokes being drawn hold (nothing is kept once a stroke ends).
    public var layerMemory: LayerMemory {
        LayerMemory(layers: layers.count, bytes: layers.values.reduce(0) { $0 + $1.bytes })
    }
    /// The part of the screen the controls' image covers (for tests).
    var chromeImageArea: Rect { chromeArea }
    /// The part of the screen each layer covers, in stroke order (for tests).
    var layerAreas: [Rect] { layers.sorted { $0.key < $1.key }.map(\.value.area) }
    private var previousOverlay: [Rect] = []
    private var firstFrame = true
    public var palette: [RGBA] = Palette.standard

    /// `frame`: where to compose the frames (XRGB, `size`), when the display's picture is RAM
    /// the renderer may draw in; else the renderer makes its own.
    ///
    /// `oneSurface`: the canvas is the frame, for a renderer that draws one frame (a replay that
    /// writes only its final picture): the ink goes straight onto the picture, with no second
    /// screen-sized image to fault in and copy. Whatever a frame composes over the ink (a stroke
    /// being drawn, a hover, controls) then lands on the canvas, so the frame after it repaints
    /// the canvas from the document: still right, only slower.
    ///
    /// `wholeStrokes`: finished strokes drawn off the canvas (`drawAhead`, or many ending in one
    /// frame) are each one path filled once, not piece by piece as the live screen draws them
    /// (`StrokeRaster`): faster, and a few levels off the live screen at the joints' edges.
    ///
    /// `frameShows`: the one colour `frame` already shows everywhere (a display that opened blank
    /// in the paper's colour): a first frame of plain paper then paints only what goes over it.
    public init(size: PixelSize, background: RGBA = .white, frame: ImageSurface? = nil, frameShows: RGBA? = nil,
                oneSurface: Bool = false, wholeStrokes: Bool = false) throws {
        self.size = size
        self.wholeStrokes = wholeStrokes
        self.background = background
        if let frame {
            guard frame.size == size, frame.format == .xrgb else {
                throw RenderError("the frame to compose in is \(frame.size) \(frame.format), not \(size) XRGB")
            }
            self.frame = frame
            frameShowsPaper = frameShows == background
        } else {
            self.frame = try ImageSurface(size: size, format: .xrgb)
        }
        canvas = oneSurface ? self.frame : try ImageSurface(size: size, format: .xrgb)
    }

    private let wholeStrokes: Bool
    /// The frame shows plain paper everywhere, as the display opened (until the first frame).
    private var frameShowsPaper = false

    /// The canvas has not had its paper yet: it is laid when ink first needs it, or by
    /// `layPaper`. Until then a frame of plain paper is filled with the paper's colour, not copied
    /// from the canvas: the kiosk's first frame does not wait for a screen-sized image to be
    /// written (under emulation, the kernel's zeroing of its pages alone is tens of ms), and a
    /// replay that writes only SVG or PDF never touches it.
    private var paperPending = true

    private func putOnPaper() {
        guard paperPending else { return }
        paperPending = false
        CairoContext(canvas).fill(bounds, with: background)
    }

    /// Whether the canvas has its paper yet (for tests).
    var canvasHasPaper: Bool { !paperPending }

    /// Lays the paper on the canvas now, before ink needs it (the kiosk, once its first frame is
    /// shown and while it waits for the seat).
    public func layPaper() {
        settleCanvas()
        putOnPaper()
    }

    /// A frame needs nothing from the canvas: no ink, no decorations, and the paper not laid yet.
    private func showsOnlyPaper(_ document: Document, _ changes: DocumentChanges) -> Bool {
        paperPending && !composesOnCanvas && backdrop == nil && pagePaper == nil && ahead == nil
            && document.strokes.isEmpty && document.active.isEmpty && changes.ended.isEmpty
    }

    /// The canvas is the frame (`oneSurface`).
    private var composesOnCanvas: Bool { canvas === frame }

    /// The next frame repaints everything.
    public func invalidateAll() { firstFrame = true }

    /// Another drawing is shown (a page turned): strokes being drawn are dropped, and the
    /// next frame shows `snapshot` (that page as it was left), or else repaints the canvas
    /// from the document.
    public func showAnotherDocument(_ snapshot: PageSnapshot? = nil) {
        settleCanvas()
        layers.removeAll()
        if let snapshot, snapshot.backdrop == paperID, snapshot.size == size {
            snapshot.restore(into: canvas)
            paperPending = false
            canvasIsBarePaper = false
            canvasStale = false
            firstFrame = true
        } else {
            canvasStale = true
        }
    }

    /// The canvas as it is, for showing again later; nil when it is out of date or strokes are
    /// being drawn on it.
    public func snapshotCanvas() -> PageSnapshot? {
        settleCanvas()
        guard !canvasStale, layers.isEmpty else { return nil }
        putOnPaper()
        return PageSnapshot(of: canvas, backdrop: paperID, deflated: true)
    }

    /// Counts backdrop changes (a snapshot painted on another backdrop is not shown).
    public private(set) var backdropGeneration = 0

    /// Which paper the canvas is painted on: the page's own (a worksheet page's number from
    /// `PaperIDs`), else the backdrop's generation. A page's snapshot on other paper is useless.
    public var paperID: Int { pagePaper?.backdrop ?? backdropGeneration }

    /// The screen's paper and its decorations (not a page's own), for painting a page elsewhere (`paintPage`).
    public func backdropSnapshot() -> PageSnapshot {
        if let backdrop { return backdrop }
        return PageSnapshot(size: size, pixel: Self.word(of: background), backdrop: backdropGeneration)
    }

    /// The paper of the page shown: a worksheet's page (made by `WorksheetPaper`), or nil for
    /// the screen's own; a change repaints the canvas. Set it before `showAnotherDocument`.
    @discardableResult
    public func setPagePaper(_ paper: PageSnapshot?) -> Bool {
        guard paper?.backdrop != pagePaper?.backdrop else { return false }
        pagePaper = paper.flatMap { $0.size == size ? $0 : nil }
        canvasIsBarePaper = false
        canvasStale = true
        return true
    }

    /// The 32-bit XRGB word cairo writes for `color` (what a fill of the canvas leaves).
    private static func word(of color: RGBA) -> UInt32 {
        guard let dot = try? ImageSurface(size: PixelSize(width: 1, height: 1), format: .xrgb) else { return 0xFFFF_FFFF }
        CairoContext(dot).fill(Rect(x: 0, y: 0, width: 1, height: 1), with: color)
        return dot.withPixels { data, _ in data.load(as: UInt32.self) } ?? 0xFFFF_FFFF
    }

    /// The paper under `r` (whole pixels) on the canvas.
    private func paintPaper(in r: Rect, _ ctx: CairoContext) {
        if let paper = pagePaper ?? backdrop { paper.restore(into: canvas, in: r) } else { ctx.fill(r, with: background) }
    }

    /// A page's canvas painted from its strokes on `backdrop`, on any thread: what a page that
    /// has not been shown yet will look like, made before it is turned to.
    public static func paintPage(_ strokes: [Stroke], backdrop: PageSnapshot) throws -> PageSnapshot {
        let surface = try ImageSurface(size: backdrop.size, format: .xrgb)
        backdrop.restore(into: surface)
        let ctx = CairoContext(surface)
        for stroke in strokes { ShapePainter.drawStroke(stroke, in: ctx.cr) }
        cairo_surface_flush(surface.surface)
        return PageSnapshot(of: surface, backdrop: backdrop.backdrop, deflated: true)
    }

    /// The decorations under the ink; a change repaints the canvas.
    @discardableResult
    public func setBackdrop(_ elements: [UIElement]) -> Bool {
        guard elements != backdropElements else { return false }
        backdropElements = elements
        backdropGeneration += 1
        if elements.isEmpty {
            backdrop = nil
            canvasIsBarePaper = false
        } else {
            // Painted on the canvas itself and kept as runs (no screen-sized image of its own):
            // the canvas is repainted from the document in the next frame anyway.
            settleCanvas()
            let ctx = CairoContext(canvas)
            ctx.fill(bounds, with: background)
            paperPending = false
            UIPainter.draw(elements, in: ctx.cr)
            cairo_surface_flush(canvas.surface)
            backdrop = PageSnapshot(of: canvas, backdrop: backdropGeneration)
            canvasIsBarePaper = pagePaper == nil
        }
        canvasStale = true
        return true
    }

    /// The controls over the ink; only the elements that changed are redrawn.
    @discardableResult
    public func setChrome(_ elements: [UIElement]) throws -> Bool {
        guard elements != chromeElements else { return false }
        var needed = elements.reduce(Rect.empty) { $0.union($1.bounds) }.integral.intersection(bounds)
        if needed.width < 1 || needed.height < 1 { needed = .empty }
        let changed: [Rect]
        let surface: ImageSurface
        if let chrome, !needed.isEmpty, chromeArea.intersection(needed) == needed, needed.area * 2 >= chromeArea.area {
            surface = chrome
            let old = Set(chromeElements.indices.map { ElementKey(chromeElements[$0]) })
            let new = Set(elements.indices.map { ElementKey(elements[$0]) })
            changed = old.symmetricDifference(new).map { $0.element.bounds.integral.intersection(bounds) }.filter { !$0.isEmpty }
        } else {
            // The controls reach beyond their image, or now need much less of it (a dialog closed):
            // a new image of just their part, everything in it drawn, both parts repainted.
            changed = [chromeArea, needed].filter { !$0.isEmpty }
            chromeArea = needed
            guard !needed.isEmpty else {
                chrome = nil
                chromeElements = elements
                chromeDamage += changed
                return true
            }
            surface = try ImageSurface(size: PixelSize(width: Int(needed.width), height: Int(needed.height)), format: .argb,
                                       origin: Point(needed.minX, needed.minY))
            chrome = surface
        }
        chromeElements = elements
        let ctx = CairoContext(surface)
        for r in changed {
            cairo_save(ctx.cr)
            ctx.clip(to: r)
            ctx.fill(r, with: RGBA(0, 0, 0, 0))
            UIPainter.draw(elements.filter { $0.bounds.intersects(r) }, in: ctx.cr)
            cairo_restore(ctx.cr)
        }
        cairo_surface_flush(surface.surface)
        chromeDamage += changed
        return true
    }

    /// Elements compared by value, to find what changed between two layouts.
    private struct ElementKey: Hashable {
        let element: UIElement
        init(_ e: UIElement) { element = e }
        static func == (a: Self, b: Self) -> Bool { a.element == b.element }
        func hash(into h: inout Hasher) { h.combine(element.bounds.minX); h.combine(element.bounds.minY) }
    }

    private var bounds: Rect { Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)) }

    /// Brings the frame up to date and returns the rectangles that changed.
    public func render(document: Document, changes: DocumentChanges, overlay: OverlayScene) throws -> DamageRegion {
        var damage = DamageRegion(screen: size)
        var changes = changes
        if canvasStale { changes.everything = true; canvasStale = false }
        let paperOnly = showsOnlyPaper(document, changes)
        let paperShown = paperOnly && frameShowsPaper
        frameShowsPaper = false
        if firstFrame { if !paperShown { damage.addAll() }; firstFrame = false }
        for r in previousOverlay { damage.add(r) }
        for r in chromeDamage { damage.add(r) }
        chromeDamage.removeAll()
        if paperOnly {
            // The paper wherever a repaint was asked for; nowhere if the frame shows it already.
            if !paperShown { for r in repaintRegions(changes) { damage.add(r) } }
        } else {
            putOnPaper()
            let canvasContext = CairoContext(canvas)
            if try end(changes.ended, canvas: canvasContext, damage: &damage) { changes.everything = true }
            repaintCanvas(document, changes, canvasContext, &damage)
        }

        // New final pieces of active strokes go into their layers; the rest is overlay.
        var live: [LiveStroke] = []
        var overlayRects: [Rect] = []
        for stroke in document.active.values.sorted(by: { $0.id < $1.id }) {
            let layer = self.layer(for: stroke.id)
            try commitFinalPieces(of: stroke, into: layer, done: false, damage: &damage)
            let tail = provisionalShapes(stroke, predicted: overlay.predictions[stroke.source] ?? [])
            let tailBounds = tail.reduce(Rect.empty) { $0.union($1.path.bounds) }
            overlayRects.append(tailBounds)
            live.append(LiveStroke(layer: layer, tail: tail, opacity: stroke.brush.opacity,
                                   area: layer.area.union(tailBounds.outset(by: 2).integral)))
        }
        var extras: [(shapes: [InkShape], alpha: Double)] = overlay.hovers.map(OverlayShapes.hover)
        extras += overlay.debugDiagrams.map { (OverlayShapes.debugDiagram($0), 1) }
        if let colors = overlay.palette { extras.append((OverlayShapes.palette(colors, screen: size), 1)) }
        for e in extras { overlayRects.append(e.shapes.reduce(Rect.empty) { $0.union($1.path.bounds) }) }
        for r in overlayRects { damage.add(r) }
        previousOverlay = overlayRects.filter { !$0.isEmpty }

        compose(damage, live: live, extras: extras, paperOnly: paperOnly)
        return damage
    }

    /// A stroke being drawn, for one frame: its layer, its tail, and where either shows.
    private struct LiveStroke {
        let layer: StrokeLayer
        let tail: [InkShape]
        let opacity: Double
        let area: Rect
    }

    private func compose(_ damage: DamageRegion, live: [LiveStroke], extras: [(shapes: [InkShape], alpha: Double)], paperOnly: Bool) {
        let ctx = CairoContext(frame)
        let cr = ctx.cr
        let extrasArea = extras.reduce(Rect.empty) { $0.union($1.shapes.reduce(Rect.empty) { $0.union($1.path.bounds) }) }
            .outset(by: 2).integral
        // On one surface the canvas already is the frame; what is composed over it below
        // stays on it, so the next frame repaints the canvas from the document.
        if composesOnCanvas && (!live.isEmpty || !extras.isEmpty || (chrome != nil && !chromeElements.isEmpty)) {
            canvasStale = true
        }
        for r in damage.rects {
            if paperOnly { ctx.fill(r, with: background) } else if !composesOnCanvas { ctx.copy(canvas, in: r) }
            cairo_save(cr)
            ctx.clip(to: r)
            // Each group is only as large as its clip: kept to where the stroke (or the overlay)
            // shows, a frame that repaints the whole screen makes no screen-sized group. Outside
            // that area a group is transparent, and painting it there would change nothing.
            for stroke in live {
                let area = r.intersection(stroke.area)
                guard area.width >= 1, area.height >= 1 else { continue }
                cairo_save(cr)
                ctx.clip(to: area)
                cairo_push_group(cr)
                if stroke.layer.setAsSource(of: cr) { cairo_paint(cr) }
                ShapePainter.draw(stroke.tail, in: cr)
                cairo_pop_group_to_source(cr)
                cairo_paint_with_alpha(cr, stroke.opacity)
                cairo_restore(cr)
            }
            if let chrome, !chromeElements.isEmpty {
                cairo_set_source_surface(cr, chrome.surface, 0, 0)
                cairo_paint(cr)
            }
            let area = r.intersection(extrasArea)
            if area.width >= 1, area.height >= 1 {
                ctx.clip(to: area)
                for (shapes, alpha) in extras {
                    cairo_push_group(cr)
                    ShapePainter.draw(shapes, in: cr)
                    cairo_pop_group_to_source(cr)
                    cairo_paint_with_alpha(cr, alpha)
                }
            }
            cairo_restore(cr)
        }
        cairo_surface_flush(frame.surface)
    }

    /// The stroke's tail that may still change: its last piece and the predicted pieces.
    private func provisionalShapes(_ stroke: Stroke, predicted: [Sample]) -> [InkShape] {
        guard let last = stroke.samples.last else { return [] }
        if stroke.brush.tool == .eraser {
            return [InkShape(.polyline(OverlayShapes.circle(last.location, radius: stroke.brush.width / 2), width: 2),
                             stroke.brush.color.withAlpha(1))]
        }
        let committed = layers[stroke.id]?.committedPieces ?? 0
        // A piece needs its two samples before it: take only the tail, so a long stroke costs
        // no more per frame than a short one.
        let start = max(0, committed - 2)
        var samples = Array(stroke.samples[start...]), angles = Array(stroke.nibAngles[start...])
        for p in predicted {
            samples.append(p)
            angles.append(stroke.brush.nibAngle(for: p, previous: angles.last))
        }
        let shaper = StrokeShaper(brush: stroke.brush)
        return (committed - start..<samples.count).flatMap { shaper.piece($0, samples: samples, nibAngles: angles).shapes }
    }

    private func commitFinalPieces(of stroke: Stroke, into layer: StrokeLayer, done: Bool, damage: inout DamageRegion) throws {
        let count = stroke.samples.count
        var k = layer.committedPieces
        guard StrokeShaper.isFinal(piece: k, count: count, done: done) else { return }
        let shaper = StrokeShaper(brush: stroke.brush)
        while StrokeShaper.isFinal(piece: k, count: count, done: done) {
            let piece = shaper.piece(k, samples: stroke.samples, nibAngles: stroke.nibAngles)
            try layer.draw(piece)
            damage.add(piece.bounds)
            k += 1
            layer.committedPieces = k
        }
    }

    /// Strokes that ended since the last frame, onto the canvas in order. Those drawn ahead
    /// (`drawAhead`) and, when many end at once (a replay that draws only its final picture
    /// ends them all in one frame), the others are each drawn as its layer would be
    /// (`StrokeRaster`), on every core, a batch at a time to bound the memory.
    ///
    /// Returns true when the canvas must be repainted from the document: a stroke a worker
    /// painted onto it changed after it was handed over.
    private func end(_ ended: [Stroke], canvas: CairoContext, damage: inout DamageRegion) throws -> Bool {
        let ahead = self.ahead
        self.ahead = nil
        ahead?.finishTogether()
        // No worker got round to laying the paper: it goes on before any stroke.
        if ahead?.paperPending == true { canvas.fill(bounds, with: background) }
        var changed = false
        let batch = 64
        var start = 0
        while start < ended.count {
            let part = ended[start..<min(start + batch, ended.count)]
            start = part.endIndex
            var drawn: [Int: StrokeRaster.Drawn] = [:]
            var missing: [Int] = []
            // Done pen, calligraphy and highlighter strokes with nothing on a layer yet.
            for i in part.indices where part[i].state == .done && part[i].brush.tool != .eraser && layers[part[i].id] == nil {
                if let d = try ahead?.take(part[i], changed: &changed) { drawn[i] = d } else { missing.append(i) }
            }
            // Drawn whole, every stroke is drawn that way (the few on this thread).
            if missing.count >= StrokeRaster.parallelFrom || (wholeStrokes && !missing.isEmpty) {
                let strokes = missing.map { part[$0] }
                for (i, d) in zip(missing, try StrokeRaster.draw(strokes, screen: size, whole: wholeStrokes)) { drawn[i] = d }
            }
            for i in part.indices {
                guard let d = drawn[i] else { try end(part[i], canvas: canvas, damage: &damage); continue }
                if let image = d.image { canvasIsBarePaper = false; canvas.paint(image, opacity: part[i].brush.opacity, in: d.clip) }
                damage.add(d.inked)
            }
        }
        return changed
    }

    /// Strokes drawn on other threads before the frame that paints them, while the caller goes
    /// on (a replay that draws only its final picture hands each stroke over as it ends).
    private var ahead: StrokeRaster.Ahead?

    /// Starts drawing finished strokes on another thread; the next frame paints them. A stroke
    /// that changes before then is drawn again.
    ///
    /// On one surface nothing else touches the canvas before that frame: the worker lays the
    /// paper (if it is not on yet) and paints each stroke onto it as soon as it is drawn, in
    /// order, so the frame has only the strokes no worker got to left to paint.
    public func drawAhead(_ strokes: [Stroke]) {
        guard !strokes.isEmpty else { return }
        if ahead == nil {
            if composesOnCanvas {
                ahead = StrokeRaster.Ahead(screen: size, whole: wholeStrokes, canvas: canvas, paper: paperPending ? background : nil)
                paperPending = false
                canvasIsBarePaper = false
            } else {
                ahead = StrokeRaster.Ahead(screen: size, whole: wholeStrokes)
            }
        }
        ahead?.submit(strokes)
    }

    /// Waits for a worker that paints on the canvas, before anything else touches the canvas.
    /// What it painted is then repainted from the document by the next frame.
    private func settleCanvas() {
        guard let ahead, ahead.paintsCanvas else { return }
        ahead.finish()
        if ahead.paperPending { paperPending = true }
        canvasStale = true
    }

    private func end(_ stroke: Stroke, canvas: CairoContext, damage: inout DamageRegion) throws {
        let layer = self.layer(for: stroke.id)
        // The layer is freed whatever happens below: a failed piece must not keep its pixels.
        defer { layers[stroke.id] = nil }
        if stroke.state == .done {
            try commitFinalPieces(of: stroke, into: layer, done: true, damage: &damage)
            if let image = layer.image { canvasIsBarePaper = false; canvas.paint(image, opacity: stroke.brush.opacity, in: layer.inked.outset(by: 2).integral) }
        } else {
            damage.add(layer.inked)   // a cancelled stroke leaves no ink
        }
    }

    private func layer(for id: StrokeID) -> StrokeLayer {
        if let l = layers[id] { return l }
        let l = StrokeLayer(screen: size)
        layers[id] = l
        return l
    }

    /// Where finished ink changed (erasing, undo, clear), in whole pixels with a margin for antialiasing.
    private func repaintRegions(_ changes: DocumentChanges) -> [Rect] {
        changes.everything ? [bounds] : changes.invalid.map { $0.outset(by: 2).integral.intersection(bounds) }
    }

    /// Erasing, undo and clear change finished ink: repaint those regions from the document.
    private func repaintCanvas(_ document: Document, _ changes: DocumentChanges, _ ctx: CairoContext,
                               _ damage: inout DamageRegion) {
        for r in repaintRegions(changes) where !r.isEmpty {
            cairo_save(ctx.cr)
            ctx.clip(to: r)
            if !canvasIsBarePaper { paintPaper(in: r, ctx) }
            for stroke in document.strokes where stroke.bounds.intersects(r) {
                canvasIsBarePaper = false
                ShapePainter.drawStroke(stroke, in: ctx.cr)
            }
            cairo_restore(ctx.cr)
            damage.add(r)
        }
    }
}

/// The strokes being drawn on layers of their own, and the bytes of pixels those layers hold.
public struct LayerMemory: Sendable, Equatable {
    public var layers: Int
    public var bytes: Int
    public static let none = LayerMemory(layers: 0, bytes: 0)
}

public enum Palette {
    /// Ink, black, red, green, blue, orange, purple, yellow (8-bit exact, as a config writes them).
    public static let standard: [RGBA] = ["#0d1759", "#000000", "#cc1a1a", "#1a8c33", "#1a59d9", "#f28c00", "#8c33b3", "#ffd900"]
        .compactMap { RGBA(hex: $0) }
}
