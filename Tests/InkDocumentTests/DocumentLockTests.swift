// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkDocument
@testable import InkDocumentSigning

/// The device's signature with each `[signature] document_lock`, judged by pyHanko: the lock is
/// read as written (certification level, field lock), and a later revision the lock does not
/// allow is reported as a modification that breaks the signature, where an unlocked signature
/// would take it.
@Suite struct DocumentLocks {
    private static let signingTime = Date(timeIntervalSince1970: 1_790_000_000)

    private func deviceSigner(_ dir: String) throws -> DeviceSigner {
        try SigningIdentity.create(at: "\(dir)/device.pem", subject: "CN=Kiosk 12,O=Test Shop", days: 30)
    }

    /// `target` of `document` signed with ink, a PAdES signature and `lock`.
    private func sign(_ document: PDFDocument, _ target: SignatureTarget, rect: PDFRect, lock: DocumentLock, signer: DeviceSigner,
                      time: Date = signingTime) throws -> UpdatedPDF {
        var updated = try InkSigning.sign(document, with: TestPDFs.ink(width: rect.width, height: rect.height), at: target,
                                          signatureValue: signer.signatureValue(signingTime: time, lock: lock, reason: "Contract of sale"))
        try signer.complete(&updated)
        return updated
    }

    private func verdicts(_ bytes: [UInt8], _ path: String) throws -> [String: SignatureValidators.PyHankoVerdict] {
        try Tools.write(bytes, to: path)
        return Dictionary(try SignatureValidators.pyHanko(path).map { ($0.field, $0) }, uniquingKeysWith: { a, _ in a })
    }

    @Test(arguments: DocumentLock.allCases)
    func eachLockIsWrittenAsTheValidatorReadsIt(_ lock: DocumentLock) throws {
        let dir = try Tools.directory("lock-\(lock.rawValue)")
        let signer = try deviceSigner(dir)
        let original = TestPDFs.contract()
        let document = try PDFDocument(bytes: original)
        let signed = try sign(document, .field("sign.customer"), rect: TestPDFs.customerRect, lock: lock, signer: signer)
        let outcome = try SignedFileCheck.verify(signed, original: original, name: "contract", directory: dir,
                                                 page: try document.pages()[1], inkedRects: [TestPDFs.customerRect])
        #expect(try SignatureValidators.pdfsigVerdicts(outcome.signedPath) == ["Signature is Valid."])
        let verdict = try #require(try SignatureValidators.pyHanko(outcome.signedPath).first)
        #expect(verdict.intact && verdict.valid && verdict.bottomLine && verdict.modificationLevel == "NONE", "\(verdict)")
        #expect(verdict.docmdp == ["none": "None", "certify": "NO_CHANGES", "certify-form-filling": "FILL_FORMS", "fields": "None"][lock.rawValue])
        #expect(verdict.certifies == lock.certifies, "the catalog's /Perms /DocMDP names the signature")
        #expect(verdict.fieldLock == (lock == .fields ? "EXCLUDE:sign.witness" : "None"), "the witness may still sign")

        // As written: /Reference in the signature dictionary, /Perms in the catalog, /Lock on the field.
        let reread = try PDFDocument(bytes: signed.bytes)
        let field = try #require(try reread.signable().signatureFields.first { $0.name == "sign.customer" }?.reference)
        let fieldDictionary = try #require(try reread.dictionary(.reference(field)))
        let signature = try #require(fieldDictionary["V"]?.referenceValue)
        let references = try reread.array(try reread.dictionary(.reference(signature))?["Reference"]) ?? []
        let perms = try reread.dictionary(try reread.catalog()["Perms"])
        switch lock {
        case .none:
            #expect(references.isEmpty && perms == nil && fieldDictionary["Lock"] == nil)
        case .certify, .certifyFormFilling:
            let reference = try #require(try reread.dictionary(references.first))
            #expect(references.count == 1 && reference["TransformMethod"] == .name("DocMDP") && reference["DigestMethod"] == nil)
            let parameters = try #require(try reread.dictionary(reference["TransformParams"]))
            #expect(parameters["P"] == .integer(lock == .certify ? 1 : 2) && parameters["V"] == .name("1.2"))
            #expect(perms?["DocMDP"] == .reference(signature) && fieldDictionary["Lock"] == nil)
        case .fields:
            let reference = try #require(try reread.dictionary(references.first))
            #expect(reference["TransformMethod"] == .name("FieldMDP") && reference["Data"] == reread.trailer["Root"])
            let parameters = try #require(try reread.dictionary(reference["TransformParams"]))
            #expect(parameters["Action"] == .name("Exclude") && parameters["Fields"] == .array([.string(Array("sign.witness".utf8))]))
            #expect(fieldDictionary["Lock"] == nil && perms == nil, "the form's own field keeps its definition")
        }
    }

    /// What a later revision may change, by lock: another signature (the witness), a text field
    /// filled in, the page's text changed. pyHanko's verdict on the customer's signature: allowed
    /// (`docmdp_ok`) or not, its bytes intact either way. (An annotation is no test of a lock:
    /// pyHanko's default policy explains none after any signature, so every lock refuses it.)
    enum LaterChange: String, CaseIterable { case witnessSigns, formFilled, contentChanged }

    static let allowed: [DocumentLock: Set<LaterChange>] = [
        .none: [.witnessSigns, .formFilled],
        .certify: [],
        .certifyFormFilling: [.witnessSigns, .formFilled],
        .fields: [.witnessSigns],
    ]

    @Test(arguments: DocumentLock.allCases)
    func aLaterRevisionTheLockForbidsBreaksTheSignature(_ lock: DocumentLock) throws {
        let dir = try Tools.directory("lock-later-\(lock.rawValue)")
        let signer = try deviceSigner(dir)
        let signed = try sign(try PDFDocument(bytes: TestPDFs.contract()), .field("sign.customer"), rect: TestPDFs.customerRect,
                              lock: lock, signer: signer)
        let afterSigning = try PDFDocument(bytes: signed.bytes)
        for change in LaterChange.allCases {
            let later = try Self.revision(change, after: afterSigning, signer: signer)
            #expect(later.starts(with: signed.bytes), "\(change): an incremental update")
            let path = "\(dir)/\(change.rawValue).pdf"
            let verdict = try #require(try verdicts(later, path)["sign.customer"], "\(change)")
            let expected = Self.allowed[lock]!.contains(change)
            #expect(verdict.intact && verdict.valid, "\(lock) \(change): the signed revision's bytes are as they were: \(verdict)")
            #expect(verdict.docmdpOK == expected && verdict.bottomLine == expected,
                    "\(lock) \(change): pyHanko should \(expected ? "allow" : "refuse") it: \(verdict)")
            // pdfsig judges the bytes only: the customer's signature stays valid whatever came after,
            // and all it says of the revision is that the signature no longer covers the whole file.
            let pdfsig = try SignatureValidators.pdfsigOutput(path)
            #expect(try SignatureValidators.pdfsigVerdicts(path).first == "Signature is Valid.", "\(pdfsig)")
            #expect(pdfsig.contains("Not total document signed"), "\(pdfsig)")
        }
    }

    /// A later revision as a form filler, an annotating reader or a forger would append it.
    static func revision(_ change: LaterChange, after document: PDFDocument, signer: DeviceSigner) throws -> [UInt8] {
        switch change {
        case .witnessSigns:
            var updated = try InkSigning.sign(document, with: TestPDFs.ink(width: 220, height: 60), at: .field("sign.witness"),
                                              signatureValue: signer.signatureValue(signingTime: signingTime + 600))
            try signer.complete(&updated)
            return updated.bytes
        case .formFilled:
            // The text field "remarks" (object 12) gets a value and an appearance showing it.
            var update = IncrementalUpdate(document)
            let text = Array("BT /Helv 10 Tf 2 8 Td (Paid in cash) Tj ET".utf8)
            let appearance = try update.add(.stream(PDFStream(dictionary: PDFDictionary([
                ("Type", .name("XObject")), ("Subtype", .name("Form")), ("BBox", .array([0, 0, 468, 30].map { .integer($0) })),
                ("Resources", .dictionary(PDFDictionary([("Font", .dictionary(PDFDictionary([("Helv", .reference(PDFReference(7)))])))]))),
                ("Length", .integer(Int64(text.count))),
            ]), data: text[...])))
            var field = try #require(try document.dictionary(.reference(PDFReference(12))))
            field["V"] = .string(Array("Paid in cash".utf8))
            field["AP"] = .dictionary(PDFDictionary([("N", .reference(appearance))]))
            try update.set(PDFReference(12), .dictionary(field))
            return try update.write().bytes
        case .contentChanged:
            // Page 1's text says two pen tablets now.
            var update = IncrementalUpdate(document)
            let text = Array("BT /F1 24 Tf 72 760 Td (Contract of sale) Tj ET\nBT /F1 12 Tf 72 700 Td (The customer buys two pen tablets.) Tj ET".utf8)
            try update.set(PDFReference(5), .stream(PDFStream(dictionary: PDFDictionary([("Length", .integer(Int64(text.count)))]), data: text[...])))
            return try update.write().bytes
        }
    }

    /// A certification must be a document's first signature: on a document the witness signed
    /// already, `applicable` gives the field lock instead, and signing with a certification
    /// anyway is refused, saying why. The field lock's revision leaves the witness's signature valid.
    @Test func aSignedDocumentIsNotCertifiedItsFieldsAreLockedInstead() throws {
        let dir = try Tools.directory("lock-signed-already")
        let signer = try deviceSigner(dir)
        let witnessed = try sign(try PDFDocument(bytes: TestPDFs.contract()), .field("sign.witness"), rect: TestPDFs.witnessRect,
                                 lock: .none, signer: signer)
        let document = try PDFDocument(bytes: witnessed.bytes)
        let signable = try document.signable()
        #expect(DocumentLock.certify.applicable(to: signable) == .fields)
        #expect(DocumentLock.certifyFormFilling.applicable(to: signable) == .fields)
        #expect(DocumentLock.fields.applicable(to: signable) == .fields && DocumentLock.none.applicable(to: signable) == DocumentLock.none)
        #expect(DocumentLock.certify.applicable(to: try PDFDocument(bytes: TestPDFs.contract()).signable()) == .certify)
        for lock in [DocumentLock.certify, .certifyFormFilling] {
            do {
                _ = try sign(document, .field("sign.customer"), rect: TestPDFs.customerRect, lock: lock, signer: signer)
                Issue.record("\(lock) was applied to a signed document")
            } catch let error as PDFError {
                #expect(error.message == "document_lock = \(lock.rawValue): a certification must be the document's first signature, "
                        + "and its field 'sign.witness' is signed already", "\(error)")
            }
        }
        let locked = try sign(document, .field("sign.customer"), rect: TestPDFs.customerRect, lock: .fields, signer: signer,
                              time: Self.signingTime + 600)
        let found = try verdicts(locked.bytes, "\(dir)/locked.pdf")
        let witness = try #require(found["sign.witness"]), customer = try #require(found["sign.customer"])
        #expect(witness.intact && witness.bottomLine && witness.modificationLevel == "FORM_FILLING", "the lock is a change a signature may make: \(witness)")
        #expect(customer.bottomLine && customer.fieldLock == "ALL" && !customer.certifies, "no empty signature field left: every field: \(customer)")
    }

    /// A new field (a place on a document without fields) takes the lock too; a PDF 2.0
    /// document's signature reference names its digest, as ISO 32000-2 wants.
    @Test func aNewFieldIsLockedAndAPDF2DocumentGetsADigestMethod() throws {
        let dir = try Tools.directory("lock-new-field")
        let signer = try deviceSigner(dir)
        var contract = TestPDFs.contract()
        contract.replaceSubrange(0..<8, with: Array("%PDF-2.0".utf8))
        let document = try PDFDocument(bytes: contract)
        let rect = PDFRect(72, 300, 272, 360)
        let signed = try sign(document, .newField(name: "clerk", pageIndex: 0, rect: rect), rect: rect, lock: .fields, signer: signer)
        let clerk = try #require(try verdicts(signed.bytes, "\(dir)/clerk.pdf")["clerk"])
        #expect(clerk.intact && clerk.bottomLine && clerk.fieldLock == "EXCLUDE:sign.customer,sign.witness", "\(clerk)")
        let reread = try PDFDocument(bytes: signed.bytes)
        let widget = try #require(try reread.signable().signatureFields.first { $0.name == "clerk" }?.reference)
        let widgetDictionary = try #require(try reread.dictionary(.reference(widget)))
        let signature = try reread.dictionary(widgetDictionary["V"])
        let reference = try reread.dictionary(try reread.array(signature?["Reference"])?.first)
        #expect(reference?["DigestMethod"] == .name("SHA256"))
        // The field it makes carries the lock too, an indirect /SigFieldLock.
        #expect(widgetDictionary["Lock"]?.referenceValue != nil, "a field's /Lock is an indirect object")
        let fieldLock = try #require(try reread.dictionary(widgetDictionary["Lock"]))
        #expect(fieldLock["Type"] == .name("SigFieldLock") && fieldLock["Action"] == .name("Exclude"))
        #expect(fieldLock["Fields"] == .array(["sign.customer", "sign.witness"].map { .string(Array($0.utf8)) }))

        let certified = try sign(document, .newField(name: "clerk", pageIndex: 0, rect: rect), rect: rect, lock: .certify, signer: signer)
        let verdict = try #require(try verdicts(certified.bytes, "\(dir)/certified.pdf")["clerk"])
        #expect(verdict.bottomLine && verdict.certifies && verdict.docmdp == "NO_CHANGES", "\(verdict)")
    }
}
