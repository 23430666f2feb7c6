// SPDX-License-Identifier: Apache-2.0
/// What the device's signature forbids later updates of its document to change (`[signature]
/// document_lock`; ISO 32000-1, 12.8.2.2 DocMDP and 12.8.2.4 FieldMDP). A validator judges every
/// revision after the signature against it and reports a change it does not allow as one that
/// breaks the signature, where without a lock it would be one more revision.
public enum DocumentLock: String, Sendable, CaseIterable, Codable {
    /// An approval signature: later revisions are judged by the validator's own rules.
    case none
    /// A certification (DocMDP, /P 1): no change at all, not even another signature.
    case certify
    /// A certification (DocMDP, /P 2): only filling in the form and signing its other fields.
    case certifyFormFilling = "certify-form-filling"
    /// A field lock (FieldMDP): no field's value may change, except signature fields still
    /// empty (a witness may still sign); with none left, every field.
    case fields

    /// A certification signature, which must be the document's first.
    public var certifies: Bool { self == .certify || self == .certifyFormFilling }

    /// The DocMDP permissions (/P) of a certification.
    var permissions: Int64? {
        switch self {
        case .certify: 1
        case .certifyFormFilling: 2
        case .none, .fields: nil
        }
    }

    /// The lock `document` can take: a certification must be a document's first signature, so
    /// on one signed already the fields are locked instead (`fields`); the others as they are.
    public func applicable(to document: SignableDocument) -> DocumentLock {
        certifies && document.signatureFields.contains(where: \.isSigned) ? .fields : self
    }
}

extension DocumentLock {
    /// Writes what the lock needs besides the signature dictionary `signature` (not yet written)
    /// of the signature field `field` (already in `update`), and returns the signature reference
    /// dictionaries for the signature dictionary's /Reference (none without a lock):
    ///
    /// - a certification: /Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams
    ///   << /Type /TransformParams /P 1|2 /V /1.2 >> >>], and the catalog's /Perms /DocMDP names
    ///   the signature dictionary (what makes it the certification, not just an approval that
    ///   says DocMDP). Refused on a document with a signature already, or certified already.
    /// - a field lock: /Reference [<< /Type /SigRef /TransformMethod /FieldMDP /Data <catalog>
    ///   /TransformParams << /Type /TransformParams /Action /Exclude /Fields [...] /V /1.2 >> >>],
    ///   which is what validators enforce. A field the update makes also gets the same /Action
    ///   and /Fields as its /Lock (/Type /SigFieldLock, an indirect object as 12.7.4.5 wants); an
    ///   existing field does not: its /Lock is the form's definition, and a validator judging an
    ///   earlier signature takes a /Lock added there for more than filling the field in.
    ///
    /// /DigestMethod only for a PDF 2.0 document, whose ISO 32000-2 requires it (SHA256: the
    /// CMS's digest); ISO 32000-1 allows only MD5 and SHA1 there, for an object digest no one
    /// computes any more, and PDF/A forbids it.
    public func references(signature: PDFReference, field: PDFReference, in update: inout IncrementalUpdate) throws -> [PDFObject] {
        guard self != .none else { return [] }
        let document = update.document
        guard let root = document.trailer["Root"]?.referenceValue else { throw PDFError.malformed("the trailer has no /Root reference") }
        var catalog = try update.dictionary(.reference(root), what: "the catalog")
        let catalogVersion = (try document.resolve(catalog["Version"] ?? .null)).nameValue.map { String(decoding: $0.bytes, as: UTF8.self) }
        let pdf2 = document.version.hasPrefix("2") || catalogVersion?.hasPrefix("2") == true
        let signable = try document.signable()

        func reference(_ method: PDFName, _ parameters: [(PDFName, PDFObject)], data: PDFObject? = nil) -> PDFObject {
            var dictionary = PDFDictionary([("Type", .name("SigRef")), ("TransformMethod", .name(method))])
            if let data { dictionary["Data"] = data }
            dictionary["TransformParams"] = .dictionary(PDFDictionary([("Type", .name("TransformParams"))] + parameters + [("V", .name("1.2"))]))
            if pdf2 { dictionary["DigestMethod"] = .name("SHA256") }
            return .dictionary(dictionary)
        }

        if let permissions {
            if let signed = signable.signatureFields.first(where: \.isSigned) {
                throw PDFError.refused("document_lock = \(rawValue): a certification must be the document's first signature, "
                                       + "and its field '\(signed.name)' is signed already")
            }
            var perms = try catalog["Perms"].map { try update.dictionary($0, what: "the catalog's /Perms") } ?? PDFDictionary()
            guard perms["DocMDP"] == nil else {
                throw PDFError.refused("document_lock = \(rawValue): the document is certified already (/Perms /DocMDP)")
            }
            perms["DocMDP"] = .reference(signature)
            if case .reference(let r)? = catalog["Perms"] {
                try update.set(r, .dictionary(perms))
            } else {
                catalog["Perms"] = .dictionary(perms)
                try update.set(root, .dictionary(catalog))
            }
            return [reference("DocMDP", [("P", .integer(permissions))])]
        }

        // .fields: every field but the signature fields still empty (other than this one).
        let open = signable.signatureFields.filter { !$0.isSigned && $0.reference != field }.map { PDFObject.string(PDFText.encode($0.name)) }
        let scope: [(PDFName, PDFObject)] = open.isEmpty ? [("Action", .name("All"))] : [("Action", .name("Exclude")), ("Fields", .array(open))]
        if field.number >= document.crossReference.nextFreeNumber {
            let lock = try update.add(.dictionary(PDFDictionary([("Type", .name("SigFieldLock"))] + scope)))
            var fieldDictionary = try update.dictionary(.reference(field), what: "the signature field")
            fieldDictionary["Lock"] = .reference(lock)
            try update.set(field, .dictionary(fieldDictionary))
        }
        return [reference("FieldMDP", scope, data: .reference(root))]
    }
}
