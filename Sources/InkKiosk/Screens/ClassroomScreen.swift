// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkClassroom
import InkConfig
import InkCore
import InkLoop
import InkLog
import Logging
import InkStorage
import InkRender
import InkPDFHelper
import InkPipeline
import InkWorksheet

/// Classroom mode: a toolbar a child's finger can use (tools, colours, width, undo, redo,
/// clear with confirmation, pages, save), over a notebook of pages.
public final class ClassroomScreen: KioskScreen {
    public struct Settings: Sendable {
        public var text = UIText()
        public var buttonMM = 12.0
        public var saveDirectory = "/var/lib/inkkiosk/saved"
        /// Older saves leave the directory after each Save.
        public var retention = Retention(keep: 0, maxAgeDays: 0)
        public var palette: [RGBA] = Palette.standard
        /// Width choices, as multiples of each tool's configured width.
        public var widths: [Double] = [0.5, 1, 2]
        /// Where the Worksheets list looks, and what it opens at most.
        public var worksheets = WorksheetShelf(folders: ["/var/lib/inkkiosk/worksheets"])
        /// The school's cloud: a Hand in button, the hand-in's state, the enrolment's QR code; nil: none.
        public var cloud: CloudSettings?
        public init() {}
    }

    public let settings: Settings
    let style: ScreenStyle
    private var presses = ControlPresses()
    /// Each tool's brush as configured: the width choices scale it.
    private var baseBrushes: [ToolKind: Brush] = [:]
    public private(set) var widthChoice = 1
    public private(set) var colorChoice: Int?
    public private(set) var confirmingClear = false
    /// Pages are being rendered and written elsewhere; drawing goes on.
    public private(set) var saving = false
    var message: Notice?
    public var storageWarning: String?
    /// A save (a pupil's hand-in: the notebook's pages written as PNG and PDF) under way: a
    /// restart would leave it half done. Drawing itself needs no hold: the journal keeps every stroke.
    public func busy(_ pipeline: FramePipeline) -> String? {
        handingIn ? "a hand-in is being saved" : saving ? "the notebook is being saved" : nil
    }
    /// Worksheets are listed, opened and their pages drawn by poppler on a thread of their own;
    /// the cloud agent's files change.
    public var wakeFDs: [Int32] { [sheets.wakeFD, cloudLink?.fd].compactMap { $0 } }
    /// The cloud agent's folder, watched; what was read of it last (on a chore).
    let cloudLink: DirectoryWatch?
    var cloudView = CloudView()
    var cloudStale = true
    var cloudReading = false
    /// A hand-in being saved and put in the outbox.
    public internal(set) var handingIn = false
    /// The enrolment's QR code, made once per login URL.
    var enrolmentCode: (url: String, code: QRCode?)?
    /// Files written by the last save.
    public private(set) var lastSaved: [String] = []
    /// The notebook's pages' revisions when they were last saved (nil: never): what is unsaved.
    var savedRevisions: [Int]?
    /// poppler's thread: the list, the worksheet's document, its pages' papers.
    let sheets: BackgroundChores
    /// The worksheets list while it is open.
    var shelf: ShelfPanel?
    /// The worksheet under the notebook, open on `sheets`' thread.
    var opened: OpenedWorksheet?
    /// A worksheet chosen and loaded, waiting for the notebook shown to be saved first.
    var pendingSheet: OpenedWorksheet?
    /// A restored notebook's worksheet that was looked for (and not found); not looked for again.
    var lookedFor: String?
    var loadingSheet = false

    static let tools: [ToolKind] = [.pen, .calligraphy, .highlighter, .eraser]

    /// `sheets`: where poppler runs (`BackgroundChores.onThread()` in the kiosk; inline in tests).
    public init(settings: Settings, metrics: ScreenMetrics, sheets: BackgroundChores = .inline()) {
        self.settings = settings
        self.sheets = sheets
        style = ScreenStyle(metrics: metrics, buttonMM: settings.buttonMM)
        cloudLink = settings.cloud.map { CloudLink.watch($0) }
    }

    public func update(_ context: ScreenContext) throws {
        let pipeline = context.pipeline
        if baseBrushes.isEmpty { baseBrushes = pipeline.interaction.settings.brushes }
        sheets.deliver()
        for press in pipeline.takePresses() {
            let layout = self.layout(pipeline)
            if let action = presses.handle(press, controls: layout.controls) { perform(action, context) }
        }
        if !pipeline.document.active.isEmpty { message = nil }
        keepWorksheetPapers(context)
        readCloud(context)
        try show(pipeline)
    }

    private func perform(_ action: ScreenAction, _ context: ScreenContext) {
        let pipeline = context.pipeline
        message = nil
        switch action {
        case .tool(let tool): pipeline.select(tool)
        case .palette: pipeline.setPaletteVisible(!pipeline.interaction.paletteVisible)
        case .color(let i):
            colorChoice = i
            applyBrushes(pipeline)
            pipeline.setPaletteVisible(false)
            if pipeline.interaction.currentTool == .eraser { pipeline.select(.pen) }
        case .width(let i):
            widthChoice = i
            applyBrushes(pipeline)
        case .undo: pipeline.undo()
        case .redo: pipeline.redo()
        case .askClear: confirmingClear = true
        case .confirmClear: pipeline.clear(); confirmingClear = false
        case .keepPage: confirmingClear = false
        case .previousPage: pipeline.turn(to: pipeline.notebook.current - 1)
        case .nextPage: pipeline.turn(to: pipeline.notebook.current + 1)
        case .addPage: pipeline.addPage()
        case .save: if !saving { save(context) }
        case .handIn: handIn(context)
        case .openWorksheets: if shelf == nil { openShelf(context) } else { shelf = nil }
        case .closeWorksheets: shelf = nil
        case .chooseWorksheet(let i): choose(i, context)
        case .worksheetRows(let forward): shelf?.turn(forward: forward)
        case .clear, .accept, .cancel, .sign: break
        }
    }

    /// The chosen colour and width, applied to every tool's brush (the highlighter keeps its
    /// translucency, the eraser its colour).
    private func applyBrushes(_ pipeline: FramePipeline) {
        let scale = settings.widths[min(widthChoice, settings.widths.count - 1)]
        for tool in Self.tools {
            guard var brush = baseBrushes[tool] else { continue }
            brush.width = max(1, brush.width * scale)
            if let i = colorChoice, tool != .eraser {
                brush.color = settings.palette[i].withAlpha(tool == .highlighter ? brush.color.a : 1)
            }
            pipeline.setBrush(brush)
        }
    }

    /// Every page as a PNG, and all of them in one PDF, into the save directory; a worksheet's
    /// pages lie under their ink. `then` runs once the files are written (nil) or not (why).
    func save(_ context: ScreenContext, then: ((String?) -> Void)? = nil) {
        let pipeline = context.pipeline
        let sheet = pipeline.notebook.worksheet
        let name = SaveName.base(title: sheet?.title, date: localTimestamp(Date(), dateTimeSeparator: "-"),
                                 pages: pipeline.notebook.pages.count)
        let base = "\(settings.saveDirectory)/\(name)"
        let size = pipeline.display.size, directory = settings.saveDirectory
        // The pages as they are now; rendering and writing them happens elsewhere while the class draws on.
        let pages = pipeline.notebook.pages.map(\.strokes), revisions = pipeline.notebook.pages.map(\.revision)
        let under = sheet.map { SavedWorksheet(ref: $0, file: opened?.ref.sha256 == $0.sha256 ? opened?.file : nil,
                                               area: pageArea, limits: settings.worksheets.limits,
                                               watch: settings.worksheets.watch,
                                               helper: PDFHelper(launch: settings.worksheets.helper.launch,
                                                                 stuckSeconds: settings.worksheets.helper.stuckSeconds)) }
        saving = true
        message = Notice(settings.text.saving)
        let retention = settings.retention
        context.chores.run({ () -> (paths: [String], pruned: LogNote?, note: String?) in
            let written = try Self.write(pages, size: size, to: directory, base: base, worksheet: under)
            return (written.paths, retention.pruneNote(directory, what: "saves"), written.note)
        }) { [weak self] written in
            if case .success(let w) = written {
                if let note = w.pruned { context.log.note(note) }
                if let note = w.note { context.log.warning("\(note)") }
            }
            let outcome = written.map(\.paths)
            guard let self else { return }
            saving = false
            switch outcome {
            case .success(let paths):
                lastSaved = paths
                if pipeline.notebook.pages.count == revisions.count { savedRevisions = revisions }
                message = Notice(UIText.count(pages.count, one: settings.text.savedOnePage, many: settings.text.saved))
                context.log.info("saved \(pages.count) pages: \(paths.joined(separator: ", "))")
                then?(nil)
            case .failure(let error):
                message = Notice(UIText.format(settings.text.notebookNotSaved, StorageError.reason(error)), warning: true)
                context.log.error("cannot save the notebook: \(error)")
                then?(StorageError.reason(error))
            }
        }
    }

    /// A PNG per page and one PDF of all, each published atomically; returns the paths (and
    /// a note when the worksheet's file could not be used, so its pages were saved blank).
    private static func write(_ pages: [[Stroke]], size: PixelSize, to directory: String, base: String,
                              worksheet: SavedWorksheet?) throws -> (paths: [String], note: String?) {
        let plain = Exporter(size: size, background: .color(.white))
        let (sheetPages, note) = worksheet?.pages() ?? ([], nil)
        let exporters = pages.indices.map { i in
            i < sheetPages.count ? Exporter(size: size, background: .color(.white), backdrop: sheetPages[i], pageArea: worksheet?.area) : plain
        }
        try DurableFile.prepareDirectory(directory)
        var paths: [String] = []
        for (i, strokes) in pages.enumerated() {
            let path = "\(base)-page\(i + 1).png"
            try DurableFile.publish(path, mode: 0o644) { try exporters[i].png(strokes, to: $0) }
            paths.append(path)
        }
        // Over a worksheet the PDF helper writes it: poppler never runs in the kiosk.
        try DurableFile.publish("\(base).pdf", mode: 0o644) { try AnnotatedFile.write(.pdf, Array(zip(exporters, pages)), to: $0) }
        let blank = sheetPages.compactMap { ($0 as? WorksheetPage)?.takeFailure() }.first
        paths.append("\(base).pdf")
        try DurableFile.sync(directory)
        return (paths, note ?? blank.map { "worksheet \($0); that page is saved without its paper" })
    }

    // MARK: layout

    struct Layout {
        var controls: [Control] = []
        var toolbar = Rect.empty
        var pageLabel: (String, Rect)?
        var popup: Rect?
        var dialog: Rect?
    }

    func layout(_ pipeline: FramePipeline) -> Layout {
        let t = settings.text, s = style
        let w = Double(s.metrics.size.width)
        let interaction = pipeline.interaction, notebook = pipeline.notebook, page = pipeline.document
        var out = Layout()
        var row = RowLayout(origin: .zero, width: w, height: s.target, gap: s.gap)
        let names: [ToolKind: String] = [.pen: t.pen, .calligraphy: t.calligraphy, .highlighter: t.highlighter, .eraser: t.eraser]
        for tool in Self.tools {
            let label = names[tool] ?? tool.rawValue
            out.controls.append(Control(.tool(tool), row.next(s.width(label)), label,
                                        style: interaction.currentTool == tool ? .selected : .normal))
        }
        row.space(s.gap * 2)
        let current = interaction.settings.brush(.pen).color
        let colourButton = Control(.palette, row.next(s.target), "", style: interaction.paletteVisible ? .selected : .normal,
                                   swatch: (current, s.target * 0.3))
        out.controls.append(colourButton)
        for (i, scale) in settings.widths.enumerated() {
            out.controls.append(Control(.width(i), row.next(s.target), "", style: i == widthChoice ? .selected : .normal,
                                        swatch: (RGBA(0.1, 0.1, 0.15), min(s.target * 0.4, max(2, s.target * 0.09 * scale * 2)))))
        }
        row.space(s.gap * 2)
        out.controls.append(Control(.undo, row.next(s.width(t.undo)), t.undo, style: page.canUndo ? .normal : .disabled))
        out.controls.append(Control(.redo, row.next(s.width(t.redo)), t.redo, style: page.canRedo ? .normal : .disabled))
        out.controls.append(Control(.askClear, row.next(s.width(t.clearPage)), t.clearPage, style: page.isEmpty ? .disabled : .normal))
        row.space(s.gap * 2)
        out.controls.append(Control(.previousPage, row.next(s.target), "◀", style: notebook.current > 0 ? .normal : .disabled))
        let label = "\(notebook.current + 1) / \(notebook.count)"
        out.pageLabel = (label, row.next(s.width(label)))
        out.controls.append(Control(.nextPage, row.next(s.target), "▶", style: notebook.current < notebook.count - 1 ? .normal : .disabled))
        out.controls.append(Control(.addPage, row.next(s.width(t.newPage)), t.newPage))
        row.space(s.gap * 2)
        out.controls.append(Control(.save, row.next(s.width(t.save)), t.save, style: notebook.isBlank ? .disabled : .primary))
        if settings.cloud != nil {
            let closed = cloudView.isClosed(now: Int64(time(nil)))
            let label = closed ? t.handInClosed : t.handIn
            let ready = !notebook.isBlank && !saving && !handingIn && !closed
            out.controls.append(Control(.handIn, row.next(s.width(label)), label, style: ready ? .primary : .disabled))
        }
        out.controls.append(Control(.openWorksheets, row.next(s.width(t.worksheets)), t.worksheets,
                                    style: shelf != nil ? .selected : .normal))
        out.toolbar = Rect(x: 0, y: 0, width: w, height: row.bottom)

        if interaction.paletteVisible {
            var popupRow = RowLayout(origin: Point(max(0, min(colourButton.rect.minX - s.gap, w - Double(settings.palette.count) * (s.target + s.gap) - 2 * s.gap)),
                                                   out.toolbar.maxY),
                                     width: Double(settings.palette.count) * (s.target + s.gap) + s.gap, height: s.target, gap: s.gap)
            for (i, color) in settings.palette.enumerated() {
                out.controls.append(Control(.color(i), popupRow.next(s.target), "", style: i == colorChoice ? .selected : .normal,
                                            swatch: (color.withAlpha(1), s.target * 0.32)))
            }
            out.popup = Rect(x: popupRow.origin.x, y: popupRow.origin.y, width: popupRow.width, height: popupRow.bottom - popupRow.origin.y)
        }
        if let shelf {
            out.dialog = shelf.panel
            out.controls += shelf.controls(text: t)
        }
        if confirmingClear {
            let dw = min(w - 2 * s.gap, max(s.metrics.mm(90), labelWidth(t.confirmClear, fontSize: s.fontSize * 1.2) + 2 * s.target))
            let dh = s.target * 3.4
            let d = Rect(x: (w - dw) / 2, y: (Double(s.metrics.size.height) - dh) / 2, width: dw, height: dh)
            out.dialog = d
            let bw = (dw - 3 * s.gap * 2) / 2
            let by = d.maxY - s.target - s.gap * 2
            out.controls.append(Control(.keepPage, Rect(x: d.minX + s.gap * 2, y: by, width: bw, height: s.target), t.confirmNo))
            out.controls.append(Control(.confirmClear, Rect(x: d.maxX - s.gap * 2 - bw, y: by, width: bw, height: s.target), t.confirmYes, style: .danger))
        }
        return out
    }

    private func isColor(_ a: ScreenAction) -> Bool { if case .color = a { return true } else { return false } }

    private func show(_ pipeline: FramePipeline) throws {
        let l = layout(pipeline), s = style
        let w = Double(s.metrics.size.width)
        var chrome: [UIElement] = [.box(l.toolbar, fill: RGBA(0.9, 0.91, 0.93)),
                                   .line(from: Point(0, l.toolbar.maxY), to: Point(w, l.toolbar.maxY), width: 1, color: RGBA(0.7, 0.7, 0.72))]
        if let (label, r) = l.pageLabel { chrome.append(.text(label, in: r, size: s.fontSize, color: RGBA(0.1, 0.1, 0.15))) }
        let pressed = presses.pressedActions
        let dialogActions: Set<ScreenAction> = [.keepPage, .confirmClear]
        let shelfControls = l.controls.filter(\.action.isShelf)
        func draw(_ controls: [Control]) {
            for c in controls { chrome += c.elements(pressed: pressed.contains(c.action), fontSize: s.fontSize) }
        }
        draw(l.controls.filter { !dialogActions.contains($0.action) && !isColor($0.action) && !$0.action.isShelf })
        if let popup = l.popup {
            chrome.append(.box(popup, fill: RGBA(0.97, 0.97, 0.98), border: RGBA(0.55, 0.56, 0.6), radius: s.gap))
            draw(l.controls.filter { isColor($0.action) })
        }
        if let shelf {
            chrome.append(.box(pageArea, fill: RGBA(0, 0, 0, 0.35)))
            chrome += shelf.elements(shelfControls, text: settings.text, folders: settings.worksheets.folders, pressed: pressed)
        }
        if confirmingClear, let d = l.dialog {
            chrome.append(.box(s.metrics.bounds, fill: RGBA(0, 0, 0, 0.35)))
            chrome.append(.box(d, fill: .white, border: RGBA(0.4, 0.4, 0.45), radius: s.gap * 2))
            chrome.append(.text(settings.text.confirmClear, in: Rect(x: d.minX, y: d.minY + s.gap * 2, width: d.width, height: s.target),
                                size: s.fontSize * 1.2, color: RGBA(0.1, 0.1, 0.15), bold: true))
            draw(l.controls.filter { dialogActions.contains($0.action) })
        }
        var y = Double(s.metrics.size.height) - s.target - s.gap * 2
        if let storageWarning {
            chrome += s.banner(UIText.format(settings.text.storageWarning, storageWarning), y: y, warning: true)
            y -= s.target + s.gap
        }
        if let sheet = opened, sheet.notCopied != nil {
            chrome += s.banner(UIText.format(settings.text.worksheetNotCopied, sheet.ref.title), y: y, warning: true)
            y -= s.target + s.gap
        }
        if let message {
            chrome += s.banner(message.text, y: y, warning: message.warning)
            y -= s.target + s.gap
        }
        if settings.cloud != nil, let (line, warning) = cloudView.handInLine(handInTitle(pipeline), settings.text) {
            chrome += s.banner(line, y: y, warning: warning)
        }
        var areas = [l.toolbar]
        if let card = enrolmentCard(below: l.toolbar.maxY) {
            chrome += card.elements
            areas.append(card.area)
        }
        if let popup = l.popup { areas.append(popup) }
        try pipeline.show(backdrop: [], chrome: chrome, controlAreas: areas, modal: l.dialog != nil)
    }
}
