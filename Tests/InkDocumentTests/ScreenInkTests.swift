// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkDocument

/// A blank A4 page (no form) to put new signature fields on.
private func blankPage() -> [UInt8] {
    TestPDFs.classic([
        .plain("<< /Type /Catalog /Pages 2 0 R >>"),
        .plain("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
        .plain("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"),
    ])
}

/// A pen stroke of constant width `width` pixels through `points` (screen pixels, y down).
private func penStroke(_ points: [Point], width: Double, id: Int = 1) -> Stroke {
    let brush = Brush(tool: .pen, color: .ink, width: width, pressureCurve: .linear)
    let samples = points.enumerated().map { Sample(location: $1, pressure: 1, time: Double($0) * 0.01) }
    return Stroke(id: id, brush: brush, source: .pen(device: 1), samples: samples, state: .done)
}

private func circle(center c: Point, radius r: Double, samples n: Int = 72) -> [Point] {
    (0...n).map { i in c + Point.direction(angle: 2 * .pi * Double(i) / Double(n)) * r }
}

/// The box (page pixels at 72 dpi, y down) of what the update drew clearly dark.
private func inkBox(before: GrayImage, after: GrayImage) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
    var box: (Int, Int, Int, Int)?
    for y in 0..<after.height {
        for x in 0..<after.width where before[x, y] >= 250 && after[x, y] < 128 {
            box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
        }
    }
    return box.map { (minX: $0.0, minY: $0.1, maxX: $0.2, maxY: $0.3) }
}

@Suite struct ScreenInkIntoFields {
    /// The screen area is 3:1, the field 2:1: one scale (0.5 pt a pixel), the area centred
    /// top to bottom. A circle stays round, inside the field, where the mapping puts it.
    @Test func aCircleDrawnOnScreenStaysACircleInsideTheField() throws {
        let area = Rect(x: 100, y: 200, width: 600, height: 200)
        let rect = PDFRect(100, 300, 400, 450)
        let stroke = penStroke(circle(center: Point(400, 300), radius: 80), width: 10)
        let ink = try VectorInk(strokes: [stroke], shownIn: area, fieldSize: (rect.width, rect.height))
        #expect(ink.paths.count == 1)
        #expect(ink.paths.first?.painting == .stroke(width: 5, cap: .round, join: .round), "10 px at 0.5 pt a pixel")

        let original = blankPage()
        let document = try PDFDocument(bytes: original)
        let updated = try InkSigning.sign(document, with: ink, at: .newField(name: "customer", pageIndex: 0, rect: rect))
        let dir = try Tools.directory("screen-circle")
        let page = try document.pages()[0]
        let outcome = try SignedFileCheck.verify(updated, original: original, name: "circle", directory: dir, page: page, inkedRects: [rect])

        let before = try Tools.render("\(dir)/circle.pdf", page: 0), after = try Tools.render(outcome.signedPath, page: 0)
        let box = try #require(inkBox(before: before, after: after))
        let width = Double(box.maxX - box.minX + 1), height = Double(box.maxY - box.minY + 1)
        // Diameter 160 px and a 10 px line: 85 pt across, both ways.
        #expect(abs(width - height) <= 2, "the circle is \(width) × \(height) pixels on the page")
        #expect(abs(width - 85) <= 2.5, "\(width) pixels across")
        // Its centre: 150 pt into the field, 25 pt inset + 50 pt down from its top (842 − 450).
        let centre = (x: Double(box.minX + box.maxX) / 2, y: Double(box.minY + box.maxY) / 2)
        #expect(abs(centre.x - 250) <= 1.5 && abs(centre.y - (842 - 450 + 75)) <= 1.5, "centre at \(centre)")
    }

    /// The same line in a field twice as large is twice as thick; anything outside the area
    /// that showed the field is cut off at the field's edge.
    @Test(arguments: [(PDFRect(100, 500, 300, 560), 4.0), (PDFRect(100, 300, 500, 420), 8.0)])
    func widthsScaleWithTheField(rect: PDFRect, points: Double) throws {
        let area = Rect(x: 0, y: 0, width: 500, height: 150)
        let line = penStroke([Point(50, 75), Point(250, 75), Point(450, 75)], width: 10)
        let stray = penStroke([Point(-200, 75), Point(-20, 75)], width: 10, id: 2)
        let ink = try VectorInk(strokes: [line, stray], shownIn: area, fieldSize: (rect.width, rect.height))
        #expect(ink.paths.map(\.painting) == [.stroke(width: points, cap: .round, join: .round), .stroke(width: points, cap: .round, join: .round)])

        let original = blankPage()
        let document = try PDFDocument(bytes: original)
        let updated = try InkSigning.sign(document, with: ink, at: .newField(name: "w", pageIndex: 0, rect: rect))
        let dir = try Tools.directory("screen-width-\(Int(points))")
        let outcome = try SignedFileCheck.verify(updated, original: original, name: "line", directory: dir,
                                                 page: try document.pages()[0], inkedRects: [rect])
        let before = try Tools.render("\(dir)/line.pdf", page: 0), after = try Tools.render(outcome.signedPath, page: 0)
        // Dark pixels down the field's middle column: the line's thickness.
        let column = Int((rect.x0 + rect.x1) / 2)
        let thickness = (0..<after.height).filter { after[column, $0] < 128 && before[column, $0] >= 250 }.count
        #expect(abs(Double(thickness) - points) <= 1.5, "\(thickness) pixels thick, \(points) expected")
        let box = try #require(inkBox(before: before, after: after))
        #expect(Double(box.minX) >= rect.x0 - 1 && Double(box.maxX) <= rect.x1 + 1, "ink from \(box.minX) to \(box.maxX)")
    }

    @Test func anAreaTallerThanTheFieldIsCentredAcross() throws {
        let fit = try ScreenToField(area: Rect(x: 10, y: 20, width: 100, height: 200), fieldSize: (200, 100))
        #expect(fit.scale == 0.5 && fit.inset.x == 75 && fit.inset.y == 0)
        #expect(fit.point(Point(10, 20)) == Point(75, 100), "top left of the area: top of the field, centred")
        #expect(fit.point(Point(110, 220)) == Point(125, 0), "bottom right")
    }

    @Test func coloursAndOpacityStayAndDotsAreCircles() throws {
        let highlighter = Stroke(id: 1, brush: .standard(.highlighter), source: .pen(device: 1),
                                 samples: [Sample(location: Point(5, 5), pressure: 1, time: 0)], state: .done)
        let ink = try VectorInk(strokes: [highlighter], shownIn: Rect(x: 0, y: 0, width: 10, height: 10), fieldSize: (20, 20))
        let path = try #require(ink.paths.first)
        #expect(path.color == RGBA.highlighterYellow.withAlpha(102 / 255))
        #expect(path.painting == .fill())
        #expect(path.segments.first == .move(Point(10 + 26, 10)), "a dot of 26 px is a circle of 26 pt radius round the centre")
        #expect(path.segments.count == 6 && path.segments.last == .close)
    }

    @Test func aCircleGivenAsSuchIsWrittenAsFourBeziers() throws {
        let ink = VectorInk([InkPath([.circle(center: Point(50, 30), radius: 20)], painting: .fill(), color: .ink)])
        let content = String(decoding: try InkAppearance(ink).content, as: UTF8.self)
        #expect(content.contains("70 30 m\n") && content.components(separatedBy: " c\n").count == 5 && content.contains("h\nf\n"), "\(content)")
    }

    @Test func anAreaOrFieldWithoutSizeIsRefused() {
        #expect(throws: PDFError.self) { try VectorInk(strokes: [], shownIn: Rect(x: 0, y: 0, width: 0, height: 10), fieldSize: (10, 10)) }
        #expect(throws: PDFError.self) { try VectorInk(strokes: [], shownIn: Rect(x: 0, y: 0, width: 10, height: 10), fieldSize: (.nan, 10)) }
    }
}
