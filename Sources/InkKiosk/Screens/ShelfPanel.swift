// SPDX-License-Identifier: Apache-2.0
import InkConfig
import InkCore
import InkRender
import InkWorksheet

/// The Worksheets list over the page area: a row a finger can hit per PDF (first page, name,
/// page count, or what is wrong with it), Close, and Previous / Next when they do not all fit.
struct ShelfPanel {
    /// Which opening of the list this is: rows read for an earlier one are not shown in it.
    final class Listing {}
    /// PDFs read for the list per job on poppler's thread.
    static let rowsReadAtOnce = 4
    let listing = Listing()
    let panel: Rect
    let style: ScreenStyle
    /// nil while poppler's thread lists the folders.
    var entries: [WorksheetShelf.Entry]? {
        didSet { pictures = (entries ?? []).map { $0.thumbnail.map(UIImage.init) } }
    }
    /// The first pages as the controls' pictures, made once (a picture is compared by identity).
    private var pictures: [UIImage?] = []
    /// PDFs beyond the list's limit, not listed.
    var more = 0
    /// The first row shown.
    private(set) var first = 0

    init(panel: Rect, style: ScreenStyle) { self.panel = panel; self.style = style }

    private var rowHeight: Double { (style.target * 1.6).rounded() }
    var thumbnailHeight: Double { rowHeight - style.gap * 2 }
    private var header: Rect { Rect(x: panel.minX, y: panel.minY, width: panel.width, height: style.target + style.gap * 2) }
    private var footerTop: Double { panel.maxY - style.target - style.gap * 2 }
    /// Rows that fit between the header and the footer.
    var rowsShown: Int { max(1, Int((footerTop - header.maxY) / (rowHeight + style.gap))) }

    mutating func turn(forward: Bool) {
        let count = entries?.count ?? 0
        first = forward ? min(first + rowsShown, max(0, count - 1)) : max(0, first - rowsShown)
    }

    private func rowRect(_ k: Int) -> Rect {
        Rect(x: panel.minX + style.gap * 2, y: header.maxY + Double(k) * (rowHeight + style.gap),
             width: panel.width - style.gap * 4, height: rowHeight)
    }

    func controls(text: UIText) -> [Control] {
        let s = style
        let closeWidth = s.width(text.close)
        var out = [Control(.closeWorksheets, Rect(x: header.maxX - closeWidth - s.gap * 2, y: header.minY + s.gap, width: closeWidth, height: s.target),
                           text.close)]
        guard let entries else { return out }
        let shown = entries.indices.dropFirst(first).prefix(rowsShown)
        for (k, i) in shown.enumerated() {
            out.append(Control(.chooseWorksheet(i), rowRect(k), ""))   // a bad one, tapped, says what is wrong
        }
        let y = footerTop + s.gap
        if first > 0 { out.append(Control(.worksheetRows(forward: false), Rect(x: panel.minX + s.gap * 2, y: y, width: s.target * 2, height: s.target), "◀")) }
        if first + rowsShown < entries.count {
            out.append(Control(.worksheetRows(forward: true), Rect(x: panel.maxX - s.gap * 2 - s.target * 2, y: y, width: s.target * 2, height: s.target), "▶"))
        }
        return out
    }

    /// The panel, its title, each row's picture and words, and the controls over them.
    func elements(_ controls: [Control], text: UIText, folders: [String], pressed: Set<ScreenAction>) -> [UIElement] {
        let s = style
        let ink = RGBA(0.1, 0.1, 0.15)
        var out: [UIElement] = [.box(panel, fill: RGBA(0.97, 0.97, 0.98), border: RGBA(0.4, 0.4, 0.45), radius: s.gap * 2)]
        out.append(.text(text.worksheets, in: Rect(x: header.minX + s.gap * 3, y: header.minY + s.gap, width: header.width / 2, height: s.target),
                         size: s.fontSize * 1.2, color: ink, align: .leading, bold: true))
        for c in controls { out += c.elements(pressed: pressed.contains(c.action), fontSize: s.fontSize) }
        let line = Rect(x: panel.minX + s.gap * 3, y: header.maxY, width: panel.width - s.gap * 6, height: s.target)
        guard let entries else {
            out.append(.text("…", in: line, size: s.fontSize, color: ink, align: .leading))
            return out
        }
        if entries.isEmpty {
            out.append(.text(UIText.format(text.noWorksheets, folders.first ?? ""), in: line, size: s.fontSize, color: ink, align: .leading))
        }
        for c in controls {
            guard case .chooseWorksheet(let i) = c.action, let e = entries[safe: i] else { continue }
            let r = c.rect
            let picture = Rect(x: r.minX + s.gap, y: r.minY + s.gap, width: thumbnailHeight * 0.8, height: thumbnailHeight)
            if let thumbnail = pictures[safe: i] ?? nil { out.append(.image(thumbnail, in: picture)) }
            let words = Rect(x: picture.maxX + s.gap * 2, y: r.minY, width: r.maxX - picture.maxX - s.gap * 3, height: r.height / 2)
            out.append(.text(e.name, in: Rect(x: words.minX, y: words.minY + s.gap, width: words.width, height: words.height), size: s.fontSize, color: ink, align: .leading, bold: true))
            let detail = e.problem?.detail ?? (e.checked ? UIText.count(e.pages, one: text.worksheetOnePage, many: text.worksheetPages) : "…")
            out.append(.text(detail, in: Rect(x: words.minX, y: words.minY + r.height / 2 - s.gap, width: words.width, height: words.height), size: s.fontSize * 0.85,
                             color: e.problem == nil ? RGBA(0.3, 0.3, 0.35) : RGBA(0.7, 0.1, 0.1), align: .leading))
        }
        if more > 0 {
            out.append(.text("+\(more)", in: Rect(x: panel.minX + panel.width / 2 - s.target, y: footerTop + s.gap, width: s.target * 2, height: s.target),
                             size: s.fontSize, color: ink))
        }
        return out
    }
}
