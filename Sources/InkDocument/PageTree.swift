/// One page, as the page tree gives it (with what it inherits from the nodes above it).
public struct PDFPage: Sendable, Equatable {
    /// 0-based, in the order of the page tree's /Kids.
    public var index: Int
    public var reference: PDFReference
    public var mediaBox: PDFRect
    /// What a viewer shows: the /CropBox, or the media box when there is none.
    public var cropBox: PDFRect
    /// Clockwise quarter turns the page is shown with: 0, 90, 180 or 270.
    public var rotation: Int
    /// The page's annotations that are references (a widget can only be found through one).
    public var annotations: [PDFReference]
}

extension PDFDocument {
    /// The pages in order, walking /Root /Pages /Kids (a node visited twice is an error: a
    /// loop would never end, and a page shared by two parents has no single index).
    public func pages() throws -> [PDFPage] {
        try within("the page tree") {
            let catalog = try catalog()
            guard let root = catalog["Pages"]?.referenceValue else { throw PDFError.malformed("the catalog has no /Pages reference") }
            var walk = PageTreeWalk(document: self)
            try walk.visit(root, inherited: PageTreeWalk.Inherited(), depth: 0)
            return walk.pages
        }
    }
}

/// The walk over the page tree: depth-first, /Kids in order.
private struct PageTreeWalk {
    let document: PDFDocument
    var pages: [PDFPage] = []
    var visited: Set<Int> = []
    var annotationCount = 0

    /// What a page takes from its ancestors when it lacks it (ISO 32000-1, 7.7.3.4).
    struct Inherited {
        var mediaBox: PDFRect?
        var cropBox: PDFRect?
        var rotate: Int64?
    }

    mutating func visit(_ reference: PDFReference, inherited: Inherited, depth: Int) throws {
        guard depth < PDFLimits.maxPageTreeDepth else {
            throw PDFError.tooLarge("a page tree more than \(PDFLimits.maxPageTreeDepth) levels deep")
        }
        guard visited.insert(reference.number).inserted else {
            throw PDFError.malformed("object \(reference) appears twice in the page tree")
        }
        guard let node = try document.dictionary(.reference(reference)) else {
            throw PDFError.malformed("the page tree's \(reference) is not a dictionary")
        }
        var here = inherited
        if let box = try document.rect(node["MediaBox"]) { here.mediaBox = box }
        if let box = try document.rect(node["CropBox"]) { here.cropBox = box }
        if let rotate = try document.resolve(node["Rotate"] ?? .null).integerValue { here.rotate = rotate }

        let type = node["Type"]?.nameValue
        let kids = try document.array(node["Kids"])
        // A node is a page when it says so, or (sloppy writers) when it has no /Kids.
        if type == "Page" || (type != "Pages" && kids == nil) {
            guard pages.count < PDFLimits.maxPages else { throw PDFError.tooLarge("more than \(PDFLimits.maxPages) pages") }
            let found = try page(reference, node, here)
            pages.append(found)
            return
        }
        for kid in kids ?? [] {
            guard let child = kid.referenceValue else {
                throw PDFError.malformed("a /Kids entry of \(reference) is \(kid.kindName), not a reference")
            }
            try visit(child, inherited: here, depth: depth + 1)
        }
    }

    private mutating func page(_ reference: PDFReference, _ node: PDFDictionary, _ inherited: Inherited) throws -> PDFPage {
        // No media box anywhere: US Letter, what viewers assume.
        let media = inherited.mediaBox ?? PDFRect(0, 0, 612, 792)
        // Multiples of 90 only (others are ignored by viewers); −90 is 270.
        let rotate = inherited.rotate ?? 0
        let rotation = rotate % 90 == 0 ? Int((rotate % 360 + 360) % 360) : 0
        var annotations: [PDFReference] = []
        let listed = try document.array(node["Annots"]) ?? []
        // Pages may share one /Annots array: its size counts for each, against one budget.
        annotationCount += listed.count
        guard annotationCount <= PDFLimits.maxAnnotations else {
            throw PDFError.tooLarge("more than \(PDFLimits.maxAnnotations) annotations on the pages")
        }
        for item in listed {
            if let r = item.referenceValue { annotations.append(r) }
        }
        return PDFPage(index: pages.count, reference: reference, mediaBox: media, cropBox: inherited.cropBox ?? media,
                       rotation: rotation, annotations: annotations)
    }
}
