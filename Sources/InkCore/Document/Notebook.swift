// SPDX-License-Identifier: Apache-2.0
/// Pages of drawings, one shown at a time (the classroom's notebook; a signature is one page).
/// Each page keeps its own undo history.
public struct Notebook: Sendable {
    public private(set) var pages: [Document]
    public private(set) var current = 0
    /// The worksheet whose pages lie under the first pages, if the notebook was opened on one.
    public private(set) var worksheet: WorksheetRef?
    /// How many steps undo reaches back on each page.
    public let undoDepth: Int
    /// Edits not yet handed to the journal, in order.
    private var edits: [NotebookEdit] = []

    /// The most pages a notebook has: New page stops there, and a journal that names a page
    /// beyond it is damaged (the writer and the reader share this one limit).
    public static let maxPages = 1000

    public init(undoDepth: Int = Document.defaultUndoDepth) {
        self.undoDepth = undoDepth
        pages = [Document(undoDepth: undoDepth)]
    }

    /// Whether another page may be added.
    public var canAddPage: Bool { pages.count < Self.maxPages }

    /// The page on screen.
    public var page: Document {
        get { pages[current] }
        _modify { yield &pages[current] }
    }

    public var count: Int { pages.count }
    /// No ink on any page.
    public var isBlank: Bool { pages.allSatisfy(\.isEmpty) }

    /// Adds an empty page after the last one and turns to it. The page being left keeps its
    /// strokes; one still being drawn ends where it is.
    public mutating func addPage() {
        guard canAddPage else { return }
        leave()
        pages.append(Document(undoDepth: undoDepth))
        current = pages.count - 1
        edits.append(.addPage)
    }

    /// Turns to page `index` (0-based); out of range does nothing.
    public mutating func turn(to index: Int) {
        guard pages.indices.contains(index), index != current else { return }
        leave()
        current = index
        edits.append(.turn(to: index))
    }

    /// Starts over with one empty page (a signature accepted, cancelled or timed out).
    public mutating func reset() {
        pages = [Document(undoDepth: undoDepth)]
        current = 0
        worksheet = nil
        edits.removeAll()
    }

    /// Starts a new notebook on `sheet`: one empty page per worksheet page, the first shown.
    /// The pages before are gone (the screen saves them first).
    public mutating func open(_ sheet: WorksheetRef) {
        leave()
        collectPageEdits()
        (pages, current, worksheet) = Self.pages(for: sheet, undoDepth: undoDepth)
        edits.append(.openWorksheet(sheet))
    }

    private static func pages(for sheet: WorksheetRef, undoDepth: Int) -> ([Document], Int, WorksheetRef) {
        (Array(repeating: Document(undoDepth: undoDepth), count: min(max(sheet.pages, 1), maxPages)), 0, sheet)
    }

    /// The worksheet page (1 for the first) under notebook page `index`; nil for a blank page.
    public func worksheetPage(at index: Int) -> Int? {
        guard let worksheet, index >= 0, index < worksheet.pages else { return nil }
        return index + 1
    }

    private mutating func leave() {
        pages[current].finishActive()
        collectPageEdits()
        _ = pages[current].takeChanges()
    }

    private mutating func collectPageEdits() {
        edits += pages[current].takeEdits().map { .page(current, $0) }
    }

    /// Finished edits since the last call, in order: what the journal keeps.
    public mutating func takeEdits() -> [NotebookEdit] {
        collectPageEdits()
        defer { edits.removeAll() }
        return edits
    }

    /// Rebuilds the pages from journalled edits (after a restart), with their undo histories
    /// and the page that was on screen.
    public mutating func restore(_ journal: [NotebookEdit]) {
        var perPage: [[DocumentEdit]] = [[]]
        var shown = 0
        var sheet: WorksheetRef?
        for edit in journal {
            switch edit {
            case .openWorksheet(let ref):
                perPage = Array(repeating: [], count: min(max(ref.pages, 1), Self.maxPages))
                shown = 0
                sheet = ref
            case .addPage:
                guard perPage.count < Self.maxPages else { continue }
                perPage.append([])
                shown = perPage.count - 1
            case .turn(let index):
                if perPage.indices.contains(index) { shown = index }
            case .page(let index, let e):
                guard index >= 0, index < Self.maxPages else { continue }
                while perPage.count <= index { perPage.append([]) }   // tolerate a lost add-page record
                perPage[index].append(e)
            }
        }
        pages = perPage.map { edits in
            var d = Document(undoDepth: undoDepth)
            d.restore(edits)
            return d
        }
        current = shown
        worksheet = sheet
        edits.removeAll()
    }
}

extension Notebook {
    /// The shortest edits that rebuild this notebook: every page's ink and undo history, and
    /// the page on screen (what a compacted journal holds). Strokes still being drawn are not in it.
    public func compacted() -> [NotebookEdit] {
        var out: [NotebookEdit] = worksheet.map { [.openWorksheet($0)] } ?? []
        let given = worksheet.map { min(max($0.pages, 1), Self.maxPages) } ?? 1
        for (index, page) in pages.enumerated() {
            if index >= given { out.append(.addPage) }
            out += page.compacted().map { .page(index, $0) }
        }
        if current != pages.count - 1 { out.append(.turn(to: current)) }
        return out
    }
}

/// One finished change to the notebook, in the order it happened.
public enum NotebookEdit: Sendable, Equatable {
    case page(Int, DocumentEdit)
    case addPage
    case turn(to: Int)
    /// A new notebook on a worksheet's pages (the pages before are gone).
    case openWorksheet(WorksheetRef)
}
