/// Where a signature field is drawn: one of its widget annotations.
public struct SignatureWidget: Sendable, Equatable {
    /// The widget's object (the field's own when field and widget are one dictionary); nil for
    /// a widget written directly into its parent (it cannot be rewritten, nor be on a page).
    public var reference: PDFReference?
    /// The page it is on: the page whose /Annots lists it, else the one its /P names.
    public var pageIndex: Int?
    /// Its /Rect in the page's default user space (points), normalised.
    public var rect: PDFRect
}

/// A signature field (/FT /Sig, possibly inherited) of the document's form.
public struct SignatureField: Sendable, Equatable {
    /// The fully qualified name: the /T of the field and its ancestors joined by '.'.
    public var name: String
    /// The field's dictionary; nil when it is written directly into /Fields or /Kids.
    public var reference: PDFReference?
    /// Whether it holds a signature already (a /V that is not null).
    public var isSigned: Bool
    /// Its widgets, usually one.
    public var widgets: [SignatureWidget]

    /// The first widget's page and rectangle: where the signature goes.
    public var pageIndex: Int? { widgets.first?.pageIndex }
    public var rect: PDFRect? { widgets.first?.rect }
}

/// What a signing screen needs to know of a document.
public struct SignableDocument: Sendable, Equatable {
    public var pages: [PDFPage]
    public var signatureFields: [SignatureField]
    /// Every terminal field's fully qualified name, of any type (a new field must not take one).
    public var fieldNames: [String]
}

extension PDFDocument {
    /// The pages and the signature fields of /Root /AcroForm /Fields.
    public func signable() throws -> SignableDocument {
        let pages = try pages()
        let (fields, names) = try within("the form's fields") { try formFields(pages: pages) }
        return SignableDocument(pages: pages, signatureFields: fields, fieldNames: names)
    }

    /// The /AcroForm dictionary, nil when the document has none.
    public func acroForm() throws -> PDFDictionary? {
        try dictionary(try catalog()["AcroForm"])
    }

    private func formFields(pages: [PDFPage]) throws -> ([SignatureField], [String]) {
        guard let form = try acroForm() else { return ([], []) }
        var walk = FieldTreeWalk(document: self, pages: pages)
        for item in try array(form["Fields"]) ?? [] {
            try walk.visit(item, parent: FieldTreeWalk.Inherited(), depth: 0)
        }
        return (walk.signatureFields, walk.names)
    }
}

/// The walk over the field tree (ISO 32000-1, 12.7.3): names are joined down the tree, /FT and
/// /V inherited; a /Kids entry with a /T (or its own /Kids or /FT) is a field, one without is
/// a widget of its parent; a field without /Kids is its own widget.
private struct FieldTreeWalk {
    let document: PDFDocument
    let pages: [PDFPage]
    var signatureFields: [SignatureField] = []
    var names: [String] = []
    var visited: Set<Int> = []
    var count = 0
    /// Each annotation's page (the first that lists it), and each page's index by its object.
    let annotationPages: [PDFReference: Int]
    let pageIndices: [PDFReference: Int]

    init(document: PDFDocument, pages: [PDFPage]) {
        self.document = document
        self.pages = pages
        var annotationPages: [PDFReference: Int] = [:], pageIndices: [PDFReference: Int] = [:]
        for page in pages {
            pageIndices[page.reference] = pageIndices[page.reference] ?? page.index
            for a in page.annotations where annotationPages[a] == nil { annotationPages[a] = page.index }
        }
        self.annotationPages = annotationPages
        self.pageIndices = pageIndices
    }

    /// The page whose /Annots lists the widget (what a viewer draws it on), else the one its /P names.
    func pageIndex(of widget: PDFReference, claimedPage: PDFReference?) -> Int? {
        annotationPages[widget] ?? claimedPage.flatMap { pageIndices[$0] }
    }

    struct Inherited {
        var name = ""
        var type: PDFName?
        var value: PDFObject?
    }

    mutating func visit(_ item: PDFObject, parent: Inherited, depth: Int) throws {
        guard depth < PDFLimits.maxFieldTreeDepth else {
            throw PDFError.tooLarge("a field tree more than \(PDFLimits.maxFieldTreeDepth) levels deep")
        }
        count += 1
        guard count <= PDFLimits.maxFields else { throw PDFError.tooLarge("more than \(PDFLimits.maxFields) fields and widgets") }
        let reference = item.referenceValue
        // A field listed twice (sloppy writers do) or a loop: the second visit adds nothing.
        if let reference, !visited.insert(reference.number).inserted { return }
        guard let node = try document.dictionary(item) else { return }   // a null or stray entry: nothing to list

        var here = parent
        if let partial = try document.resolve(node["T"] ?? .null).stringValue {
            let text = PDFText.decode(partial)
            here.name = parent.name.isEmpty ? text : parent.name + "." + text
        }
        if let type = try document.resolve(node["FT"] ?? .null).nameValue { here.type = type }
        if let value = node["V"], !(try document.resolve(value)).isNull { here.value = value }

        var widgets: [(PDFReference?, PDFDictionary)] = []
        var childFields: [PDFObject] = []
        if let kids = try document.array(node["Kids"]) {
            for kid in kids {
                count += 1
                guard count <= PDFLimits.maxFields else { throw PDFError.tooLarge("more than \(PDFLimits.maxFields) fields and widgets") }
                guard let kidNode = try document.dictionary(kid) else { continue }
                if kidNode["T"] != nil || kidNode["Kids"] != nil || kidNode["FT"] != nil {
                    childFields.append(kid)
                } else {
                    widgets.append((kid.referenceValue, kidNode))
                }
            }
        } else {
            widgets.append((reference, node))
        }
        for child in childFields { try visit(child, parent: here, depth: depth + 1) }
        guard childFields.isEmpty || !widgets.isEmpty else { return }   // not a terminal field

        names.append(here.name)
        guard here.type == "Sig" else { return }
        var placed: [SignatureWidget] = []
        for (widgetReference, widget) in widgets {
            let rect = try document.rect(widget["Rect"]) ?? .zero
            let page = widgetReference.flatMap { pageIndex(of: $0, claimedPage: widget["P"]?.referenceValue) }
            placed.append(SignatureWidget(reference: widgetReference, pageIndex: page, rect: rect))
        }
        signatureFields.append(SignatureField(name: here.name, reference: reference, isSigned: here.value != nil, widgets: placed))
    }
}
