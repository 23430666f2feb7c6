// SPDX-License-Identifier: Apache-2.0
import InkCore
import InkRender
import InkDisplay

/// One frame's cost, for statistics and latency figures.
public struct FrameReport: Sendable {
    public var renderSeconds: Double
    public var damagedPixels: Int
    public var damageRects: Int
}

public struct PipelineOptions: Sendable {
    public var prediction = true
    public var fps = 60.0
    public var background = RGBA.white
    /// `show-palette` shows the palette overlay (off where a screen draws its own palette).
    public var paletteOverlay = true
    /// Undo steps kept per page.
    public var undoDepth = Document.defaultUndoDepth
    /// RAM for pictures of the pages not on screen (a page turn then costs a copy, not a repaint).
    public var pageCacheBytes = 2 << 20
    /// At most one frame will be drawn (a replay that writes its final picture, or only SVG or
    /// PDF): the renderer draws the ink straight onto the display's picture, which gets its
    /// paper with that frame (`FrameRenderer(oneSurface:)`).
    public var oneFrame = false
    /// Called after the page on screen changed (a turn, a new page). The page left became a
    /// picture and its buffers were freed: the kiosk hands malloc's free pages back to the
    /// kernel here (InkLoop's `FreeMemory`, on a thread of its own), so it stays flat all day.
    public var afterPageChange: (@Sendable () -> Void)?
    /// Finished strokes drawn off the canvas are each one path, filled once
    /// (`FrameRenderer(wholeStrokes:)`): a replay's final picture, never the live screen.
    public var wholeStrokes = false
    public init() {}
}

/// The flow from input to screen: Interaction → Document → FrameRenderer → Display.
/// The kiosk and replay both drive it; only who calls `handle` and `renderFrame` differs.
public final class FramePipeline {
    public private(set) var interaction: Interaction
    /// Every page; the one on screen is `document`.
    public private(set) var notebook: Notebook
    /// The pages not on screen, as they were last shown (or painted ahead, `paintPagesAhead`).
    public private(set) var snapshots: PageSnapshots {
        didSet { pageChanges += 1 }
    }
    /// Counts changes to the pages or their pictures: which pages need painting ahead can only
    /// change when this does (the page on screen is never painted ahead).
    public private(set) var pageChanges = 0
    public var document: Document { notebook.page }
    /// Worksheet pages' papers (the PDF page on its desk) by notebook page, kept for the page
    /// shown and its neighbours (`keepPapers`); a page without one shows the screen's paper.
    public private(set) var papers: [Int: PageSnapshot] = [:]
    /// Presses on on-screen controls since the screen last looked (`takePresses`).
    private var presses: [Press] = []
    public let renderer: FrameRenderer
    public let display: Display
    public let options: PipelineOptions
    private let predictor: Predictor
    /// Input arrived (or state changed) since the last frame.
    public private(set) var needsFrame = true
    public private(set) var samplesReceived = 0
    /// What the hardware cursor shows, if the display has one and the hover preview is on it.
    private var cursorShows: (brush: Brush, alpha: Double, nibAngle: Double)?

    public init(settings: InteractionSettings, devices: [DeviceInfo], display: Display, options: PipelineOptions = PipelineOptions()) throws {
        interaction = Interaction(settings: settings, devices: devices)
        notebook = Notebook(undoDepth: options.undoDepth)
        snapshots = PageSnapshots(budget: options.pageCacheBytes)
        for d in devices { deviceNames[d.id] = d.name }
        renderer = try FrameRenderer(size: display.size, background: options.background, frame: (display as? RAMDisplay)?.screen,
                                     frameShows: (display as? RAMDisplay)?.blankColor,
                                     oneSurface: options.oneFrame, wholeStrokes: options.wholeStrokes)
        self.display = display
        self.options = options
        predictor = Predictor(horizon: options.prediction ? 1 / options.fps : 0)
    }

    public func handle(_ event: InkEvent) {
        for intent in interaction.handle(event) { apply(intent) }
        needsFrame = true
    }

    public func apply(_ intent: Intent) {
        switch intent {
        case .beginStroke, .appendSample: samplesReceived += 1
        case .press(let p): presses.append(p); return
        default: break
        }
        notebook.page.apply(intent)
    }

    /// Presses on controls since the last call, for the screen to act on.
    public func takePresses() -> [Press] {
        defer { presses.removeAll() }
        return presses
    }

    /// The screen's layout: decorations under the ink, controls over it, and where the
    /// controls take input instead of drawing.
    public func show(backdrop: [UIElement], chrome: [UIElement], controlAreas: [Rect], modal: Bool) throws {
        let backdropChanged = renderer.setBackdrop(backdrop)
        if backdropChanged { snapshots.removeAll() }   // painted on the old paper
        if try renderer.setChrome(chrome) || backdropChanged { needsFrame = true }
        if controlAreas != interaction.controlAreas || modal != interaction.modal {
            interaction.setControlAreas(controlAreas, modal: modal)
        }
    }

    public func select(_ tool: ToolKind) { interaction.select(tool); needsFrame = true }
    public func setBrush(_ brush: Brush) { interaction.setBrush(brush); needsFrame = true }
    public func setPaletteVisible(_ visible: Bool) { interaction.setPaletteVisible(visible); needsFrame = true }

    // MARK: pages

    public func addPage() {
        guard notebook.canAddPage else { return }
        keepSnapshotOfPageShown()
        notebook.addPage()
        pageChanges += 1   // the page left may not have been kept
        renderer.setPagePaper(papers[notebook.current])
        renderer.showAnotherDocument()
        needsFrame = true
        options.afterPageChange?()
    }

    public func turn(to page: Int) {
        guard page != notebook.current, notebook.pages.indices.contains(page) else { return }
        keepSnapshotOfPageShown()
        notebook.turn(to: page)
        renderer.setPagePaper(papers[page])
        renderer.showAnotherDocument(snapshots.take(page, revision: document.revision))
        needsFrame = true
        options.afterPageChange?()
    }

    /// A new notebook on a worksheet's pages, the first one shown (their papers come later, `setPaper`).
    public func open(_ sheet: WorksheetRef) {
        notebook.open(sheet)
        snapshots.removeAll()
        papers.removeAll()
        renderer.setPagePaper(nil)
        renderer.showAnotherDocument()
        needsFrame = true
    }

    /// Page `page`'s paper arrives (rendered elsewhere); the page shown repaints on it.
    public func setPaper(_ paper: PageSnapshot, forPage page: Int) {
        guard notebook.worksheetPage(at: page) != nil, paper.size == renderer.size else { return }
        papers[page] = paper
        pageChanges += 1
        if page == notebook.current, renderer.setPagePaper(paper) { needsFrame = true }
    }

    /// A paper under the page shown that is no worksheet's page (a document being read or
    /// signed); nil: the screen's own again. `startOver` takes it away too.
    public func showPaper(_ paper: PageSnapshot?) {
        guard paper.map({ $0.size == renderer.size }) ?? true else { return }
        pageChanges += 1
        if renderer.setPagePaper(paper) { needsFrame = true }
    }

    /// The bytes the kept papers take.
    public var paperBytes: Int { papers.values.reduce(0) { $0 + $1.bytes } }

    /// Keeps the papers of the pages within `distance` of the one shown, and of those no more
    /// than `budget` bytes, the farthest going first (the page shown's paper always stays).
    public func keepPapers(within distance: Int, budget: Int = .max) {
        let current = notebook.current
        for page in papers.keys where abs(page - current) > distance { papers[page] = nil }
        while paperBytes > budget,
              let farthest = papers.keys.filter({ $0 != current }).max(by: { abs($0 - current) < abs($1 - current) }) {
            papers[farthest] = nil
        }
    }

    /// Every paper goes, and the page shown is drawn on the screen's own (the worksheet's file is gone).
    public func dropPapers() {
        papers.removeAll()
        pageChanges += 1
        if renderer.setPagePaper(nil) { needsFrame = true }
    }

    /// The page being left, as the screen shows it: unless a stroke is being drawn or a change
    /// has not reached the canvas yet (then it is painted again when turned to).
    private func keepSnapshotOfPageShown() {
        guard document.active.isEmpty else { return }
        if document.hasUntakenChanges {
            // A stroke ended (or an undo came) in the same batch as the turn: onto the canvas
            // first. The frame is not presented; the next one shows the whole new page anyway.
            notebook.page.finishFrame()
            handedAhead = 0
            _ = try? renderer.render(document: document, changes: notebook.page.takeChanges(), overlay: OverlayScene())
        }
        guard let snapshot = renderer.snapshotCanvas() else { return }
        snapshots.keep(snapshot, page: notebook.current, revision: document.revision)
    }

    /// Pages not on screen and not kept: what `paintPagesAhead` should paint, nearest first,
    /// each with the paper it goes on (a worksheet page whose paper is not here yet waits for it).
    public func pagesToPaint() -> [(page: Int, revision: Int, strokes: [Stroke], paper: PageSnapshot)] {
        notebook.pages.indices
            .filter { $0 != notebook.current && !snapshots.has($0) && !notebook.pages[$0].isEmpty }
            .filter { papers[$0] != nil || notebook.worksheetPage(at: $0) == nil }
            .sorted { abs($0 - notebook.current) < abs($1 - notebook.current) }
            .map { ($0, notebook.pages[$0].revision, notebook.pages[$0].strokes, paper(for: $0)) }
    }

    /// What page `page` is painted on: its worksheet page, else the screen's own paper.
    private func paper(for page: Int) -> PageSnapshot { papers[page] ?? renderer.backdropSnapshot() }

    /// A page painted elsewhere arrives: kept if the page is still off screen and unchanged.
    public func keepPainted(_ snapshot: PageSnapshot, page: Int, revision: Int) {
        guard page != notebook.current, notebook.pages.indices.contains(page),
              notebook.pages[page].revision == revision,
              snapshot.backdrop == (papers[page]?.backdrop ?? renderer.backdropGeneration) else { return }
        snapshots.keep(snapshot, page: page, revision: revision)
    }

    /// Starts over with one blank page, not undoably (a signature that was accepted or abandoned).
    public func startOver() {
        notebook.reset(); snapshots.removeAll(); papers.removeAll()
        renderer.setPagePaper(nil)
        renderer.showAnotherDocument(); needsFrame = true
    }

    /// Input devices by id (a capture names the pen that signed).
    public private(set) var deviceNames: [Int: String] = [:]

    /// A device was plugged in.
    public func addDevice(_ device: DeviceInfo) {
        interaction.addDevice(device)
        deviceNames[device.id] = device.name
    }

    /// A device went away: its strokes end where they were.
    public func removeDevice(_ id: Int) {
        for intent in interaction.removeDevice(id) { apply(intent) }
        needsFrame = true
    }

    /// Finished edits since the last call, for the journal.
    public func takeEdits() -> [NotebookEdit] { notebook.takeEdits() }

    /// Brings back a journalled notebook (after a restart); the next frame shows all of it.
    /// `devices` names the devices the restored strokes were drawn with.
    public func restore(_ edits: [NotebookEdit], devices: [Int: String] = [:]) {
        deviceNames.merge(devices) { live, _ in live }
        notebook.restore(edits)
        snapshots.removeAll()
        papers.removeAll()
        renderer.setPagePaper(nil)
        renderer.showAnotherDocument()
        needsFrame = true
    }

    /// The next frame repaints the whole screen (after the display was away).
    public func redrawAll() { renderer.invalidateAll(); needsFrame = true }
    /// Lays the canvas's paper now, before ink needs it (`FrameRenderer.layPaper`).
    public func layPaper() { renderer.layPaper() }

    public func perform(_ action: PreferredAction) { interaction.perform(action); needsFrame = true }
    public func undo() { notebook.page.undo(); needsFrame = true }
    public func redo() { notebook.page.redo(); needsFrame = true }
    public func clear() { notebook.page.clear(); needsFrame = true }

    /// Ends a frame without drawing it (a replay that wants only the final picture): the
    /// samples that arrived in it are marked as a drawn frame marks them, and what changed
    /// waits for the next frame that is drawn; the strokes that ended are drawn meanwhile on
    /// another core (`drawAhead`), unless no frame will be drawn.
    public func skipFrame(drawAhead: Bool = true) {
        notebook.page.finishFrame()
        guard drawAhead else { return }
        // Strokes that ended are drawn meanwhile on another core, for the frame that is drawn.
        let ended = document.endedSinceTaken
        if ended.count < handedAhead { handedAhead = 0 }
        if ended.count > handedAhead {
            renderer.drawAhead(Array(ended[handedAhead...]))
            handedAhead = ended.count
        }
    }

    /// How many of the document's untaken ended strokes `skipFrame` handed to the renderer.
    private var handedAhead = 0

    /// Draws everything that arrived since the last frame and presents it.
    @discardableResult
    public func renderFrame() throws -> FrameReport {
        let start = ContinuousClock.now
        notebook.page.finishFrame()
        let changes = notebook.page.takeChanges()
        handedAhead = 0
        let damage = try renderer.render(document: document, changes: changes, overlay: overlayScene())
        try display.present(renderer.frame, damage: damage)
        needsFrame = false
        return FrameReport(renderSeconds: (ContinuousClock.now - start).inSeconds, damagedPixels: damage.pixelCount, damageRects: damage.rects.count)
    }

    /// Puts the hover preview on the display's cursor plane; false if it has none (or the
    /// preview does not fit), and the overlay draws it instead.
    private func showOnCursorPlane(_ hover: HoverState) -> Bool {
        guard let plane = display as? CursorPlane, plane.hasCursorPlane,
              HoverCursor.fits(hover, size: plane.cursorSize) else { return false }
        let hotspot = (x: plane.cursorSize / 2, y: plane.cursorSize / 2)
        // Alpha in 64 steps: a hover that only moves re-uses the image and moves the plane.
        let alpha = (hover.alpha * 64).rounded() / 64
        let nibAngle = hover.brush.tool == .calligraphy ? (hover.nibAngle * 90 / .pi).rounded() : 0
        if let shown = cursorShows, shown.brush == hover.brush, shown.alpha == alpha, shown.nibAngle == nibAngle {
            plane.moveCursor(to: hover.location, hotspot: hotspot)
            return true
        }
        var h = hover
        h.alpha = alpha
        guard let image = try? HoverCursor.image(for: h, size: plane.cursorSize),
              plane.showCursor(image, hotspot: hotspot, at: hover.location) else { return false }
        cursorShows = (hover.brush, alpha, nibAngle)
        return true
    }

    private func overlayScene() -> OverlayScene {
        var scene = OverlayScene()
        for (source, stroke) in document.active where stroke.brush.tool != .eraser {
            let predicted = predictor.predict(from: stroke.samples)
            if !predicted.isEmpty { scene.predictions[source] = predicted }
        }
        scene.hovers = interaction.hover.keys.sorted().compactMap { interaction.hover[$0] }
        if let first = scene.hovers.first, showOnCursorPlane(first) {
            scene.hovers.removeFirst()
        } else if cursorShows != nil, let plane = display as? CursorPlane {
            plane.hideCursor()
            cursorShows = nil
        }
        if interaction.paletteVisible && options.paletteOverlay { scene.palette = renderer.palette }
        if interaction.currentTool == .debug {
            scene.debugDiagrams = scene.hovers.map(\.sample)
                + document.active.values.filter(\.source.isPen)
                    .compactMap(\.samples.last)
        }
        return scene
    }
}
