// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkPDFHelper
import InkRender
import InkStorage

/// A PDF (a classroom's Save) or an SVG of ink over a worksheet's pages. Pages without a
/// worksheet page under them are drawn here; with one, the PDF helper writes the whole file
/// (poppler draws the page as it prints, text as text) and the ink is handed to it as its
/// strokes, drawn there by the same code as the screen's. The kiosk opens the file; the
/// helper only writes to the descriptor it is given.
public enum AnnotatedFile {
    public enum Format: String, Sendable { case pdf, svg }

    /// Writes `sheets` (one page each; an SVG has one) to `path`, which exists and is empty.
    public static func write(_ format: Format, _ sheets: [(exporter: Exporter, strokes: [Stroke])], to path: String) throws {
        let pages = sheets.map { $0.exporter.backdrop as? WorksheetPage }
        guard let worksheet = pages.compactMap({ $0?.worksheet }).first else {
            switch format {
            case .pdf: try Exporter.pdf(sheets: sheets, to: path)
            case .svg: try sheets.first.map { try $0.exporter.svg($0.strokes, to: path) }
            }
            return
        }
        guard pages.allSatisfy({ $0 == nil || $0?.worksheet === worksheet }) else {
            throw WorksheetError(kind: .unreadable, path: path, detail: "one file's pages come from one worksheet")
        }
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw SystemCallError("open", path: path) }
        defer { close(fd) }
        // The ink in a sealed memfd (the helper can only read it), its length first (the memfd is a whole number of pages).
        let ink = try StrokeTransfer.encode(sheets.map(\.strokes))
        var length = [UInt8]()
        withUnsafeBytes(of: UInt64(ink.count).littleEndian) { length.append(contentsOf: $0) }
        let shared = try SealedBytes(length + ink, name: "inkkiosk-ink")
        var request = HelperRequest(.write)
        request.format = format.rawValue
        request.sheets = sheets.map { sheet in
            let e = sheet.exporter
            let background: [Double]? = { if case .color(let c) = e.background { return [c.r, c.g, c.b, c.a] } else { return nil } }()
            return ExportSheet(page: (e.backdrop as? WorksheetPage)?.number, width: e.size.width, height: e.size.height,
                               area: e.pageArea.map { [$0.minX, $0.minY, $0.width, $0.height] }, background: background)
        }
        // A page at a time may take what one page may: the whole file, that much per page.
        _ = try Worksheet.asking(worksheet.path, page: pages.compactMap { $0?.number }.first ?? 1, watch: worksheet.watch) {
            try worksheet.helper.ask(request, on: worksheet.document, fds: [shared.fd, fd], patience: Double(sheets.count + 1))
        }
    }
}
