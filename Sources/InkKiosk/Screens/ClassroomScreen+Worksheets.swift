// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkConfig
import InkCore
import Logging
import InkPipeline
import InkRender
import InkPDFHelper
import InkStorage
import InkWorksheet

/// Worksheets: a list of the PDFs in the worksheet folders; the one chosen becomes the
/// notebook, its pages under the ink. The PDF helper (poppler in a caged process) is asked
/// only from `sheets`' thread: the kiosk's thread never waits for a PDF.
extension ClassroomScreen {
    /// Where a worksheet's page is fitted: the screen below the toolbar.
    public var pageArea: Rect {
        let top = (toolbarBottom + 1).rounded(.up)
        return Rect(x: 0, y: top, width: Double(style.metrics.size.width), height: max(1, Double(style.metrics.size.height) - top))
    }

    /// The toolbar's height (its rows depend only on the screen's width and the words).
    private var toolbarBottom: Double {
        let s = style, t = settings.text
        var row = RowLayout(origin: .zero, width: Double(s.metrics.size.width), height: s.target, gap: s.gap)
        for label in [t.pen, t.calligraphy, t.highlighter, t.eraser] { _ = row.next(s.width(label)) }
        row.space(s.gap * 2)
        for _ in 0...settings.widths.count { _ = row.next(s.target) }
        row.space(s.gap * 2)
        for label in [t.undo, t.redo, t.clearPage] { _ = row.next(s.width(label)) }
        row.space(s.gap * 2)
        _ = row.next(s.target); _ = row.next(s.width("1000 / 1000")); _ = row.next(s.target)
        _ = row.next(s.width(t.newPage))
        row.space(s.gap * 2)
        _ = row.next(s.width(t.save)); _ = row.next(s.width(t.worksheets))
        return row.bottom
    }

    /// For the status line: the worksheet's page shown, and whether its paper is under the ink yet.
    public func status(_ pipeline: FramePipeline) -> String? {
        guard let sheet = pipeline.notebook.worksheet, let n = pipeline.notebook.worksheetPage(at: pipeline.notebook.current) else {
            return pipeline.notebook.worksheet.map { "worksheet \($0.title): a blank page" }
        }
        if opened == nil && lookedFor == sheet.sha256 && !loadingSheet { return "worksheet \(sheet.title): its file is gone" }
        let shown = pipeline.papers[pipeline.notebook.current].map { $0.backdrop == pipeline.renderer.paperID } ?? false
        return "worksheet \(sheet.title): page \(n) " + (shown ? "on screen" : "without its paper yet")
    }

    func openShelf(_ context: ScreenContext) {
        let shelfSettings = settings.worksheets
        let panel = Rect(x: style.gap * 2, y: pageArea.minY + style.gap * 2, width: pageArea.width - style.gap * 4,
                         height: pageArea.height - style.gap * 4)
        let opened = ShelfPanel(panel: panel, style: style)
        shelf = opened
        let started = monotonicNow()
        sheets.run({ shelfSettings.listedFiles() }) { [weak self] listed in
            guard let self, shelf?.listing === opened.listing, case .success(let files) = listed else { return }
            shelf?.entries = files.paths.map(WorksheetShelf.Entry.unchecked)
            shelf?.more = files.more
            readRows(files.paths, from: 0, listing: opened.listing, started: started, context)
        }
    }

    /// The listed PDFs read a few at a time on poppler's thread, each few shown as they come:
    /// a stick full of scans fills the list row by row. The next few are asked for only when
    /// these arrive, so a worksheet chosen meanwhile does not wait behind the whole list.
    private func readRows(_ paths: [String], from start: Int, listing: ShelfPanel.Listing, started: Double,
                          _ context: ScreenContext) {
        let shelfSettings = settings.worksheets
        guard start < paths.count else {
            context.log.info(Logger.Message(stringLiteral: "worksheets: \(paths.count) listed from \(shelfSettings.folders.joined(separator: ", ")) in "
                        + String(cFormat: "%.0f ms", (monotonicNow() - started) * 1000)))
            return
        }
        let few = Array(paths[start..<min(start + ShelfPanel.rowsReadAtOnce, paths.count)])
        let height = Int(shelf?.thumbnailHeight ?? 64)
        sheets.run({ few.map { shelfSettings.entry($0, thumbnailHeight: height) } }) { [weak self] read in
            guard let self, shelf?.listing === listing, case .success(let entries) = read else { return }
            for (k, entry) in entries.enumerated() { shelf?.entries?[start + k] = entry }
            for refused in entries.compactMap(\.problem) { context.log.warning("worksheet refused: \(refused)") }
            readRows(paths, from: start + few.count, listing: listing, started: started, context)
        }
    }

    /// A row of the list was tapped: a worksheet that cannot be used says why; one that can is
    /// opened on poppler's thread (its first page's paper with it) while drawing goes on.
    func choose(_ index: Int, _ context: ScreenContext) {
        guard let entry = shelf?.entries?[safe: index] else { return }
        if let problem = entry.problem {
            message = Notice(UIText.format(settings.text.worksheetProblem, problem.detail), warning: true)
            context.log.warning("worksheet \(problem)")
            return
        }
        shelf = nil
        guard !loadingSheet else { return }
        loadingSheet = true
        message = Notice(UIText.format(settings.text.openingWorksheet, entry.name))
        load(entry.path, context) { [weak self] outcome in
            guard let self else { return }
            switch outcome {
            case .success(let sheet):
                pendingSheet = sheet
                openWhenSaved(context)
            case .failure(let error):
                loadingSheet = false
                let detail = (error as? WorksheetError)?.detail ?? "\(error)"
                message = Notice(UIText.format(settings.text.worksheetProblem, detail), warning: true)
                context.log.warning("worksheet \(error)")
            }
        }
    }

    /// Opens `path` on poppler's thread (a stick's file copied to the tablet first), with its
    /// SHA-256 and its first page's paper.
    private func load(_ path: String, _ context: ScreenContext, then: @escaping (Result<OpenedWorksheet, Error>) -> Void) {
        let shelfSettings = settings.worksheets, size = style.metrics.size, area = pageArea
        let started = monotonicNow()
        sheets.run({ () -> OpenedWorksheet in
            try OpenedWorksheet(shelfSettings.open(path), size: size, area: area)
        }) { outcome in
            if case .success(let s) = outcome {
                let copied = s.ref.file == path ? "" : ", copied to \(s.ref.file)"
                context.log.info(Logger.Message(stringLiteral: "worksheet \(path) (\(s.ref.pages) pages, sha256 \(s.ref.sha256.prefix(12))…\(copied)) read in "
                            + String(cFormat: "%.0f ms", (monotonicNow() - started) * 1000)
                            + "; pages fitted into --page-area \(Int(area.width))x\(Int(area.height))+\(Int(area.minX))+\(Int(area.minY))"))
                Self.logNotCopied(s, context)
            }
            then(outcome)
        }
    }

    /// A stick's worksheet that could not be kept on the tablet: its pages need the stick (the
    /// screen says so while it is open, `show`).
    private static func logNotCopied(_ sheet: OpenedWorksheet, _ context: ScreenContext) {
        guard let why = sheet.notCopied else { return }
        context.log.warning("worksheet \(sheet.ref.file) not copied to the tablet (\(why)): its pages and Save need the stick")
    }

    /// The notebook shown is saved before the worksheet replaces it (again, if ink came while
    /// it was being saved); if it cannot be saved, the worksheet is not opened.
    private func openWhenSaved(_ context: ScreenContext) {
        guard let sheet = pendingSheet else { return }
        let pipeline = context.pipeline
        let unsaved = !pipeline.notebook.isBlank && savedRevisions != pipeline.notebook.pages.map(\.revision)
        if unsaved {
            guard !saving else { return }   // the save under way calls back
            save(context) { [weak self] failure in
                guard let self else { return }
                guard let failure else { openWhenSaved(context); return }
                pendingSheet = nil
                loadingSheet = false
                message = Notice(UIText.format(settings.text.worksheetNotOpened, failure), warning: true)
                context.log.warning("worksheet \(sheet.ref.file) not opened: the notebook shown could not be saved (\(failure))")
            }
            return
        }
        pendingSheet = nil
        loadingSheet = false
        pipeline.open(sheet.ref)
        pipeline.setPaper(sheet.firstPaper, forPage: 0)
        opened = sheet
        savedRevisions = pipeline.notebook.pages.map(\.revision)
        message = Notice("\(sheet.ref.title): " + UIText.count(sheet.ref.pages, one: settings.text.worksheetOnePage, many: settings.text.worksheetPages))
        context.log.info("worksheet \(sheet.ref.file) opened: \(sheet.ref.pages) pages, sha256 \(sheet.ref.sha256)")
    }

    /// The page shown and its neighbours have their papers (rendered on poppler's thread, one
    /// at a time, the page shown first); pages further away give theirs up. A notebook restored
    /// on a worksheet opens it again first, found by its SHA-256.
    func keepWorksheetPapers(_ context: ScreenContext) {
        let pipeline = context.pipeline
        guard let ref = pipeline.notebook.worksheet else { opened = nil; return }
        guard let sheet = opened, sheet.ref.sha256 == ref.sha256 else {
            reopen(ref, context)
            return
        }
        let budget = settings.worksheets.cacheBytes
        pipeline.keepPapers(within: OpenedWorksheet.nearby, budget: budget)
        guard !sheet.painting else { return }
        let current = pipeline.notebook.current
        let wanted = [current, current + 1, current - 1, current + 2, current - 2]
        guard let page = wanted.first(where: { pipeline.notebook.worksheetPage(at: $0) != nil && pipeline.papers[$0] == nil
                                               && !sheet.failed.contains($0) })
        else { return }
        // A neighbour's paper only while another one of the size of the last fits the budget
        // (a scanned page takes about a screen of pixels); the page shown always gets one.
        if page != current, pipeline.paperBytes + sheet.lastPaperBytes > budget { return }
        sheet.painting = true
        let size = style.metrics.size, area = pageArea
        sheets.run({ try OpenedWorksheet.paper(sheet.sheet, page: page + 1, size: size, area: area) }) {
            [weak self] painted in
            sheet.painting = false
            guard let self, opened === sheet else { return }
            switch painted {
            case .success(let paper):
                sheet.lastPaperBytes = paper.bytes
                pipeline.setPaper(paper, forPage: page)
            case .failure(let error):
                context.log.warning("worksheet page \(page + 1): \(error)")
                sheet.failed.insert(page)
                // The helper crashed or stalled on it (the kiosk did not): the class is told, the page stays blank.
                if let e = error as? WorksheetError, e.kind == .crashed || e.kind == .stuck {
                    let text = e.kind == .stuck ? UIText.format(settings.text.worksheetStuck, "\(page + 1)")
                        : UIText.format(settings.text.worksheetProblem, e.detail)
                    message = Notice(text, warning: true)
                }
            }
            keepWorksheetPapers(context)
        }
    }

    /// After a restart: the worksheet's file where it was, or wherever the folders hold the
    /// same content; if it is gone, the ink stays on blank pages and the screen says so.
    private func reopen(_ ref: WorksheetRef, _ context: ScreenContext) {
        guard !loadingSheet, lookedFor != ref.sha256 else { return }
        lookedFor = ref.sha256
        loadingSheet = true
        let shelfSettings = settings.worksheets, size = style.metrics.size, area = pageArea
        sheets.run({ () -> OpenedWorksheet? in
            guard let path = shelfSettings.find(ref) else { return nil }
            return try OpenedWorksheet(shelfSettings.open(path), size: size, area: area)
        }) { [weak self] outcome in
            guard let self else { return }
            loadingSheet = false
            let pipeline = context.pipeline
            guard pipeline.notebook.worksheet?.sha256 == ref.sha256 else { return }
            if case .success(let found?) = outcome {
                opened = found
                pipeline.setPaper(found.firstPaper, forPage: 0)
                context.log.info("worksheet \(found.ref.file) opened again (sha256 \(ref.sha256))")
                Self.logNotCopied(found, context)
                keepWorksheetPapers(context)
            } else {
                opened = nil
                pipeline.dropPapers()
                let why: String
                if case .failure(let error) = outcome { why = "\(error)" } else { why = "no file with its SHA-256 in \(shelfSettings.folders.joined(separator: ", "))" }
                if case .failure(let error as WorksheetError) = outcome, error.kind == .crashedBefore {
                    message = Notice(UIText.format(settings.text.worksheetProblem, error.detail), warning: true)
                } else {
                    message = Notice(UIText.format(settings.text.worksheetGone, ref.title), warning: true)
                }
                context.log.warning("worksheet \(ref.file) (sha256 \(ref.sha256)) cannot be opened again: \(why); its ink is shown on blank pages")
            }
        }
    }
}

/// A worksheet open under the notebook. Its document is used on poppler's thread only.
/// `painting`, `failed` and `lastPaperBytes` are used only on the kiosk's thread (`keepWorksheetPapers`, outcomes
/// `deliver`ed by `sheets`); the rest is set in init, on poppler's thread, and handed over by `sheets`.
final class OpenedWorksheet: @unchecked Sendable {
    /// Papers kept on each side of the page shown.
    static let nearby = 2
    let sheet: Worksheet
    let ref: WorksheetRef
    let firstPaper: PageSnapshot
    /// A page's paper is being rendered (one at a time: the page shown is never queued behind others).
    var painting = false
    var failed: Set<Int> = []
    /// Page `page` (1 for the first) on its desk, as the screen shows it under the ink (poppler's thread only).
    static func paper(_ sheet: Worksheet, page: Int, size: PixelSize, area: Rect) throws -> PageSnapshot {
        let backdrop = try sheet.page(page)
        let paper = try Exporter(size: size, background: .color(.white), backdrop: backdrop, pageArea: area).paper()
        if let failed = backdrop.takeFailure() { throw failed }
        return paper
    }

    /// The size of the last paper made (the next one's likely size).
    var lastPaperBytes: Int
    /// Why a stick's worksheet is open from the stick, not from a copy on the tablet.
    let notCopied: String?
    var file: String { ref.file }
    /// A worksheet just opened, its first page's paper drawn (poppler's thread).
    init(_ opened: (sheet: Worksheet, ref: WorksheetRef, notCopied: String?), size: PixelSize, area: Rect) throws {
        sheet = opened.sheet; ref = opened.ref; notCopied = opened.notCopied
        firstPaper = try Self.paper(opened.sheet, page: 1, size: size, area: area)
        lastPaperBytes = firstPaper.bytes
    }
}

/// What Save needs of the worksheet: its file (checked against the SHA-256 again, it may have
/// been replaced), where its pages lie, and the limits it is opened with.
struct SavedWorksheet: Sendable {
    let ref: WorksheetRef
    let file: String?
    let area: Rect
    let limits: Worksheet.Limits
    let watch: PopplerWatch?
    /// A helper of the save's own (the list's may be busy with a page): started by the first page, ended with the save.
    let helper: PDFHelper

    /// Its pages, opened on the saving thread in the save's own helper; none, with a note,
    /// when the file is gone or changed.
    func pages() -> ([PageBackdrop], String?) {
        guard let file else { return ([], "worksheet \(ref.title): its file is not open; its ink is saved on blank pages") }
        do {
            guard try Worksheet.sha256(of: file, maxBytes: limits.maxBytes) == ref.sha256 else {
                return ([], "worksheet \(file) changed since it was opened; its ink is saved on blank pages")
            }
            let sheet = try Worksheet(path: file, limits: limits, watch: watch, helper: helper)
            return (try (1...sheet.pageCount).map { try sheet.page($0) }, nil)
        } catch {
            return ([], "worksheet: \(error); its ink is saved on blank pages")
        }
    }
}

/// A save's file names (`TITLE-DATE.pdf`, `TITLE-DATE-pageN.png`) from a worksheet's title.
/// The title comes from a teacher's PDF: only letters (with their accents and other marks),
/// digits, '-' and '_' are kept, anything else ('/', '.', control characters, spaces) is '-';
/// and it is cut so that the longest of the names has at most `maxBytes` bytes (file systems
/// allow 255; sixty letters of four bytes each were already more), between two characters as
/// the screen shows them (never inside a UTF-8 sequence or between a letter and its accent).
/// The date and the extension are always kept whole.
enum SaveName {
    /// The most bytes a saved file's name has, its date and extension included.
    static let maxBytes = 100

    /// `TITLE-DATE` (without the directory, `.pdf` or `-pageN.png`): the title cut so that the
    /// longest name of a save of `pages` pages fits `maxBytes`; nil title: a notebook.
    static func base(title: String?, date: String, pages: Int) -> String {
        let suffix = max(".pdf".utf8.count, "-page\(max(pages, 1)).png".utf8.count)
        let budget = maxBytes - 1 - date.utf8.count - suffix
        return "\(title.map { stem($0, maxBytes: budget) } ?? "notebook")-\(date)"
    }

    /// The title as a file name's first part, at most `maxBytes` bytes ("worksheet" when nothing of it is left).
    static func stem(_ title: String, maxBytes: Int = 60) -> String {
        var kept = String.UnicodeScalarView()
        var afterKept = false   // a mark is kept only on a letter or digit kept before it
        for s in title.unicodeScalars {
            let letter = s.properties.isAlphabetic || ("0"..."9").contains(s)
            let mark = [.nonspacingMark, .spacingMark, .enclosingMark].contains(s.properties.generalCategory)
            if letter || (mark && afterKept) {
                kept.append(s)
                afterKept = true
            } else {
                kept.append(s == "_" ? "_" : "-")
                afterKept = false
            }
        }
        let words = String(kept).split(separator: "-", omittingEmptySubsequences: true).joined(separator: "-")
        var out = "", bytes = 0
        for c in words {   // whole characters (grapheme clusters), so no letter loses its accent or half its bytes
            bytes += c.utf8.count
            if bytes > maxBytes { break }
            out.append(c)
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "worksheet" : out
    }
}

extension ScreenAction {
    /// One of the worksheets list's own controls.
    var isShelf: Bool {
        switch self {
        case .closeWorksheets, .chooseWorksheet, .worksheetRows: return true
        default: return false
        }
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
