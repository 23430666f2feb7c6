// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkDocument

private func parse(_ text: String) throws -> PDFObject {
    var parser = PDFParser(Array(text.utf8))
    return try parser.object()
}

private func kind(of body: () throws -> Void) -> PDFError.Kind? {
    do { try body(); return nil } catch let error as PDFError { return error.kind } catch { return nil }
}

@Suite struct PDFSyntax {
    @Test func objectsOfEveryKind() throws {
        let object = try parse("""
            << /Null null /T true /F false /I -42 /R -.5 /R2 3. /Big 100000000000000000000 /Name /A#20B /Ref 12 0 R
               /Arr [1 2 0 R (x) <41 4>] /Nested << /D << >> >> >>
            """)
        let d = try #require(object.dictionaryValue)
        #expect(d["Null"] == nil, "null is absent")
        #expect(d["T"] == .bool(true) && d["F"] == .bool(false))
        #expect(d["I"] == .integer(-42))
        #expect(d["R"] == .real(-0.5) && d["R2"] == .real(3))
        #expect(d["Big"] == .real(1e20), "an integer beyond 64 bits is read as a real")
        #expect(d["Name"] == .name(PDFName("A B")))
        #expect(d["Ref"] == .reference(PDFReference(12, 0)))
        #expect(d["Arr"] == .array([.integer(1), .reference(PDFReference(2, 0)), .string(Array("x".utf8)), .string([0x41, 0x40])]))
        #expect(d["Nested"]?.dictionaryValue?["D"] == .dictionary(PDFDictionary()))
    }

    @Test func literalStringEscapes() throws {
        let object = try parse(#"(a\(b\)c \\ \n\r\t\b\f \101\0614 (nested) line\"# + "\ncontinued\r\nCRLF)")
        #expect(object == .string(Array("a(b)c \\ \n\r\t\u{8}\u{c} A14 (nested) linecontinued\nCRLF".utf8)))
    }

    @Test func aKeyGivenTwiceIsRefusedAtTheSecond() throws {
        // poppler, qpdf and pdf.js keep the last value, others the first: no reading is safe.
        let error = #expect(throws: PDFError.self) { try parse("<< /A 1 /B 2 /A 3 >>") }
        #expect(error?.kind == .ambiguous && error?.offset == 13)
        #expect(kind { _ = try parse("<< /A null /A 1 >>") } == .ambiguous, "a null value is a key given all the same")
        #expect(try parse("<< /A << /A 1 >> >>").dictionaryValue?["A"]?.dictionaryValue?["A"] == .integer(1), "nested: another dictionary")
    }

    @Test func nestingBeyondTheLimitIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(kind { _ = try parse(deep) } == .tooLarge)
        #expect(kind { _ = try parse(String(repeating: "<< /A ", count: 5000)) } == .tooLarge)
    }

    @Test func errorsSayWhere() {
        do {
            _ = try parse("<< /A 1 /B ) >>")
            Issue.record("no error")
        } catch let error as PDFError {
            #expect(error.offset == 11)
            #expect(error.description.contains("at byte 11"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func writtenObjectsReadBackTheSame() throws {
        let original = try parse("<< /Name /A#23#20B /S (\\(\u{1}\u{ff}) /R 595.2755905511812 /Tiny 0.00001 /A [1 2 0 R null] >>")
        let again = try parse(String(decoding: PDFSerializer.bytes(original), as: UTF8.self))
        #expect(again == original)
        #expect(PDFSerializer.fixed(0.00001, decimals: 10) == "0.00001")
        #expect(PDFSerializer.fixed(-2.5, decimals: 3) == "-2.5")
        #expect(PDFSerializer.fixed(-0.0001, decimals: 3) == "0")
    }

    @Test func textStrings() {
        #expect(PDFText.decode([0xFE, 0xFF, 0x00, 0x77, 0x00, 0xE9]) == "wé")
        #expect(PDFText.decode([0x80, 0x41, 0xE9]) == "•Aé", "PDFDocEncoding")
        #expect(PDFText.decode(PDFText.encode("Zoë")) == "Zoë")
        #expect(PDFText.encode("plain") == Array("plain".utf8))
    }
}

@Suite struct CrossReferences {
    @Test func aClassicTable() throws {
        let document = try PDFDocument(bytes: TestPDFs.contract())
        #expect(document.crossReference.newestFormat == .table)
        #expect(document.crossReference.sectionCount == 1)
        #expect(document.version == "1.4")
        #expect(try document.catalog()["Type"] == .name("Catalog"))
        #expect(try document.object(PDFReference(7)).dictionaryValue?["BaseFont"] == .name("Helvetica"))
        #expect(try document.object(PDFReference(7, 3)) == .null, "a generation that does not match names nothing")
        #expect(try document.object(PDFReference(400)) == .null)
    }

    @Test(arguments: 10...15)
    func aStreamWithObjectStreamsAndEachPredictor(predictor: Int) throws {
        let document = try PDFDocument(bytes: TestPDFs.contractWithXRefStream(predictor: predictor))
        #expect(document.crossReference.newestFormat == .stream)
        #expect(document.crossReference.entries[9] == .inObjectStream(stream: 14, index: 6), "after 1–4, 7 and 8")
        #expect(try document.dictionary(document.trailer["Info"])?["Title"] == .string(Array("A contract".utf8)))
        let signable = try document.signable()
        #expect(signable.pages.count == 2)
        #expect(signable.signatureFields.map(\.name) == ["sign.customer", "sign.witness"])
    }

    @Test func aPrevChainWhereTheNewestEntryWins() throws {
        // An update that replaces the font (7) and adds object 13; its /Prev is the original's table.
        let original = TestPDFs.contract()
        let document = try PDFDocument(bytes: original)
        var bytes = original
        let seven = bytes.count
        bytes += Array("7 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>\nendobj\n".utf8)
        let thirteen = bytes.count
        bytes += Array("13 0 obj\n(new)\nendobj\n".utf8)
        let xref = bytes.count
        func section(_ trailer: String) -> [UInt8] {
            Array(String(format: "xref\n7 1\n%010d 00000 n \n13 1\n%010d 00000 n \ntrailer\n<< %@ /Prev %d >>\nstartxref\n%d\n%%%%EOF\n",
                         seven, thirteen, trailer, document.crossReference.newestOffset, xref).utf8)
        }
        let updated = try PDFDocument(bytes: bytes + section("/Size 14 /Root 1 0 R"))
        #expect(updated.crossReference.sectionCount == 2)
        #expect(try updated.object(PDFReference(7)).dictionaryValue?["BaseFont"] == .name("Courier"))
        #expect(try updated.object(PDFReference(13)) == .string(Array("new".utf8)))
        #expect(updated.trailer["Root"] == .reference(PDFReference(1)))
        #expect(updated.crossReference.nextFreeNumber == 14)
        // The newest trailer is the trailer: one without /Root is not completed from an older one
        // (poppler and qpdf read it alone).
        #expect(throws: PDFError.self) { try PDFDocument(bytes: bytes + section("/Size 14")) }
    }

    @Test func encryptedDocumentsAreRefusedWithTheirReason() {
        let hex = String(repeating: "5a", count: 32)
        let pdf = TestPDFs.classic([
            .plain("<< /Type /Catalog /Pages 2 0 R >>"), .plain("<< /Type /Pages /Kids [] /Count 0 >>"),
            .plain("<< /Filter /Standard /V 1 /R 2 /O <\(hex)> /U <\(hex)> /P -4 >>"),
        ], trailer: "/Encrypt 3 0 R")
        do {
            _ = try PDFDocument(bytes: pdf)
            Issue.record("read")
        } catch let error as PDFError {
            #expect(error.kind == .encrypted)
            #expect(error.description.contains("encrypted"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func anIndirectStreamLengthIsFollowed() throws {
        // The data holds the word `endstream`: only the /Length object says where it really ends.
        let data = Array("abc endstream def".utf8)
        let pdf = TestPDFs.classic([
            .plain("<< /Type /Catalog /Pages 2 0 R >>"), .plain("<< /Type /Pages /Kids [] /Count 0 >>"),
            .plain("<< /Length 4 0 R >>\nstream\n" + String(decoding: data, as: UTF8.self) + "\nendstream"),
            .plain("\(data.count)"),
        ])
        #expect(try PDFDocument(bytes: pdf).object(PDFReference(3)).streamValue?.data.elementsEqual(data) == true)
    }

    @Test func aWrongStreamLengthIsRefusedNotSearchedFor() throws {
        // Readers that search for `endstream` find different ones (the data may hold the word):
        // a /Length that does not end at `endstream` is no reading at all.
        let original = try #require(PDFDocument(bytes: TestPDFs.contract()).object(PDFReference(5)).streamValue)
        let length = "/Length \(original.data.count) >>"
        // As many digits, so that the offsets stay right.
        let wrong = "/Length " + String(repeating: "1", count: "\(original.data.count)".count) + " >>"
        let pdf = String(decoding: TestPDFs.contract(), as: UTF8.self)
        let at = try #require(pdf.range(of: length))
        let error = #expect(throws: PDFError.self) { try PDFDocument(bytes: Array(pdf.replacingCharacters(in: at, with: wrong).utf8)) }
        #expect(error?.kind == .ambiguous && error?.message.contains("/Length") == true)
    }

    @Test func hostileStructuresEndInErrors() throws {
        func page(_ extra: String) -> [UInt8] {
            TestPDFs.classic([.plain("<< /Type /Catalog /Pages 2 0 R >>"), .plain("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
                              .plain("<< /Type /Page /Parent 2 0 R \(extra) >>")])
        }
        // A page tree that contains itself.
        let loop = TestPDFs.classic([.plain("<< /Type /Catalog /Pages 2 0 R >>"), .plain("<< /Type /Pages /Kids [2 0 R] /Count 1 >>")])
        #expect(kind { _ = try PDFDocument(bytes: loop).pages() } == .ambiguous)
        // References that lead to each other.
        let cycle = TestPDFs.classic([.plain("<< /Type /Catalog /Pages 2 0 R >>"), .plain("3 0 R"), .plain("2 0 R")])
        #expect(kind { _ = try PDFDocument(bytes: cycle).pages() } == .tooLarge)
        // A box that is not one, and a rotation that is not a quarter turn: readers fall back differently.
        #expect(kind { _ = try PDFDocument(bytes: page("/MediaBox [0 0 (a) 4]")).pages() } == .ambiguous)
        #expect(kind { _ = try PDFDocument(bytes: page("/MediaBox [0 0 10 10] /Rotate 45")).pages() } == .ambiguous)
        #expect(kind { _ = try PDFDocument(bytes: page("/MediaBox [0 0 10 10] /Rotate 90.0")).pages() } == .ambiguous)
        #expect(kind { _ = try PDFDocument(bytes: page("")).pages() } == .ambiguous, "no /MediaBox anywhere")
        #expect(try PDFDocument(bytes: page("/MediaBox [0 0 10 10] /Rotate -90")).pages().first?.rotation == 270)
        // A /Prev that points back at its own section.
        var selfPrev = String(decoding: page("/MediaBox [0 0 10 10]"), as: UTF8.self)
        let at = try #require(selfPrev.range(of: "startxref\n")).upperBound
        let offset = selfPrev[at...].prefix { $0.isNumber }
        selfPrev = selfPrev.replacingOccurrences(of: "/Root 1 0 R", with: "/Root 1 0 R /Prev \(offset)")
        #expect(kind { _ = try PDFDocument(bytes: Array(selfPrev.utf8)) } == .malformed)
        // A page that is a stream without its end.
        #expect(kind { _ = try PDFDocument(bytes: page("/Length 3 >>\nstream\nabc def")).pages() } == .ambiguous)
        // No startxref, an offset past the end, no header.
        #expect(kind { _ = try PDFDocument(bytes: Array("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n".utf8)) } == .malformed)
        #expect(kind { _ = try PDFDocument(bytes: Array("%PDF-1.4\nstartxref\n999999\n%%EOF".utf8)) } == .malformed)
        #expect(kind { _ = try PDFDocument(bytes: Array("hello".utf8)) } == .malformed)
        #expect(kind { _ = try PDFDocument(bytes: []) } == .malformed)
    }

    @Test func hugeCountsAreRefusedBeforeTheyAllocate() throws {
        // A table subsection claiming 8 million entries, and a stream's /Index claiming as many.
        let table = Array("%PDF-1.4\nxref\n0 8000000\n0000000000 65535 f \ntrailer\n<< >>\nstartxref\n9\n%%EOF\n".utf8)
        #expect(kind { _ = try PDFDocument(bytes: table) } == .tooLarge)
        let data = try Zlib.deflate([1, 0, 0, 0])
        var stream = Array("%PDF-1.5\n1 0 obj\n<< /Type /XRef /Size 8000000 /W [1 2 1] /Filter /FlateDecode /Length \(data.count) >>\nstream\n".utf8)
        stream += data + Array("\nendstream\nendobj\nstartxref\n9\n%%EOF\n".utf8)
        #expect(kind { _ = try PDFDocument(bytes: stream) } == .tooLarge)
        // A zip bomb: 64 MB of zeros and more, in a few KB.
        let bomb = try Zlib.deflate([UInt8](repeating: 0, count: PDFLimits.maxDecodedStreamBytes + 1))
        #expect(bomb.count < 100_000)
        #expect(kind { _ = try Zlib.inflate(bomb[...]) } == .tooLarge)
    }

    @Test func damagedCompressedDataIsAnErrorWithZlibsWords() throws {
        var data = try Zlib.deflate(Array(repeating: 7, count: 1000) + Array(0..<255))
        data[4] ^= 0xff
        let error = #expect(throws: PDFError.self) { try Zlib.inflate(data[...]) }
        #expect(error?.kind == .malformed && error?.message.contains("zlib") == true)
        #expect(try Zlib.inflate(data.prefix(0)) == [])
    }
}
