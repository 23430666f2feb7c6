// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CCairo
import InkCore
import InkRender
import InkStorage
import InkWorksheet
import InkTestSupport
import InkWorksheetTestSupport

@Suite struct WorksheetPages {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("worksheets") }

    /// A pen line across the box of the page, drawn on a 1280x800 screen.
    func line(on fit: PageFit) -> Stroke {
        let from = fit.toScreen(Point(120, 420)), to = fit.toScreen(Point(470, 420))
        let samples = (0...40).map { i -> Sample in
            let t = Double(i) / 40
            return Sample(location: Point(from.x + (to.x - from.x) * t, from.y), pressure: 0.6, time: Double(i) / 200)
        }
        return Stroke(id: 1, brush: .standard(.pen), source: .pen(device: 1), samples: samples, state: .done)
    }

    @Test func aWorksheetTellsItsPagesAndName() throws {
        let path = "\(dir)/fractions.pdf"
        try Worksheets.make(path, pages: 3)
        let sheet = try Worksheet(path: path)
        #expect(sheet.pageCount == 3)
        #expect(sheet.name == "Fractions")
        let page = try sheet.page(2)
        #expect(abs(page.pageWidth - 595) < 0.5 && abs(page.pageHeight - 842) < 0.5)
        #expect(throws: WorksheetError.self) { try sheet.page(4) }
        try Worksheets.make("\(dir)/no title.pdf", pages: 1, title: nil)
        #expect(try Worksheet(path: "\(dir)/no title.pdf").name == "no title")
    }

    @Test func thePNGShowsThePageFittedWithTheInkOnIt() throws {
        let path = "\(dir)/sheet.pdf"
        try Worksheets.make(path)
        let page = try Worksheet(path: path).page(1)
        let screen = PixelSize(width: 1280, height: 800)
        let exporter = Exporter(size: screen, backdrop: page)
        let fit = try #require(exporter.pageFit)
        // A4 standing on a wide screen: as tall as the screen, centred, the desk left and right.
        #expect(abs(fit.rect.height - 800) < 0.01 && abs(fit.rect.minX - (1280 - fit.rect.width) / 2) < 0.01)
        let png = "\(dir)/sheet-page1.png"
        try exporter.png([line(on: fit)], to: png)
        let image = Screen(try ImageSurface.readPNG(png))
        // The desk around the page is grey, the paper white.
        let desk = image.image.pixel(x: 20, y: 400)
        #expect(desk.r < 230 && desk.r > 190)
        let paper = fit.toScreen(Point(300, 700))
        #expect(image.darkness(Int(paper.x), Int(paper.y)) < 0.02)
        // The worksheet's title text is there, where the page puts it.
        let t0 = fit.toScreen(Point(72, 64)), t1 = fit.toScreen(Point(330, 104))
        #expect(image.inkCount(x0: Int(t0.x), y0: Int(t0.y), x1: Int(t1.x), y1: Int(t1.y)) > 300)
        // The box's top edge, and the pen's line across the box.
        let edge = fit.toScreen(Point(300, 300))
        #expect(image.inkNear(Int(edge.x), Int(edge.y)))
        for x in stride(from: 150.0, through: 440, by: 29) {
            let p = fit.toScreen(Point(x, 420))
            #expect(image.hasInk(Int(p.x), Int(p.y)), "ink at page (\(x), 420)")
        }
        // Nothing between the line and the box's bottom edge.
        let below0 = fit.toScreen(Point(100, 440)), below1 = fit.toScreen(Point(500, 490))
        #expect(image.inkCount(x0: Int(below0.x), y0: Int(below0.y), x1: Int(below1.x), y1: Int(below1.y)) == 0)
    }

    @Test func thePDFKeepsThePageAsTextAndTheInkOnIt() throws {
        let path = "\(dir)/sheet2.pdf"
        try Worksheets.make(path)
        let page = try Worksheet(path: path).page(2)
        let exporter = Exporter(size: PixelSize(width: 1280, height: 800), backdrop: page)
        let fit = try #require(exporter.pageFit)
        let out = "\(dir)/sheet2-annotated.pdf"
        // Written by the PDF helper, the ink handed to it.
        _ = try DurableFile.produced(out, mode: 0o644) { try AnnotatedFile.write(.pdf, [(exporter, [line(on: fit)])], to: $0) }
        // The page's text is still text, and the page keeps its size.
        let text = try run("/usr/bin/pdftotext", [out, "-"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("Worksheet 2"))
        let info = try run("/usr/bin/pdfinfo", [out])
        #expect(info.stdout.contains("595 x 842 pts"))
        // Rasterised at 72 dpi (1 px = 1 pt): the ink lies across the box, where the pen went on the page.
        let prefix = "\(dir)/sheet2-annotated"
        #expect(try run("/usr/bin/pdftoppm", ["-r", "72", "-png", "-singlefile", out, prefix]).status == 0)
        let image = Screen(try ImageSurface.readPNG(prefix + ".png"))
        for x in stride(from: 150, through: 440, by: 29) { #expect(image.inkNear(x, 420), "ink at (\(x), 420)") }
        #expect(image.inkCount(x0: 100, y0: 440, x1: 500, y1: 490) == 0)
        #expect(image.inkCount(x0: 72, y0: 64, x1: 330, y1: 104) > 300)
    }

    @Test func badFilesAreRefusedWithWhatIsWrong() throws {
        func refusal(_ path: String) -> WorksheetError? {
            do { _ = try Worksheet(path: path); return nil } catch let e as WorksheetError { return e } catch { return nil }
        }
        #expect(refusal("\(dir)/missing.pdf")?.kind == .unreadable)
        try Worksheets.write("\(dir)/empty.pdf", [])
        #expect(refusal("\(dir)/empty.pdf")?.kind == .empty)
        try Worksheets.write("\(dir)/photo.pdf", Array("\u{89}PNG\r\n\u{1a}\n not a pdf".utf8))
        #expect(refusal("\(dir)/photo.pdf")?.kind == .notPDF)
        // A PDF cut off after its header: poppler cannot find its pages.
        try Worksheets.make("\(dir)/whole.pdf")
        let good = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/whole.pdf"))
        try Worksheets.write("\(dir)/cut.pdf", Array(good.prefix(200)))
        let cut = refusal("\(dir)/cut.pdf")
        #expect(cut?.kind == .damaged)
        #expect(cut?.description.hasPrefix("\(dir)/cut.pdf: ") == true)
        try Worksheets.locked("\(dir)/locked.pdf")
        let locked = refusal("\(dir)/locked.pdf")
        #expect(locked?.kind == .passwordProtected)
        #expect(locked?.description.contains("password") == true)
        var small = Worksheet.Limits()
        small.maxPages = 1
        #expect(throws: WorksheetError.self) { try Worksheet(path: "\(dir)/whole.pdf", limits: small) }
        small = Worksheet.Limits()
        small.maxBytes = 100
        #expect(throws: WorksheetError.self) { try Worksheet(path: "\(dir)/whole.pdf", limits: small) }
    }
}

@Suite struct PageFits {
    @Test func aTallPageStandsCentredAndAWidePageLiesCentred() {
        let screen = Rect(x: 0, y: 0, width: 1280, height: 800)
        let a4 = PageFit(pageWidth: 595, pageHeight: 842, into: screen)
        #expect(abs(a4.scale - 800 / 842) < 1e-9)
        #expect(abs(a4.rect.minY) < 1e-9 && abs(a4.rect.minX - (1280 - 595 * 800 / 842) / 2) < 1e-9)
        // A4 on its side is still narrower than 16:10: as tall as the screen. A strip wider than
        // that spans the screen's width, with the desk above and below.
        let landscape = PageFit(pageWidth: 842, pageHeight: 595, into: screen)
        #expect(abs(landscape.rect.height - 800) < 1e-9 && abs(landscape.rect.minX - (1280 - 842 * 800 / 595) / 2) < 1e-9)
        let strip = PageFit(pageWidth: 842, pageHeight: 400, into: screen)
        #expect(abs(strip.rect.width - 1280) < 1e-9 && abs(strip.rect.minY - (800 - 400 * 1280 / 842) / 2) < 1e-9)
        let p = Point(300, 400)
        let back = a4.toPage(a4.toScreen(p))
        #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9)
    }
}
