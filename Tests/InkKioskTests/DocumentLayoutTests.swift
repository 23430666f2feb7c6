// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
import InkDocument
@testable import InkKiosk

/// Where a document's field goes on the signature screen: pure geometry, no device.
@Suite struct DocumentLayoutTests {
    let layout = DocumentLayout(area: Rect(x: 16, y: 80, width: 1248, height: 640))

    @Test func aWideFieldTakesTheWholeWidthWithItsAspectKeptAndCentredDown() {
        let box = layout.writingBox(for: PDFRect(72, 150, 282, 210))   // 210 × 60 pt
        #expect(box == Rect(x: 16, y: 222, width: 1248, height: 357))
        let tall = layout.writingBox(for: PDFRect(0, 0, 100, 200))      // 1 : 2 takes the height
        #expect(tall.height == 640 && tall.width == 320 && tall.minX == 16 + 464)
    }

    @Test func thePageIsDrawnSoThatTheFieldLiesExactlyOnTheBox() {
        let page = PDFRect(0, 0, 595, 842), field = PDFRect(72, 150, 282, 210)
        let box = layout.writingBox(for: field)
        let area = DocumentLayout.pageArea(showing: field, of: page, in: box)
        // As the page is drawn (fitted into the area, y down from the page's top).
        let fit = PageFit(pageWidth: page.width, pageHeight: page.height, into: area)
        let topLeft = fit.toScreen(Point(field.x0 - page.x0, page.y1 - field.y1))
        let bottomRight = fit.toScreen(Point(field.x1 - page.x0, page.y1 - field.y0))
        #expect(abs(topLeft.x - box.minX) < 0.5 && abs(topLeft.y - box.minY) < 0.5, "\(topLeft) \(box)")
        #expect(abs(bottomRight.x - box.maxX) < 1 && abs(bottomRight.y - box.maxY) < 1, "\(bottomRight) \(box)")
        // A crop box that does not start at 0, 0 moves the page, not the field.
        let cropped = PDFRect(20, 30, 615, 872), moved = PDFRect(92, 180, 302, 240)
        let a2 = DocumentLayout.pageArea(showing: moved, of: cropped, in: box)
        #expect(abs(a2.minX - area.minX) < 1e-9 && abs(a2.minY - area.minY) < 1e-9)
    }

    @Test func touchesAroundTheBoxAreNoInkAndTheButtonsStayButtons() {
        let box = Rect(x: 16, y: 222, width: 1248, height: 357)
        let around = layout.around(box, screenWidth: 1280, bottom: 728)
        for p in [Point(5, 5), Point(640, 100), Point(640, 700), Point(8, 400), Point(1272, 400)] {
            #expect(around.contains { $0.contains(p) }, "\(p) is no ink")
        }
        for p in [Point(640, 400), Point(20, 230), Point(1260, 575)] {
            #expect(!around.contains { $0.contains(p) }, "\(p) is in the box")
        }
        #expect(!around.contains { $0.maxY > 728 }, "the bar is the buttons' own")
    }
}
