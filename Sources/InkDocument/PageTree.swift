// SPDX-License-Identifier: Apache-2.0
/// One page, as the page tree gives it (with what it inherits from the nodes above it).
public struct PDFPage: Sendable, Equatable {
    /// 0-based, in the order of the page tree's /Kids.
    public var index: Int
    public var reference: PDFReference
    public var mediaBox: PDFRect
    /// What a viewer shows: the /CropBox (within the media box), or the media box when there is none.
    public var cropBox: PDFRect
    /// Clockwise quarter turns the page is shown with: 0, 90, 180 or 270.
    public var rotation: Int
    /// The page's annotations that are references (a widget can only be found through one).
    public var annotations: [PDFReference]
    /// Its content streams, in order (none for an empty page).
    public var contents: [PDFReference]
    /// Its /Resources as the page or the nearest node above it holds them (a reference or a
    /// dictionary); nil when there are none.
    public var resources: PDFObject?
}

extension PDFDocument {
    /// The pages in order, walking /Root /Pages /Kids. The tree must have one reading: each node
    /// says whether it is a page or a node (/Type), names its parent (/Parent: readers that
    /// inherit a box or a rotation by going up /Parent must meet the nodes a walk down meets),
    /// counts its pages right (/Count: some readers find a page by it), appears once (a node
    /// shared or in a loop has no single place), and what pages inherit is what the format
    /// allows (a box of four numbers, a /Rotate that is a whole quarter turn). The root's /Count
    /// is checked against `limits.maxPages` before the walk begins.
    public func pages() throws -> [PDFPage] {
        try within("the page tree") {
            let catalog = try catalog()
            guard let root = catalog["Pages"]?.referenceValue else { throw PDFError.malformed("the catalog has no /Pages reference") }
            guard let node = try dictionary(.reference(root)) else { throw PDFError.malformed("the catalog's /Pages \(root) is not a dictionary") }
            guard node["Parent"] == nil else { throw PDFError.ambiguous("the page tree's root \(root) has a /Parent") }
            guard node["Type"]?.nameValue == "Pages" else {
                throw PDFError.ambiguous("the page tree's root \(root) is not /Type /Pages (readers make one page of it, or none)")
            }
            guard let count = try resolve(node["Count"] ?? .null).integerValue else {
                throw PDFError.malformed("the page tree's root \(root) has no /Count")
            }
            guard count <= Int64(limits.maxPages) else {
                throw PDFError.tooLarge("\(count) pages, where at most \(limits.maxPages) are taken ([limits] document_pages for a host's PDF)")
            }
            var walk = PageTreeWalk(document: self)
            _ = try walk.visit(root, parent: nil, inherited: PageTreeWalk.Inherited(), depth: 0)
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
        var resources: PDFObject?
    }

    /// Visits the node `reference` (whose /Parent must be `parent`); returns the pages below it.
    mutating func visit(_ reference: PDFReference, parent: PDFReference?, inherited: Inherited, depth: Int) throws -> Int {
        guard depth < PDFLimits.maxPageTreeDepth else {
            throw PDFError.tooLarge("a page tree more than \(PDFLimits.maxPageTreeDepth) levels deep")
        }
        guard visited.insert(reference.number).inserted else {
            throw PDFError.ambiguous("object \(reference) appears twice in the page tree (shared, or a loop)")
        }
        guard let node = try document.dictionary(.reference(reference)) else {
            throw PDFError.malformed("the page tree's \(reference) is not a dictionary")
        }
        if let parent {
            guard node["Parent"]?.referenceValue == parent else {
                let named = node["Parent"].map { $0.referenceValue.map { "\($0)" } ?? $0.kindName } ?? "missing"
                throw PDFError.ambiguous("\(reference)'s /Parent is \(named), "
                                         + "but \(parent) lists it (readers that inherit through /Parent read other boxes)")
            }
        }
        let here = try inheritance(of: node, reference, below: inherited)
        switch node["Type"]?.nameValue {
        case "Page":
            guard node["Kids"] == nil else { throw PDFError.ambiguous("\(reference) is a /Page with /Kids") }
            guard pages.count < document.limits.maxPages else {
                throw PDFError.tooLarge("more than \(document.limits.maxPages) pages, the most taken ([limits] document_pages for a host's PDF)")
            }
            pages.append(try page(reference, node, here))
            return 1
        case "Pages":
            guard let kids = try document.array(node["Kids"]) else { throw PDFError.malformed("the page tree's node \(reference) has no /Kids") }
            var below = 0
            for kid in kids {
                guard let child = kid.referenceValue else {
                    throw PDFError.malformed("a /Kids entry of \(reference) is \(kid.kindName), not a reference")
                }
                below += try visit(child, parent: reference, inherited: here, depth: depth + 1)
            }
            let count = try document.resolve(node["Count"] ?? .null).integerValue
            guard count == Int64(below) else {
                throw PDFError.ambiguous("\(reference)'s /Count is \(count.map { "\($0)" } ?? "missing") but it holds \(below) pages "
                                         + "(readers that trust /Count show other pages)")
            }
            return below
        default:
            throw PDFError.ambiguous("\(reference) in the page tree is neither /Type /Page nor /Type /Pages "
                                     + "(readers guess differently what it is)")
        }
    }

    /// What `node` gives its pages: its own boxes, rotation and resources where it has them (each
    /// of a form every reader takes alike), else what it inherited.
    private func inheritance(of node: PDFDictionary, _ reference: PDFReference, below inherited: Inherited) throws -> Inherited {
        var here = inherited
        for (key, path) in [("MediaBox", \Inherited.mediaBox), ("CropBox", \Inherited.cropBox)] as [(PDFName, WritableKeyPath<Inherited, PDFRect?>)] {
            guard let value = node[key] else { continue }
            guard let box = try document.rect(value), box.width > 0, box.height > 0 else {
                throw PDFError.ambiguous("\(reference)'s /\(String(decoding: key.bytes, as: UTF8.self)) is not a box of four numbers "
                                         + "with an area (readers fall back to different sizes)")
            }
            here[keyPath: path] = box
        }
        if let value = node["Rotate"] {
            guard let rotate = try document.resolve(value).integerValue, rotate % 90 == 0 else {
                throw PDFError.ambiguous("\(reference)'s /Rotate is not a whole quarter turn (readers ignore it, or inherit, differently)")
            }
            here.rotate = rotate
        }
        if let value = node["Resources"] {
            guard try document.dictionary(value) != nil else { throw PDFError.ambiguous("\(reference)'s /Resources is not a dictionary") }
            here.resources = value
        }
        return here
    }

    private mutating func page(_ reference: PDFReference, _ node: PDFDictionary, _ inherited: Inherited) throws -> PDFPage {
        guard let media = inherited.mediaBox else {
            throw PDFError.ambiguous("page \(pages.count + 1) (\(reference)) has no /MediaBox, of its own or inherited (readers assume different sizes)")
        }
        // A crop box that reaches outside the media box is cut to it differently (pdf.js takes the
        // intersection, poppler the media box's width or height wherever the crop box is wider or taller).
        var crop = media
        if let c = inherited.cropBox {
            guard c.x0 >= media.x0, c.y0 >= media.y0, c.x1 <= media.x1, c.y1 <= media.y1 else {
                throw PDFError.ambiguous("page \(pages.count + 1) (\(reference))'s /CropBox \(c) reaches outside its /MediaBox \(media) "
                                         + "(readers cut it differently)")
            }
            crop = c
        }
        let rotation = Int(((inherited.rotate ?? 0) % 360 + 360) % 360)
        var annotations: [PDFReference] = []
        let listed: [PDFObject]
        if let value = node["Annots"] {
            // poppler does not make a page whose /Annots is anything else; others ignore it.
            guard let array = try document.array(value) else {
                throw PDFError.ambiguous("page \(pages.count + 1) (\(reference))'s /Annots is \(value.kindName), not an array")
            }
            listed = array
        } else {
            listed = []
        }
        // Pages may share one /Annots array: its size counts for each, against one budget.
        annotationCount += listed.count
        guard annotationCount <= PDFLimits.maxAnnotations else {
            throw PDFError.tooLarge("more than \(PDFLimits.maxAnnotations) annotations on the pages")
        }
        for item in listed {
            // An annotation without a box is drawn by some readers and dropped by poppler.
            guard let annotation = try document.dictionary(item), try document.rect(annotation["Rect"]) != nil else {
                throw PDFError.ambiguous("page \(pages.count + 1) (\(reference)) lists an annotation (\(item.referenceValue.map { "\($0)" } ?? item.kindName)) "
                                         + "that is no dictionary with a /Rect of four numbers (poppler does not draw it, others may)")
            }
            if let r = item.referenceValue {
                guard !annotations.contains(r) else {
                    throw PDFError.ambiguous("page \(pages.count + 1) (\(reference)) lists the annotation \(r) twice (readers draw it once or twice)")
                }
                annotations.append(r)
            }
        }
        return PDFPage(index: pages.count, reference: reference, mediaBox: media, cropBox: crop, rotation: rotation,
                       annotations: annotations, contents: try contents(of: node, reference), resources: inherited.resources)
    }

    /// /Contents: none, a stream, or an array of streams (each a reference, as the format says).
    private func contents(of node: PDFDictionary, _ reference: PDFReference) throws -> [PDFReference] {
        guard let value = node["Contents"] else { return [] }
        let listed: [PDFObject]
        if case .reference(let r) = value, try document.object(r).streamValue != nil {
            listed = [value]
        } else if let array = try document.array(value) {
            listed = array
        } else {
            throw PDFError.ambiguous("\(reference)'s /Contents is neither a stream nor an array of streams")
        }
        return try listed.map { item in
            guard let r = item.referenceValue, try document.object(r).streamValue != nil else {
                throw PDFError.ambiguous("\(reference)'s /Contents holds \(item.kindName), not a reference to a stream")
            }
            return r
        }
    }
}
