// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkDocument

/// Ink for a field of this rectangle's size.
private func ink(for rect: PDFRect) -> VectorInk { TestPDFs.ink(width: rect.width, height: rect.height) }

private func refusal(_ body: () throws -> Void) -> String? {
    do { try body(); return nil } catch let error as PDFError where error.kind == .refused { return error.message } catch { return "not refused: \(error)" }
}

@Suite struct InkIntoSignatureFields {
    @Test func anExistingFieldOfAFileWithATable() throws {
        let original = TestPDFs.contract()
        let document = try PDFDocument(bytes: original)
        let updated = try InkSigning.sign(document, with: ink(for: TestPDFs.customerRect), at: .field("sign.customer"))
        let dir = try Tools.directory("classic")
        let page = try document.pages()[1]
        try SignedFileCheck.verify(updated, original: original, name: "contract", directory: dir, page: page, inkedRects: [TestPDFs.customerRect])

        let tail = String(decoding: updated.bytes[original.count...], as: UTF8.self)
        #expect(tail.contains("\nxref\n") && tail.contains("trailer\n"), "a table after a table")
        let reread = try PDFDocument(bytes: updated.bytes)
        #expect(reread.crossReference.newestFormat == .table)
        #expect(reread.trailer["Prev"] == .integer(Int64(document.crossReference.newestOffset)))
        #expect(reread.trailer["ID"] == document.trailer["ID"] && reread.trailer["Root"] == document.trailer["Root"])
        #expect(try reread.acroForm()?["SigFlags"] == .integer(1))
        let widget = try #require(try reread.dictionary(.reference(PDFReference(10))))
        #expect(widget["F"] == .integer(4))
        let normal = try reread.resolve(widget["AP"]?.dictionaryValue?["N"] ?? .null)
        let appearance = try #require(normal.streamValue)
        #expect(appearance.dictionary["BBox"] == PDFRect(0, 0, 228, 60).object)
        #expect(try reread.signable().signatureFields.map(\.isSigned) == [false, false], "ink is not a signature value")
    }

    @Test func theSecondFieldOnTopOfTheFirstUpdate() throws {
        let original = TestPDFs.contract()
        let first = try InkSigning.sign(PDFDocument(bytes: original), with: ink(for: TestPDFs.customerRect), at: .field("sign.customer"))
        let afterFirst = try PDFDocument(bytes: first.bytes)
        let second = try InkSigning.sign(afterFirst, with: ink(for: TestPDFs.witnessRect), at: .field("sign.witness"))
        let page = try afterFirst.pages()[1]
        let outcome = try SignedFileCheck.verify(second, original: original, earlier: first.bytes, name: "contract-twice",
                                                 directory: try Tools.directory("classic-twice"), page: page,
                                                 inkedRects: [TestPDFs.customerRect, TestPDFs.witnessRect])
        #expect(second.bytes.starts(with: original))
        #expect(outcome.comparisons.count == 2)
        let reread = try PDFDocument(bytes: second.bytes)
        #expect(reread.crossReference.sectionCount == 3)
        #expect(reread.trailer["Prev"] == .integer(Int64(first.crossReferenceOffset)))
    }

    @Test(arguments: [12, 15])
    func aFileWithAnXRefStreamGetsAnXRefStream(predictor: Int) throws {
        let original = try TestPDFs.contractWithXRefStream(predictor: predictor)
        let document = try PDFDocument(bytes: original)
        let first = try InkSigning.sign(document, with: ink(for: TestPDFs.witnessRect), at: .field("sign.witness"))
        let second = try InkSigning.sign(PDFDocument(bytes: first.bytes), with: ink(for: TestPDFs.customerRect), at: .field("sign.customer"))
        let dir = try Tools.directory("xref-stream-\(predictor)")
        try SignedFileCheck.verify(second, original: original, earlier: first.bytes, name: "contract-xrefstream", directory: dir,
                                   page: try document.pages()[1], inkedRects: [TestPDFs.customerRect, TestPDFs.witnessRect])
        let reread = try PDFDocument(bytes: second.bytes)
        #expect(reread.crossReference.newestFormat == .stream)
        #expect(!String(decoding: second.bytes[original.count...], as: UTF8.self).contains("\nxref\n"), "no table after a stream")
        #expect(reread.trailer["Info"] == .reference(PDFReference(13)), "/Info carried over")
    }

    @Test(.enabled(if: Tools.qpdf != nil, "qpdf is not installed (apt-get install qpdf): no object-stream file to sign"))
    func aFileQpdfWroteWithObjectStreams() throws {
        let qpdf = try #require(Tools.qpdf)
        let dir = try Tools.directory("qpdf-objstm")
        try Tools.write(TestPDFs.contract(), to: "\(dir)/in.pdf")
        let made = try Tools.run(qpdf, ["--object-streams=generate", "--deterministic-id", "\(dir)/in.pdf", "\(dir)/objstm.pdf"])
        #expect(made.status == 0, "\(made.stderr)")
        let original = try Tools.read("\(dir)/objstm.pdf")
        let document = try PDFDocument(bytes: original)
        #expect(document.crossReference.newestFormat == .stream)
        #expect(document.crossReference.entries.values.contains { if case .inObjectStream = $0 { true } else { false } })
        let signable = try document.signable()
        #expect(signable.signatureFields.map(\.name) == ["sign.customer", "sign.witness"])
        #expect(signable.signatureFields.map(\.pageIndex) == [1, 1])
        let first = try InkSigning.sign(document, with: ink(for: TestPDFs.customerRect), at: .field("sign.customer"))
        let second = try InkSigning.sign(PDFDocument(bytes: first.bytes), with: ink(for: TestPDFs.witnessRect), at: .field("sign.witness"))
        try SignedFileCheck.verify(first, original: original, name: "objstm-first", directory: dir,
                                   page: signable.pages[1], inkedRects: [TestPDFs.customerRect])
        try SignedFileCheck.verify(second, original: original, earlier: first.bytes, name: "objstm", directory: dir,
                                   page: signable.pages[1], inkedRects: [TestPDFs.customerRect, TestPDFs.witnessRect])
    }

    @Test func aHybridFileGetsATable() throws {
        let original = try TestPDFs.contractHybrid()
        let document = try PDFDocument(bytes: original)
        #expect(document.crossReference.newestFormat == .table)
        #expect(document.crossReference.entries[11] == .inObjectStream(stream: 13, index: 2), "/XRefStm fills what the table leaves free")
        #expect(try document.signable().signatureFields.map(\.name) == ["sign.customer", "sign.witness"])
        let updated = try InkSigning.sign(document, with: ink(for: TestPDFs.witnessRect), at: .field("sign.witness"))
        try SignedFileCheck.verify(updated, original: original, name: "hybrid", directory: try Tools.directory("hybrid"),
                                   page: try document.pages()[1], inkedRects: [TestPDFs.witnessRect])
        #expect(try PDFDocument(bytes: updated.bytes).crossReference.newestFormat == .table)
    }

    @Test func aWidgetOnlyItsPPutsOnAPageIsRefused() throws {
        // Not drawn on the page the signer reads; poppler places such a widget by /P, others nowhere.
        let original = TestPDFs.classic([
            .plain("<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>"),
            .plain("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
            .plain("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] >>"),
            .plain("<< /FT /Sig /T (here) /Type /Annot /Subtype /Widget /Rect [20 20 220 100] /P 3 0 R >>"),
        ])
        let error = #expect(throws: PDFError.self) { try PDFDocument(bytes: original).signable() }
        #expect(error?.kind == .ambiguous && error?.message.contains("listed by no page's /Annots") == true)
    }

    @Test func anUpdateWritesOnlyNumbersItMayWrite() throws {
        var update = IncrementalUpdate(try PDFDocument(bytes: TestPDFs.contract()))
        #expect(throws: PDFError.self) { try update.set(PDFReference(500), .null) }
        #expect(throws: PDFError.self) { try update.write() }
        let reserved = try update.reserve()
        #expect(reserved == PDFReference(13))
        #expect(throws: PDFError.self) { try update.write() }
        try update.set(reserved, .integer(1))
        #expect(try PDFDocument(bytes: update.write().bytes).object(reserved) == .integer(1))
    }

    @Test func aNewFieldInAFormThatHasFields() throws {
        let original = TestPDFs.contract()
        let rect = PDFRect(72, 500, 300, 560)
        let updated = try InkSigning.sign(PDFDocument(bytes: original), with: ink(for: rect), at: .newField(name: "clerk", pageIndex: 0, rect: rect))
        let document = try PDFDocument(bytes: original)
        try SignedFileCheck.verify(updated, original: original, name: "contract-new-field", directory: try Tools.directory("new-field"),
                                   page: try document.pages()[0], inkedRects: [rect])
        let signable = try PDFDocument(bytes: updated.bytes).signable()
        #expect(signable.signatureFields.map(\.name) == ["sign.customer", "sign.witness", "clerk"])
        #expect(signable.signatureFields.last?.pageIndex == 0 && signable.signatureFields.last?.rect == rect)
        #expect(signable.fieldNames.count == 4)
    }

    @Test func theSignatureValueHookAddsObjectsAndSetsV() throws {
        let original = TestPDFs.contract()
        var signatureReference: PDFReference?
        let updated = try InkSigning.sign(PDFDocument(bytes: original), with: ink(for: TestPDFs.witnessRect), at: .field("sign.witness")) { update, field in
            #expect(field == PDFReference(11))
            let signature = try update.add(.dictionary(PDFDictionary([
                ("Type", .name("Sig")), ("Filter", .name("Adobe.PPKLite")), ("SubFilter", .name("ETSI.CAdES.detached")),
                ("ByteRange", .array([.integer(0), .integer(9_999_999_999), .integer(9_999_999_999), .integer(9_999_999_999)])),
                ("Contents", .string([UInt8](repeating: 0, count: 32))),
            ])))
            signatureReference = signature
            return .reference(signature)
        }
        let reference = try #require(signatureReference)
        let range = try #require(updated.objectRanges[reference])
        let written = String(decoding: updated.bytes[range], as: UTF8.self)
        #expect(written.hasPrefix("\(reference.number) 0 obj") && written.contains("/ByteRange [0 9999999999 9999999999 9999999999]"))
        let fields = try PDFDocument(bytes: updated.bytes).signable().signatureFields
        #expect(fields.map(\.isSigned) == [false, true])
        #expect(refusal { _ = try InkSigning.sign(PDFDocument(bytes: updated.bytes), with: VectorInk([]), at: .field("sign.witness")) }?
            .contains("signed already") == true)
    }

    @Test func whatCannotBeSignedIsRefusedWithTheReason() throws {
        let document = try PDFDocument(bytes: TestPDFs.contract(signedWitness: true))
        let ink = ink(for: TestPDFs.customerRect)
        #expect(refusal { _ = try InkSigning.sign(document, with: ink, at: .field("sign.witness")) }?.contains("signed already") == true)
        #expect(refusal { _ = try InkSigning.sign(document, with: ink, at: .field("remarks")) }?.contains("not a signature field") == true)
        #expect(refusal { _ = try InkSigning.sign(document, with: ink, at: .field("nobody")) }?.contains("'sign.customer', 'sign.witness'") == true)
        let rect = PDFRect(0, 0, 10, 10)
        #expect(refusal { _ = try InkSigning.sign(document, with: ink, at: .newField(name: "remarks", pageIndex: 0, rect: rect)) }?.contains("already") == true)
        #expect(refusal { _ = try InkSigning.sign(document, with: ink, at: .newField(name: "a.b", pageIndex: 0, rect: rect)) } != nil)
        #expect(refusal { _ = try InkSigning.sign(document, with: ink, at: .newField(name: "x", pageIndex: 2, rect: rect)) }?.contains("no page 3") == true)
        #expect(refusal { _ = try InkSigning.sign(document, with: ink, at: .newField(name: "x", pageIndex: 0, rect: PDFRect(5, 5, 5, 9))) } != nil)
        let broken = VectorInk([InkPath([.move(Point(.nan, 1))], painting: .fill(), color: .ink)])
        #expect(refusal { _ = try InkSigning.sign(document, with: broken, at: .field("sign.customer")) }?.contains("not finite") == true)
    }
}
