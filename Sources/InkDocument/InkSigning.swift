// SPDX-License-Identifier: Apache-2.0
/// Where the ink goes.
public enum SignatureTarget: Sendable, Equatable {
    /// An existing, unsigned signature field, by its fully qualified name.
    case field(String)
    /// A new signature field (one widget, field and annotation in one dictionary) named `name`,
    /// on the page at `pageIndex`, at `rect` (points, the page's default user space).
    case newField(name: String, pageIndex: Int, rect: PDFRect)
}

/// Puts a customer's ink into a PDF's signature field as an incremental update: the original's
/// bytes unchanged, then the ink's appearance (a Form XObject), the widget rewritten to show it
/// (/AP /N, printable), for a new field the widget added to its page's /Annots and to the
/// form's /Fields (the form made if there is none), /AcroForm /SigFlags 1, and the new
/// cross-reference section.
///
/// `attachments` go into the update too: each an embedded file listed in the document's
/// /EmbeddedFiles and in the widget's /AF (associated files, PDF 2.0), its relationship /Data.
///
/// A cryptographic signature (PAdES) is a later step: `signatureValue` is where it comes in.
/// It is given the update and the field's reference, may add objects (a signature dictionary
/// with its /ByteRange and /Contents placeholders) and change the field and the catalog (a
/// lock: `DocumentLock`), and returns the field's /V; the result's `objectRanges` then say
/// where those placeholders were written, to be filled in place.
public enum InkSigning {
    public typealias SignatureValue = (_ update: inout IncrementalUpdate, _ field: PDFReference) throws -> PDFObject

    public static func sign(_ document: PDFDocument, with ink: VectorInk, at target: SignatureTarget,
                            attachments: [EmbeddedFile] = [], signatureValue: SignatureValue? = nil) throws -> UpdatedPDF {
        let signable = try document.signable()
        var update = IncrementalUpdate(document)
        let associated = try EmbeddedFiles.embed(attachments, in: &update).map(PDFObject.reference)
        switch target {
        case .field(let name):
            let (field, widget) = try existingField(name, in: signable)
            let size = (width: widget.rect.width, height: widget.rect.height)
            let appearance = try update.add(.stream(try InkAppearance(ink).formXObject(size: size)))
            guard let widgetReference = widget.reference else {
                throw PDFError.refused("the field '\(name)' has its widget written into its parent, where it cannot be replaced")
            }
            var dictionary = try update.dictionary(.reference(widgetReference), what: "the widget of '\(name)'")
            // A signature widget is on exactly one page's /Annots (the reader refuses others), so
            // it keeps its keys: a validator judging what a later update changed allows the
            // appearance, not a new /P, after a first signature.
            show(appearance, in: &dictionary, page: nil)
            if !associated.isEmpty { dictionary["AF"] = .array((try document.array(dictionary["AF"]) ?? []) + associated) }
            try update.set(widgetReference, .dictionary(dictionary))
            if let signatureValue {
                guard let fieldReference = field.reference else {
                    throw PDFError.refused("the field '\(name)' is written into its parent, where its value cannot be set")
                }
                let value = try signatureValue(&update, fieldReference)
                var fieldDictionary = try update.dictionary(.reference(fieldReference), what: "the field '\(name)'")
                fieldDictionary["V"] = value
                try update.set(fieldReference, .dictionary(fieldDictionary))
            }
            try updateForm(&update, adding: nil)

        case .newField(let name, let pageIndex, let rect):
            let page = try newFieldPlace(name, pageIndex, rect, in: signable)
            let appearance = try update.add(.stream(try InkAppearance(ink).formXObject(size: (rect.width, rect.height))))
            let widgetReference = try update.reserve()
            var widget = PDFDictionary([
                ("Type", .name("Annot")), ("Subtype", .name("Widget")), ("FT", .name("Sig")),
                ("T", .string(PDFText.encode(name))), ("Rect", rect.object),
            ])
            show(appearance, in: &widget, page: page.reference)
            if !associated.isEmpty { widget["AF"] = .array(associated) }
            try update.set(widgetReference, .dictionary(widget))
            if let signatureValue {
                // The hook may add to the field (a /Lock): /V goes into the field as it left it.
                let value = try signatureValue(&update, widgetReference)
                var signed = try update.dictionary(.reference(widgetReference), what: "the new field '\(name)'")
                signed["V"] = value
                try update.set(widgetReference, .dictionary(signed))
            }

            try addAnnotation(widgetReference, to: page, in: &update)
            try updateForm(&update, adding: widgetReference)
        }
        return try update.write()
    }

    /// The unsigned signature field `name` and the widget its ink goes into.
    static func existingField(_ name: String, in signable: SignableDocument) throws -> (SignatureField, SignatureWidget) {
        guard let field = signable.signatureFields.first(where: { $0.name == name }) else {
            if signable.fieldNames.contains(name) { throw PDFError.refused("the field '\(name)' is not a signature field") }
            let known = signable.signatureFields.map { "'\($0.name)'" }.joined(separator: ", ")
            throw PDFError.refused("no signature field '\(name)' (the document has \(known.isEmpty ? "none" : known))")
        }
        guard !field.isSigned else { throw PDFError.refused("the field '\(name)' is signed already") }
        guard let widget = field.widgets.first else { throw PDFError.refused("the field '\(name)' has no widget to draw in") }
        guard widget.rect.width > 0, widget.rect.height > 0 else {
            throw PDFError.refused("the field '\(name)' is invisible (its /Rect \(widget.rect) has no area)")
        }
        return (field, widget)
    }

    /// The page a new field goes on, once its name and place are known to be usable.
    static func newFieldPlace(_ name: String, _ pageIndex: Int, _ rect: PDFRect, in signable: SignableDocument) throws -> PDFPage {
        guard !name.isEmpty, !name.contains(".") else {
            throw PDFError.refused("'\(name)' cannot name a new field (not empty, no '.': it would name a field inside another)")
        }
        guard !signable.fieldNames.contains(name) else { throw PDFError.refused("the document has a field '\(name)' already") }
        guard signable.pages.indices.contains(pageIndex) else {
            throw PDFError.refused("no page \(pageIndex + 1): the document has \(signable.pages.count)")
        }
        guard rect.isFinite, rect.width > 0, rect.height > 0 else { throw PDFError.refused("the rectangle \(rect) has no area") }
        return signable.pages[pageIndex]
    }

    /// The widget shows `appearance` (its only appearance: the ink), printed, not hidden.
    private static func show(_ appearance: PDFReference, in widget: inout PDFDictionary, page: PDFReference?) {
        widget["AP"] = .dictionary(PDFDictionary([("N", .reference(appearance))]))
        widget["AS"] = nil
        // Print (4) on; Invisible (1), Hidden (2) and NoView (32) off.
        let flags = widget["F"]?.integerValue ?? 0
        widget["F"] = .integer((flags | 4) & ~(1 | 2 | 32))
        if widget["P"] == nil, let page { widget["P"] = .reference(page) }
    }

    /// The page rewritten with `annotation` at the end of its /Annots (written into the page: an
    /// indirect /Annots array may be shared with other pages).
    private static func addAnnotation(_ annotation: PDFReference, to page: PDFPage, in update: inout IncrementalUpdate) throws {
        var dictionary = try update.dictionary(.reference(page.reference), what: "page \(page.index + 1)")
        let annotations = try update.document.array(dictionary["Annots"]) ?? []
        dictionary["Annots"] = .array(annotations + [.reference(annotation)])
        try update.set(page.reference, .dictionary(dictionary))
    }

    /// /AcroForm with /SigFlags 1 (SignaturesExist) and, for a new field, the field in /Fields;
    /// the form made (and the catalog pointing at it) when there is none.
    private static func updateForm(_ update: inout IncrementalUpdate, adding field: PDFReference?) throws {
        let document = update.document
        guard let root = document.trailer["Root"]?.referenceValue else { throw PDFError.malformed("the trailer has no /Root reference") }
        var catalog = try update.dictionary(.reference(root), what: "the catalog")

        func updated(_ form: PDFDictionary) throws -> PDFDictionary {
            var form = form
            if let field {
                form["Fields"] = .array((try document.array(form["Fields"]) ?? []) + [.reference(field)])
            }
            let flags = try document.resolve(form["SigFlags"] ?? .null).integerValue ?? 0
            form["SigFlags"] = .integer(flags | 1)
            return form
        }

        switch catalog["AcroForm"] {
        case .reference(let r)? where (try? update.current(r))?.dictionaryValue != nil:
            let form = try update.dictionary(.reference(r), what: "the form (/AcroForm)")
            let changed = try updated(form)
            if changed != form { try update.set(r, .dictionary(changed)) }
        case .dictionary(let form)?:
            let changed = try updated(form)
            if changed != form {
                catalog["AcroForm"] = .dictionary(changed)
                try update.set(root, .dictionary(catalog))
            }
        default:
            // None (or a broken one, which no reader could use): a new form.
            let form = try update.add(.dictionary(try updated(PDFDictionary())))
            catalog["AcroForm"] = .reference(form)
            try update.set(root, .dictionary(catalog))
        }
    }
}
