// SPDX-License-Identifier: Apache-2.0
import Crypto
import FoundationEssentials
import Glibc
import InkCore
import InkDocument
import InkLoop

/// A document as it was signed on the screen.
public struct SignedOnScreen: Sendable {
    public var document: DocumentToSign
    /// The screen's rectangle that showed the field, where the ink was written.
    public var shownIn: Rect
    /// The pages shown before the signing view (1-based, in order): the record says what was read.
    public var pagesShown: [Int]
    public init(document: DocumentToSign, shownIn: Rect, pagesShown: [Int]) {
        self.document = document; self.shownIn = shownIn; self.pagesShown = pagesShown
    }
}

/// A digital signature over a signed document's update (PAdES): the update carries its
/// placeholder, then the written file gets its value.
public protocol DocumentSealer: Sendable {
    /// The field's /V: a signature dictionary with room for the value, signed at `signingTime`,
    /// with `lock` (what it forbids later revisions to change).
    func placeholder(signingTime: Date, lock: DocumentLock) -> InkSigning.SignatureValue
    /// The value written into the placeholder of `pdf`.
    func complete(_ pdf: inout UpdatedPDF) throws
}

/// The document a capture signed: its original bytes (checked against the hash the request
/// was made with: the file must not have changed since the host posted it), then an update
/// with the ink in the field, the sealed pen samples as an embedded file (when the document has
/// no signature yet), and, with a `signer`, a digital signature over all of it.
struct DocumentSignature {
    var signed: SignedOnScreen
    var document: DocumentToSign { signed.document }
    var strokes: [Stroke]
    var signedAt: Date
    /// The sealed InkML (its file name and bytes), carried inside the PDF.
    var evidence: (name: String, bytes: Data)?
    var signer: (any DocumentSealer)?

    func make() throws -> (bytes: [UInt8], record: SignatureCapture.Metadata.SignedDocument) {
        let original = try Self.read(document.path)
        let digest = hexString(SHA256.hash(data: original))
        guard digest == document.sha256 else {
            throw StorageError(description: "\(document.path) changed since it was posted (SHA-256 \(digest.prefix(12))…, "
                               + "not \(document.sha256.prefix(12))…): not signed", reason: "the document changed since it was posted")
        }
        // The config sees to it (document_lock needs sign_with); a record must not name a lock never written.
        guard document.lock == .none || signer != nil else {
            throw StorageError(description: "cannot sign \(document.path): document_lock = \"\(document.lock.rawValue)\" needs "
                               + "the device's digital signature, and there is none",
                               reason: "document_lock needs the device's digital signature")
        }
        let pdf: PDFDocument
        do { pdf = try PDFDocument(bytes: original) } catch {
            throw StorageError(document.path, cause: error)
        }
        let ink = try VectorInk(strokes: strokes, shownIn: signed.shownIn, fieldSize: (document.rect.width, document.rect.height))
        // The sealed InkML travels in the PDF with its first signature only: after one, embedding a
        // file (the catalog's /Names, the widget's /AF) is a change validators do not allow an
        // earlier signature (pyHanko: beyond form filling; a certification's /P 2 does not allow
        // it either). The capture's own NAME.inkml.hpke has it all the same.
        let signedAlready: Bool
        do { signedAlready = try pdf.signable().signatureFields.contains(where: \.isSigned) } catch {
            throw StorageError(document.path, cause: error)
        }
        let attachments = signedAlready ? [] : evidence.map {
            [EmbeddedFile(name: $0.name, bytes: [UInt8]($0.bytes), mimeType: "application/octet-stream",
                          description: "The signature's pen samples (InkML), encrypted to the host's key: inkkiosk decrypt",
                          modified: signedAt)]
        } ?? []
        var signed: UpdatedPDF
        do {
            signed = try InkSigning.sign(pdf, with: ink, at: document.target, attachments: attachments,
                                         signatureValue: signer?.placeholder(signingTime: signedAt, lock: document.lock))
            try signer?.complete(&signed)
        } catch {
            throw StorageError("cannot sign \(document.path) at '\(document.fieldName)'", cause: error)
        }
        let record = SignatureCapture.Metadata.SignedDocument(place: document.place, digitallySigned: signer != nil,
                                                              embedded: attachments.first?.name, pagesShown: self.signed.pagesShown)
        return (signed.bytes, record)
    }

    private static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError("open the document", path: path) }
        do {
            return [UInt8](try OwnedFileDescriptor(fd).readToEnd() ?? Data())
        } catch {
            throw StorageError("cannot read the document \(path)", cause: error)
        }
    }
}
