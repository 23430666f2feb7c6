// SPDX-License-Identifier: Apache-2.0
import InkCore
import InkDocument
import InkRender
import InkWorksheet

/// Where a document goes on the signature screen: its pages fitted between the banner and the
/// button bar while they are read; then its signature field enlarged (its aspect kept) to
/// the largest box that fits there, the page around it shown at the same scale.
struct DocumentLayout: Equatable {
    /// Between the banner and the button bar, inside the margins.
    var area: Rect

    /// The box the field is written in: as wide or as tall as `area` allows, centred.
    func writingBox(for field: PDFRect) -> Rect {
        let scale = min(area.width / field.width, area.height / field.height)
        let w = (field.width * scale).rounded(), h = (field.height * scale).rounded()
        return Rect(x: (area.minX + (area.width - w) / 2).rounded(), y: (area.minY + (area.height - h) / 2).rounded(), width: w, height: h)
    }

    /// The screen rectangle the whole visible page (`page`, the crop box) takes when `field`
    /// on it is shown exactly on `box`: what the page is drawn into (points are y up, the
    /// screen y down).
    static func pageArea(showing field: PDFRect, of page: PDFRect, in box: Rect) -> Rect {
        let scale = box.width / field.width
        return Rect(x: box.minX - (field.x0 - page.x0) * scale, y: box.minY - (page.y1 - field.y1) * scale,
                    width: page.width * scale, height: page.height * scale)
    }

    /// The parts of the screen around `box` above `bottom` (the button bar's top): touches
    /// there are no ink, so a signature is not started outside the field.
    func around(_ box: Rect, screenWidth: Double, bottom: Double) -> [Rect] {
        [Rect(x: 0, y: 0, width: screenWidth, height: box.minY),
         Rect(x: 0, y: box.maxY, width: screenWidth, height: max(0, bottom - box.maxY)),
         Rect(x: 0, y: box.minY, width: box.minX, height: box.height),
         Rect(x: box.maxX, y: box.minY, width: max(0, screenWidth - box.maxX), height: box.height)]
            .filter { $0.width > 0 && $0.height > 0 }
    }
}

/// One host request on a document, as the screen goes through it: opening the file (in the
/// PDF helper, on the sheets' thread), its pages read, then the signing view.
final class DocumentSession {
    enum Phase: Equatable {
        case opening
        case review(page: Int)
        case signing
    }

    let document: DocumentToSign
    var phase = Phase.opening
    /// The pages shown so far (1-based), in the order they were.
    var shown: [Int] = []
    var seen: Set<Int> { Set(shown) }
    /// Page count as the PDF reader found it (at most the document's).
    var pages: Int
    /// A page or the signing view being drawn on the sheets' thread: presses wait for it.
    var drawing = false
    /// The signing view's paper, kept: Clear takes the paper away with the ink.
    var signingPaper: PageSnapshot?
    /// Where the field is on screen in the signing view.
    var box: Rect?
    /// The PDF helper's view of the file.
    var sheet: Worksheet?

    init(_ document: DocumentToSign) {
        self.document = document
        pages = document.pageCount
    }

    /// Every page the host asked to be shown was.
    var reviewed: Bool { document.pagesToReview.subtracting(seen).filter { $0 <= pages }.isEmpty }
}
