// SPDX-License-Identifier: Apache-2.0
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
        guard let form = try acroForm() else {
            var walk = FieldTreeWalk(document: self, pages: pages)
            try walk.checkEveryWidgetReached()
            return ([], [])
        }
        var walk = FieldTreeWalk(document: self, pages: pages)
        guard let fields = try array(form["Fields"]) else {
            throw PDFError.ambiguous("the form (/AcroForm) has no /Fields array (readers differ on what it holds)")
        }
        for item in fields {
            try walk.visit(item, parent: FieldTreeWalk.Inherited(), listedBy: nil, depth: 0)
        }
        try walk.checkEveryWidgetReached()
        return (walk.signatureFields, walk.names)
    }
}

/// The walk over the field tree (ISO 32000-1, 12.7.3): names are joined down the tree, /FT and
/// /V inherited; a /Kids entry with a /T (or its own /Kids or /FT) is a field, one without is
/// a widget of its parent; a field without /Kids is its own widget. One reading: a kid's /Parent
/// is the field that lists it (readers that name a field by going up /Parent must find the name a
/// walk down finds), and a signature's widget is on one page only, the one its /P names if any.
private struct FieldTreeWalk {
    let document: PDFDocument
    let pages: [PDFPage]
    var signatureFields: [SignatureField] = []
    var names: [String] = []
    var visited: Set<Int> = []
    /// Widget annotations the fields reached.
    var reachedWidgets: Set<PDFReference> = []
    var count = 0
    /// Each annotation's page (the first that lists it), and each page's index by its object.
    let annotationPages: [PDFReference: [Int]]
    let pageIndices: [PDFReference: Int]

    init(document: PDFDocument, pages: [PDFPage]) {
        self.document = document
        self.pages = pages
        var annotationPages: [PDFReference: [Int]] = [:], pageIndices: [PDFReference: Int] = [:]
        for page in pages {
            pageIndices[page.reference] = pageIndices[page.reference] ?? page.index
            for a in Set(page.annotations) { annotationPages[a, default: []].append(page.index) }
        }
        self.annotationPages = annotationPages
        self.pageIndices = pageIndices
    }

    /// The page whose /Annots lists the widget (what a viewer draws it on). A signature widget
    /// no page lists is refused (readers place it by its /P, or nowhere: the signer would not see
    /// it where the ink goes), and so is one listed on two pages, or on another than its /P names.
    func pageIndex(of widget: PDFReference, claimedPage: PDFReference?) throws -> Int? {
        let claimed = claimedPage.flatMap { pageIndices[$0] }
        guard let listed = annotationPages[widget] else {
            throw PDFError.ambiguous("the signature widget \(widget) is listed by no page's /Annots "
                                     + (claimed.map { "(its /P names page \($0 + 1))" } ?? "") + ": readers place it there or nowhere")
        }
        guard listed.count == 1, claimed == nil || claimed == listed[0] else {
            throw PDFError.ambiguous("the signature widget \(widget) is listed on page\(listed.count > 1 ? "s" : "") "
                                     + "\(listed.map { "\($0 + 1)" }.joined(separator: " and "))"
                                     + (claimed.map { " but its /P names page \($0 + 1)" } ?? ""))
        }
        return listed[0]
    }

    struct Inherited {
        var name = ""
        var type: PDFName?
        var value: PDFObject?
    }

    /// Visits the field `item`, listed in /Fields (`listedBy` nil) or in the /Kids of `listedBy`.
    mutating func visit(_ item: PDFObject, parent: Inherited, listedBy: PDFReference?, depth: Int) throws {
        guard depth < PDFLimits.maxFieldTreeDepth else {
            throw PDFError.tooLarge("a field tree more than \(PDFLimits.maxFieldTreeDepth) levels deep")
        }
        count += 1
        guard count <= PDFLimits.maxFields else { throw PDFError.tooLarge("more than \(PDFLimits.maxFields) fields and widgets") }
        // A field written into /Fields or /Kids instead of referred to: qpdf and poppler ignore it, others not.
        guard let reference = item.referenceValue else {
            throw PDFError.ambiguous("the form lists \(item.kindName) as a field, not a reference to one (readers ignore it or not)")
        }
        guard let node = try document.dictionary(item) else {
            throw PDFError.ambiguous("the form lists \(reference), which is no dictionary, as a field")
        }
        try checkParent(of: node, reference, listedBy: listedBy)
        // A field listed twice: readers count it twice, once, or stop at the "loop".
        if !visited.insert(reference.number).inserted {
            throw PDFError.ambiguous("the form lists \(reference) twice (readers take it for a loop, or read it twice)")
        }

        var here = parent
        if let partial = try document.resolve(node["T"] ?? .null).stringValue {
            let text = PDFText.decode(partial)
            here.name = parent.name.isEmpty ? text : parent.name + "." + text
        }
        if let value = node["FT"] {
            // One of the four kinds: readers make different things of another.
            guard let type = try document.resolve(value).nameValue, ["Btn", "Tx", "Ch", "Sig"].contains(type) else {
                throw PDFError.ambiguous("a field of the form has /FT \(value.nameValue.map { "\($0)" } ?? value.kindName), "
                                         + "which is none of /Btn, /Tx, /Ch and /Sig")
            }
            here.type = type
        }
        if let value = node["V"], !(try document.resolve(value)).isNull { here.value = value }

        var widgets: [(PDFReference?, PDFDictionary)] = []
        var childFields: [PDFObject] = []
        if let kids = try document.array(node["Kids"]) {
            for kid in kids {
                count += 1
                guard count <= PDFLimits.maxFields else { throw PDFError.tooLarge("more than \(PDFLimits.maxFields) fields and widgets") }
                guard kid.referenceValue != nil, let kidNode = try document.dictionary(kid) else {
                    throw PDFError.ambiguous("the field \(reference) has a kid that is no reference to a dictionary (readers ignore it or not)")
                }
                if kidNode["T"] != nil || kidNode["Kids"] != nil || kidNode["FT"] != nil {
                    childFields.append(kid)
                } else {
                    try checkParent(of: kidNode, kid.referenceValue, listedBy: reference)
                    if let widget = kid.referenceValue, !visited.insert(widget.number).inserted {
                        throw PDFError.ambiguous("the form lists \(widget) twice (readers take it for a loop, or read it twice)")
                    }
                    widgets.append((kid.referenceValue, kidNode))
                }
            }
        } else {
            widgets.append((reference, node))
        }
        for child in childFields { try visit(child, parent: here, listedBy: reference, depth: depth + 1) }
        guard childFields.isEmpty || !widgets.isEmpty else { return }   // not a terminal field

        guard here.type != nil else {
            throw PDFError.ambiguous("the field '\(here.name)' has no /FT, of its own or inherited (poppler takes it for a node of the tree)")
        }
        names.append(here.name)
        reachedWidgets.formUnion(widgets.compactMap(\.0))
        guard here.type == "Sig" else { return }
        var placed: [SignatureWidget] = []
        // Only a widget annotation shows a signature: another kind would be drawn (or not) as each reader sees fit.
        for (widgetReference, widget) in widgets where widget["Subtype"]?.nameValue == "Widget" {
            guard let rect = try document.rect(widget["Rect"]) else {
                throw PDFError.ambiguous("the signature field '\(here.name)' has a widget whose /Rect is not four numbers")
            }
            let page = try widgetReference.flatMap { try pageIndex(of: $0, claimedPage: widget["P"]?.referenceValue) }
            placed.append(SignatureWidget(reference: widgetReference, pageIndex: page, rect: rect))
        }
        signatureFields.append(SignatureField(name: here.name, reference: reference, isSigned: here.value != nil, widgets: placed))
    }

    /// Every widget annotation on a page belongs to a field the form reaches: poppler and qpdf make
    /// one it does not reach a field of its own, other readers ignore it.
    mutating func checkEveryWidgetReached() throws {
        for page in pages {
            for annotation in page.annotations where !reachedWidgets.contains(annotation) {
                guard try document.dictionary(.reference(annotation))?["Subtype"]?.nameValue == "Widget" else { continue }
                throw PDFError.ambiguous("the widget annotation \(annotation) on page \(page.index + 1) belongs to no field of the form "
                                         + "(/AcroForm /Fields): readers differ on whether it is a field")
            }
        }
    }

    /// A kid's /Parent is the field that lists it; a field in /Fields has none.
    private func checkParent(of node: PDFDictionary, _ reference: PDFReference?, listedBy: PDFReference?) throws {
        let named = node["Parent"]?.referenceValue
        guard listedBy == nil ? node["Parent"] == nil : named == listedBy else {
            let what = reference.map { "\($0)" } ?? "a field written into its parent"
            throw PDFError.ambiguous("the form's \(what) has /Parent \(named.map { "\($0)" } ?? "missing") but is listed by "
                                     + "\(listedBy.map { "\($0)" } ?? "/Fields") (readers that name fields by /Parent read other names)")
        }
    }
}
