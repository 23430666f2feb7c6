// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkDocument

/// Real PDFs from other writers: cairo (through poppler's pdftocairo) and the PDFs Debian's
/// packages install as documentation (pdfTeX with cross-reference and object streams, MiKTeX
/// and Apache FOP with tables).
enum RealDocuments {
    /// The PDFs under /usr/share/doc (a .pdf.gz unpacked into `directory`), smallest first;
    /// when there are none, up to 8 from elsewhere under /usr/share (said so on the output).
    static func debianDocumentation(into directory: String) throws -> [(name: String, path: String)] {
        let documentation = try pdfs(under: "/usr/share/doc", into: directory)
        if !documentation.isEmpty { return documentation }
        let elsewhere = Array(try pdfs(under: "/usr/share", into: directory).prefix(8))
        print("no PDF under /usr/share/doc; read instead: \(elsewhere.map(\.path))")
        return elsewhere
    }

    private static func pdfs(under root: String, into directory: String) throws -> [(name: String, path: String)] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [(String, String, Int)] = []
        while let relative = enumerator?.nextObject() as? String {
            let path = "\(root)/\(relative)"
            let name = (relative as NSString).lastPathComponent
            if name.hasSuffix(".pdf") {
                found.append((name, path, (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0))
            } else if name.hasSuffix(".pdf.gz") {
                let unpacked = "\(directory)/\(name.dropLast(3))"
                let result = try Tools.run("/bin/sh", ["-c", "gzip -dc \"$0\" > \"$1\"", path, unpacked])
                guard result.status == 0 else { continue }
                found.append((String(name.dropLast(3)), unpacked, (try? FileManager.default.attributesOfItem(atPath: unpacked)[.size] as? Int) ?? 0))
            }
        }
        return found.sorted { $0.2 < $1.2 }.map { ($0.0, $0.1) }
    }

    /// A worksheet (Tests/e2e/worksheet_pdf.py: a heading, an empty box, lines of text) drawn
    /// again by cairo: no form, a table, streams with indirect /Length.
    static func cairoWorksheet(into directory: String, pages: Int = 2) throws -> [UInt8]? {
        guard let pdftocairo = Tools.pdftocairo, let python = Tools.which("python3") else { return nil }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("e2e/worksheet_pdf.py").path
        let made = try Tools.run(python, [script, "\(directory)/worksheet.pdf", "--pages", "\(pages)", "--lines", "6"])
        guard made.status == 0 else { return nil }
        let drawn = try Tools.run(pdftocairo, ["-pdf", "\(directory)/worksheet.pdf", "\(directory)/cairo.pdf"])
        guard drawn.status == 0 else { return nil }
        // cairo stamps the time it wrote the file: a fixed one of as many digits (the offsets
        // stay), so that the damaged copies made from this file are the same every run.
        var bytes = try Tools.read("\(directory)/cairo.pdf")
        let stamp = Array("/CreationDate (D:".utf8), fixed = Array("20260101000000".utf8)
        if let at = PDFParser.find(stamp, in: bytes, from: 0, to: bytes.count), bytes.count - at - stamp.count >= fixed.count {
            bytes.replaceSubrange((at + stamp.count)..<(at + stamp.count + fixed.count), with: fixed)
            try Tools.write(bytes, to: "\(directory)/cairo.pdf")
        }
        return bytes
    }

    static func pageCount(_ path: String) throws -> Int? {
        guard let pdfinfo = Tools.which("pdfinfo") else { return nil }
        let info = try Tools.run(pdfinfo, [path]).stdout
        return info.split(separator: "\n").first { $0.hasPrefix("Pages:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) }
    }

    static func milliseconds(_ d: Duration) -> String {
        String(format: "%.1f ms", Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    }
}

@Suite struct RealDocumentSigning {
    @Test func aCairoPDFGetsNewFieldsOnTwoPagesInTwoUpdates() throws {
        let dir = try Tools.directory("cairo")
        guard let original = try RealDocuments.cairoWorksheet(into: dir) else {
            Issue.record("pdftocairo (poppler-utils) or python3 is missing: no cairo-made PDF")
            return
        }
        let document = try PDFDocument(bytes: original)
        #expect(document.crossReference.newestFormat == .table)
        let signable = try document.signable()
        let form = try document.acroForm()
        #expect(signable.pages.count == 2 && signable.signatureFields.isEmpty && form == nil)
        // Inside the worksheet's empty box (72 pt from the left, 300 pt from the top, 450 x 200).
        let top = signable.pages[0].cropBox.y1
        let rect = PDFRect(100, top - 480, 400, top - 330)
        let first = try InkSigning.sign(document, with: TestPDFs.ink(width: rect.width, height: rect.height),
                                        at: .newField(name: "pupil", pageIndex: 0, rect: rect))
        try SignedFileCheck.verify(first, original: original, name: "cairo-first", directory: dir, page: signable.pages[0], inkedRects: [rect])
        let afterFirst = try PDFDocument(bytes: first.bytes)
        #expect(try afterFirst.acroForm()?["SigFlags"] == .integer(1), "a form made for the field")
        let second = try InkSigning.sign(afterFirst, with: TestPDFs.ink(width: rect.width, height: rect.height),
                                         at: .newField(name: "teacher", pageIndex: 1, rect: rect))
        try SignedFileCheck.verify(second, original: original, earlier: first.bytes, name: "cairo", directory: dir,
                                   page: signable.pages[1], inkedRects: [rect])
        // Page 1 still shows the first update's ink.
        let before = try Tools.render("\(dir)/cairo.pdf", page: 0), after = try Tools.render("\(dir)/cairo-signed.pdf", page: 0)
        #expect(RenderComparison(before: before, after: after, crop: signable.pages[0].cropBox, rects: [rect]).inked >= 100)
        let fields = try PDFDocument(bytes: second.bytes).signable().signatureFields
        #expect(fields.map(\.name) == ["pupil", "teacher"] && fields.map(\.pageIndex) == [0, 1] && fields.map(\.rect) == [rect, rect])
    }

    @Test func debianDocumentationPDFs() throws {
        let dir = try Tools.directory("debian-doc")
        let documents = try RealDocuments.debianDocumentation(into: dir)
        guard !documents.isEmpty else {
            Issue.record("no PDF under /usr/share on this machine: the real-document test has nothing to read")
            return
        }
        for (name, path) in documents {
            let original = try Tools.read(path)
            let clock = ContinuousClock()
            var document: PDFDocument?
            let read = try clock.measure { document = try PDFDocument(bytes: original) }
            let doc = try #require(document)
            var signable: SignableDocument?
            let discover = try clock.measure { signable = try doc.signable() }
            let pages = try #require(signable).pages
            // pdfinfo reads the bytes this test read: a copy (under qemu-user the test's own opens of
            // /usr/share go to the target's root first, while pdfinfo, a host program, reads the host's).
            let copy = "\(dir)/read-\(name)"
            try Data(original).write(to: URL(fileURLWithPath: copy))
            if let expected = try RealDocuments.pageCount(copy) { #expect(pages.count == expected, "\(name): pdfinfo's page count") }
            // Near the first page's lower left corner, where title pages are empty.
            let crop = pages[0].cropBox
            let rect = PDFRect(crop.x0 + 36, crop.y0 + 14, crop.x0 + 236, crop.y0 + 74)
            var updated: UpdatedPDF?
            let sign = try clock.measure {
                updated = try InkSigning.sign(doc, with: TestPDFs.ink(width: rect.width, height: rect.height),
                                              at: .newField(name: "customer", pageIndex: 0, rect: rect))
            }
            let signed = try #require(updated)
            try SignedFileCheck.verify(signed, original: original, name: (name as NSString).deletingPathExtension, directory: dir,
                                       page: pages[0], inkedRects: [rect])
            #expect(try PDFDocument(bytes: signed.bytes).crossReference.newestFormat == doc.crossReference.newestFormat)
            print("\(name): \(original.count) bytes, \(pages.count) pages, \(doc.crossReference.newestFormat), "
                  + "\(doc.crossReference.entries.count) objects; read \(RealDocuments.milliseconds(read)), "
                  + "pages and fields \(RealDocuments.milliseconds(discover)), signed \(RealDocuments.milliseconds(sign)) "
                  + "(+\(signed.bytes.count - original.count) bytes)")
        }
    }
}
