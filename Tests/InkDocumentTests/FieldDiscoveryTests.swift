// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
@testable import InkDocument

@Suite struct SignatureFieldDiscovery {
    @Test func theContractsFieldsWithTheirNamesPagesAndRectangles() throws {
        let signable = try PDFDocument(bytes: TestPDFs.contract()).signable()
        #expect(signable.pages.count == 2)
        #expect(signable.pages.map(\.reference) == [PDFReference(3), PDFReference(4)])
        #expect(signable.pages[1].mediaBox == PDFRect(0, 0, 595, 842), "inherited from /Pages")
        #expect(signable.pages[1].cropBox == signable.pages[1].mediaBox)
        #expect(signable.pages[1].annotations == [PDFReference(10), PDFReference(11), PDFReference(12)])

        #expect(signable.signatureFields.count == 2)
        let customer = try #require(signable.signatureFields.first)
        #expect(customer.name == "sign.customer")
        #expect(customer.reference == PDFReference(10))
        #expect(customer.pageIndex == 1, "its /P and the page's /Annots")
        #expect(customer.rect == TestPDFs.customerRect, "corners given swapped, normalised")
        #expect(!customer.isSigned)
        let witness = try #require(signable.signatureFields.last)
        #expect(witness.name == "sign.witness", "a UTF-16 /T")
        #expect(witness.pageIndex == 1, "no /P: found in the page's /Annots")
        #expect(witness.rect == TestPDFs.witnessRect)
        #expect(!witness.isSigned)
        #expect(signable.fieldNames == ["sign.customer", "sign.witness", "remarks"])
    }

    @Test func aSignedFieldIsReportedSigned() throws {
        let fields = try PDFDocument(bytes: TestPDFs.contract(signedWitness: true)).signable().signatureFields
        #expect(fields.map(\.isSigned) == [false, true])
    }

    @Test func boxesAndRotationAreInheritedThroughThePageTree() throws {
        let pdf = TestPDFs.classic([
            .plain("<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R] >> >>"),
            .plain("<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 3 /MediaBox [0 0 612 792] >>"),
            .plain("<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 7 0 R] /Count 2 /CropBox [10 10 600 780] /Rotate 90 >>"),
            .plain("<< /Type /Page /Parent 3 0 R >>"),
            .plain("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 842 595] /Rotate -180 /Annots [6 0 R] >>"),
            // A field merged with its widget, /FT on itself, no /P: on page 3 by the /Annots.
            .plain("<< /FT /Sig /T (only) /Type /Annot /Subtype /Widget /Rect [10 20 110 70] >>"),
            .plain("<< /Type /Page /Parent 3 0 R /MediaBox [0 0 100 100] /CropBox [0 0 50 50] >>"),
        ])
        let signable = try PDFDocument(bytes: pdf).signable()
        #expect(signable.pages.map(\.reference.number) == [4, 7, 5])
        #expect(signable.pages[0].mediaBox == PDFRect(0, 0, 612, 792))
        #expect(signable.pages[0].cropBox == PDFRect(10, 10, 600, 780))
        #expect(signable.pages[0].rotation == 90)
        #expect(signable.pages[1].cropBox == PDFRect(0, 0, 50, 50) && signable.pages[1].rotation == 90)
        #expect(signable.pages[2].mediaBox == PDFRect(0, 0, 842, 595) && signable.pages[2].rotation == 180)
        #expect(signable.signatureFields == [SignatureField(name: "only", reference: PDFReference(6), isSigned: false,
            widgets: [SignatureWidget(reference: PDFReference(6), pageIndex: 2, rect: PDFRect(10, 20, 110, 70))])])
    }

    @Test func aDocumentWithoutAFormHasNoFields() throws {
        let pdf = TestPDFs.classic([.plain("<< /Type /Catalog /Pages 2 0 R >>"), .plain("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
                                    .plain("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>")])
        let signable = try PDFDocument(bytes: pdf).signable()
        #expect(signable.pages.count == 1 && signable.signatureFields.isEmpty && signable.fieldNames.isEmpty)
    }

    @Test func aFieldListedTwiceOrInALoopIsRefused() throws {
        func form(_ fields: String, _ extra: String) -> [UInt8] {
            TestPDFs.classic([
                .plain("<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [\(fields)] >> >>"),
                .plain("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
                .plain("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>"),
                .plain("<< /FT /Sig /T (a) /Subtype /Widget /Rect [0 0 10 10] /P 3 0 R >>"),
                .plain(extra),
            ])
        }
        #expect(try PDFDocument(bytes: form("4 0 R", "(unused)")).signable().signatureFields.map(\.name) == ["a"])
        // Listed twice: qpdf calls it a loop, others read the field twice.
        let twice = #expect(throws: PDFError.self) { try PDFDocument(bytes: form("4 0 R 4 0 R", "(unused)")).signable() }
        #expect(twice?.kind == .ambiguous)
        // A field that is its own kid: its /Parent cannot name the field that lists it.
        let loop = #expect(throws: PDFError.self) { try PDFDocument(bytes: form("4 0 R 5 0 R", "<< /T (loop) /Kids [5 0 R] >>")).signable() }
        #expect(loop?.kind == .ambiguous)
    }
}
