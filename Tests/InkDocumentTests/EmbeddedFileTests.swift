// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkDocument

/// Files as poppler's pdfdetach sees them: its list, and each file saved back.
private enum Detach {
    static var tool: String? { Tools.which("pdfdetach") }

    /// The names pdfdetach lists, in its order.
    static func names(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let result = try Tools.run(try #require(tool, "pdfdetach (poppler-utils) is needed"), ["-list", path])
        #expect(result.status == 0, "pdfdetach -list \(path): \(result.stderr)", sourceLocation: sourceLocation)
        // "3 embedded files", then "1: name" per file.
        return result.stdout.split(separator: "\n").dropFirst().compactMap { line in
            line.firstIndex(of: ":").map { String(line[line.index($0, offsetBy: 2)...]) }
        }
    }

    /// File `number` (1-based, pdfdetach's numbering) as pdfdetach saves it.
    static func saved(_ number: Int, from path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let out = "\(path).attachment\(number)"
        let result = try Tools.run(try #require(tool), ["-save", "\(number)", "-o", out, path])
        #expect(result.status == 0, "pdfdetach -save \(number) \(path): \(result.stderr)", sourceLocation: sourceLocation)
        return try Tools.read(out)
    }
}

private let inkML = EmbeddedFile(name: "signature.inkml", bytes: Array("<ink xmlns=\"http://www.w3.org/2003/InkML\"><trace>10 0, 9 14, 8 28</trace></ink>\n".utf8),
                                 mimeType: "application/inkml+xml", description: "The signature as InkML",
                                 modified: Date(timeIntervalSince1970: 1_790_000_000))
/// Every byte value, twice: what comes back must be the very bytes.
private let binary = EmbeddedFile(name: "receipt.bin", bytes: (0..<512).map { UInt8($0 % 256) }, mimeType: "application/octet-stream")

/// A one-page document whose catalog lists embedded files in `tree` (object 4 is the root
/// node; 5 and 6 the file specifications of "a.txt" and "z.txt", 7 and 8 their streams;
/// `extra` objects numbered from 9).
private func withEmbeddedFiles(tree: String, extra: [TestPDFs.Body] = []) -> [UInt8] {
    func file(_ name: String) -> [TestPDFs.Body] {
        [.plain("<< /Type /Filespec /F (\(name)) /UF (\(name)) /EF << /F \(name == "a.txt" ? 7 : 8) 0 R >> >>")]
    }
    return TestPDFs.classic([
        .plain("<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles 4 0 R >> >>"),
        .plain("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
        .plain("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"),
        .plain(tree),
    ] + file("a.txt") + file("z.txt") + [
        .stream("/Type /EmbeddedFile", Array("first file\n".utf8)),
        .stream("/Type /EmbeddedFile", Array("last file\n".utf8)),
    ] + extra)
}

@Suite struct FilesEmbeddedWithTheInk {
    @Test func anAttachmentComesBackFromPdfdetach() throws {
        let original = TestPDFs.contract()
        let document = try PDFDocument(bytes: original)
        let updated = try InkSigning.sign(document, with: TestPDFs.ink(width: 228, height: 60), at: .field("sign.customer"),
                                          attachments: [inkML, binary])
        let dir = try Tools.directory("attachment")
        let outcome = try SignedFileCheck.verify(updated, original: original, name: "contract", directory: dir,
                                                 page: try document.pages()[1], inkedRects: [TestPDFs.customerRect])
        #expect(try Detach.names(outcome.signedPath) == ["receipt.bin", "signature.inkml"], "listed in sorted order")
        #expect(try Detach.saved(1, from: outcome.signedPath) == binary.bytes)
        #expect(try Detach.saved(2, from: outcome.signedPath) == inkML.bytes)

        let reread = try PDFDocument(bytes: updated.bytes)
        let widget = try #require(try reread.dictionary(.reference(PDFReference(10))))
        let associated = try #require(widget["AF"]?.arrayValue)
        #expect(associated.count == 2, "both files are the widget's associated files")
        let spec = try #require(try reread.dictionary(associated[0]))
        #expect(spec["AFRelationship"] == .name("Data") && spec["Desc"] == .string(Array("The signature as InkML".utf8)))
        #expect(spec["F"] == .string(Array("signature.inkml".utf8)) && spec["UF"] == spec["F"])
        let files = try #require(try reread.dictionary(spec["EF"]))
        let stream = try #require(try reread.resolve(files["F"] ?? .null).streamValue)
        #expect(stream.dictionary["Subtype"] == .name("application/inkml+xml"))
        #expect(stream.dictionary["Filter"] == .name("FlateDecode"))
        let parameters = try #require(stream.dictionary["Params"]?.dictionaryValue)
        #expect(parameters["Size"] == .integer(Int64(inkML.bytes.count)))
        #expect(parameters["ModDate"] == .string(Array("D:20260921141320Z".utf8)))
        let written = String(decoding: updated.bytes[original.count...], as: UTF8.self)
        #expect(written.contains("/Subtype /application#2Finkml+xml"), "the MIME type's '/' is #2F in the name")
    }

    @Test func aFlatTreeGetsTheNewNamesInOrderAndAClashingNameASuffix() throws {
        let original = withEmbeddedFiles(tree: "<< /Names [(a.txt) 5 0 R (z.txt) 6 0 R] >>")
        let document = try PDFDocument(bytes: original)
        let rect = PDFRect(72, 72, 272, 132)
        let clash = EmbeddedFile(name: "a.txt", bytes: Array("second a\n".utf8), mimeType: "text/plain")
        let updated = try InkSigning.sign(document, with: TestPDFs.ink(width: rect.width, height: rect.height),
                                          at: .newField(name: "customer", pageIndex: 0, rect: rect), attachments: [inkML, clash])
        let dir = try Tools.directory("attachment-flat")
        let outcome = try SignedFileCheck.verify(updated, original: original, name: "flat", directory: dir,
                                                 page: try document.pages()[0], inkedRects: [rect])
        // Sorted by bytes: '-' comes before '.'.
        #expect(try Detach.names(outcome.signedPath) == ["a-2.txt", "a.txt", "signature.inkml", "z.txt"])
        #expect(try Detach.saved(1, from: outcome.signedPath) == clash.bytes)
        #expect(try Detach.saved(2, from: outcome.signedPath) == Array("first file\n".utf8))
        #expect(try Detach.saved(3, from: outcome.signedPath) == inkML.bytes)
        #expect(try Detach.saved(4, from: outcome.signedPath) == Array("last file\n".utf8))
        let reread = try PDFDocument(bytes: updated.bytes)
        #expect(try reread.dictionary(.reference(PDFReference(4)))?["Limits"] == nil, "the root has no /Limits")
        let widget = try #require(try reread.signable().signatureFields.first?.reference)
        #expect(try reread.dictionary(.reference(widget))?["AF"]?.arrayValue?.count == 2)
    }

    /// Root → two leaves, "a.txt" and "z.txt": a key between them goes into the first, whose
    /// /Limits widen; one after all into the last. A second update adds to the updated tree.
    @Test func aTreeWithKidsGetsEachKeyInTheLeafWhoseRangeHoldsIt() throws {
        let original = withEmbeddedFiles(tree: "<< /Kids [9 0 R 10 0 R] >>", extra: [
            .plain("<< /Limits [(a.txt) (a.txt)] /Names [(a.txt) 5 0 R] >>"),
            .plain("<< /Limits [(z.txt) (z.txt)] /Names [(z.txt) 6 0 R] >>"),
        ])
        let document = try PDFDocument(bytes: original)
        let rect = PDFRect(72, 72, 272, 132), rect2 = PDFRect(300, 72, 500, 132)
        let ink = TestPDFs.ink(width: rect.width, height: rect.height)
        let first = try InkSigning.sign(document, with: ink, at: .newField(name: "customer", pageIndex: 0, rect: rect), attachments: [inkML])
        let zz = EmbeddedFile(name: "zz.txt", bytes: Array("after all\n".utf8), mimeType: "text/plain")
        let second = try InkSigning.sign(PDFDocument(bytes: first.bytes), with: ink, at: .newField(name: "witness", pageIndex: 0, rect: rect2),
                                         attachments: [zz, inkML])
        let dir = try Tools.directory("attachment-kids")
        let outcome = try SignedFileCheck.verify(second, original: original, earlier: first.bytes, name: "kids", directory: dir,
                                                 page: try document.pages()[0], inkedRects: [rect, rect2])
        #expect(try Detach.names(outcome.signedPath) == ["a.txt", "signature-2.inkml", "signature.inkml", "z.txt", "zz.txt"])
        #expect(try Detach.saved(3, from: outcome.signedPath) == inkML.bytes)
        #expect(try Detach.saved(5, from: outcome.signedPath) == zz.bytes)
        let reread = try PDFDocument(bytes: second.bytes)
        let limits = { (n: Int) in try reread.dictionary(.reference(PDFReference(n)))?["Limits"] }
        #expect(try limits(9) == .array([.string(Array("a.txt".utf8)), .string(Array("signature.inkml".utf8))]))
        #expect(try limits(10) == .array([.string(Array("z.txt".utf8)), .string(Array("zz.txt".utf8))]))
    }

    @Test func aDebianDocumentationPDFCarriesTheFile() throws {
        let dir = try Tools.directory("attachment-debian")
        let (name, path) = try #require(try RealDocuments.debianDocumentation(into: dir).first, "no PDF under /usr/share")
        let original = try Tools.read(path)
        let document = try PDFDocument(bytes: original)
        let page = try document.pages()[0]
        let rect = PDFRect(page.cropBox.x0 + 36, page.cropBox.y0 + 14, page.cropBox.x0 + 236, page.cropBox.y0 + 74)
        let before = try Detach.names(path)
        let updated = try InkSigning.sign(document, with: TestPDFs.ink(width: rect.width, height: rect.height),
                                          at: .newField(name: "customer", pageIndex: 0, rect: rect), attachments: [inkML])
        let outcome = try SignedFileCheck.verify(updated, original: original, name: (name as NSString).deletingPathExtension,
                                                 directory: dir, page: page, inkedRects: [rect])
        let after = try Detach.names(outcome.signedPath)
        #expect(after.count == before.count + 1, "\(name): \(before) then \(after)")
        let number = try #require(after.firstIndex(of: "signature.inkml")) + 1
        #expect(try Detach.saved(number, from: outcome.signedPath) == inkML.bytes, "\(name)")
    }

    @Test func whatIsNotAFileOrNotAMIMETypeIsRefused() throws {
        let document = try PDFDocument(bytes: TestPDFs.contract())
        let ink = TestPDFs.ink(width: 228, height: 60)
        for (file, says) in [(EmbeddedFile(name: "../etc/passwd", bytes: [], mimeType: "text/plain"), "not a file name"),
                             (EmbeddedFile(name: "", bytes: [], mimeType: "text/plain"), "not a file name"),
                             (EmbeddedFile(name: "a.xml", bytes: [], mimeType: "xml"), "type/subtype"),
                             (EmbeddedFile(name: "a.xml", bytes: [], mimeType: "text/x ml"), "type/subtype")] {
            do {
                _ = try InkSigning.sign(document, with: ink, at: .field("sign.customer"), attachments: [file])
                Issue.record("\(file.name) (\(file.mimeType)) was accepted")
            } catch let error as PDFError {
                #expect(error.kind == .refused && error.message.contains(says), "\(error.message)")
            }
        }
    }

    @Test func pdfDatesAreUTC() {
        #expect(EmbeddedFile.pdfDate(Date(timeIntervalSince1970: 0)) == "D:19700101000000Z")
        #expect(EmbeddedFile.pdfDate(Date(timeIntervalSince1970: 951_782_400)) == "D:20000229000000Z")
        #expect(EmbeddedFile.pdfDate(Date(timeIntervalSince1970: -1)) == "D:19691231235959Z")
    }
}
