// SPDX-License-Identifier: Apache-2.0
import InkDocument

/// What a reader makes of a document, as far as a signature depends on it: its pages in order,
/// each with its object, its content streams (their bytes as the file holds them), its resources
/// (followed through every reference), its boxes and rotation; and its signature fields' widgets
/// with their pages and rectangles. Our reader's, qpdf's (`QPDFReading`) and poppler's
/// (`PopplerPages`, which says less) are compared by `differences`: a document the kiosk takes
/// must read the same in all of them.
public struct DocumentReading: Sendable {
    public struct Page: Sendable {
        public var object: String
        public var contents: [ReadValue]
        public var resources: ReadValue?
        /// x0, y0, x1, y1, normalised.
        public var mediaBox: [Double]
        /// Cut to the media box.
        public var cropBox: [Double]
        public var rotation: Int
    }

    public struct Field: Sendable, Equatable, Comparable {
        public var name: String
        public var widget: String
        /// 1-based: the page whose /Annots lists the widget; nil on none.
        public var page: Int?
        public var rect: [Double]

        public static func < (a: Field, b: Field) -> Bool { (a.name, a.widget) < (b.name, b.widget) }
    }

    public var pages: [Page]
    public var signatureFields: [Field]

    /// How `a` (ours) and `b` (another reader's) differ; empty when they read one document.
    public static func differences(_ a: DocumentReading, _ b: DocumentReading, names: (String, String) = ("ours", "qpdf")) -> [String] {
        var out: [String] = []
        if a.pages.count != b.pages.count { out.append("\(a.pages.count) pages (\(names.0)) against \(b.pages.count) (\(names.1))") }
        for (i, (p, q)) in zip(a.pages, b.pages).enumerated() {
            let n = "page \(i + 1)"
            if p.object != q.object { out.append("\(n): object \(p.object) against \(q.object)") }
            if p.contents.count != q.contents.count || !zip(p.contents, q.contents).allSatisfy({ ReadValue.same($0, $1) }) {
                out.append("\(n): contents \(p.contents) against \(q.contents)")
            }
            switch (p.resources, q.resources) {
            case (nil, nil): break
            case (let x?, let y?) where ReadValue.same(x, y): break
            default: out.append("\(n): resources \(p.resources.map(\.description) ?? "none") against \(q.resources.map(\.description) ?? "none")")
            }
            if !sameBox(p.mediaBox, q.mediaBox) { out.append("\(n): media box \(p.mediaBox) against \(q.mediaBox)") }
            if !sameBox(p.cropBox, q.cropBox) { out.append("\(n): crop box \(p.cropBox) against \(q.cropBox)") }
            if p.rotation != q.rotation { out.append("\(n): rotation \(p.rotation) against \(q.rotation)") }
        }
        // Widgets on a page: one on none cannot be signed (and qpdf does not list it).
        let fa = a.signatureFields.filter { $0.page != nil }.sorted(), fb = b.signatureFields.filter { $0.page != nil }.sorted()
        if fa.count != fb.count || !zip(fa, fb).allSatisfy({ $0.name == $1.name && $0.widget == $1.widget && $0.page == $1.page && sameBox($0.rect, $1.rect) }) {
            out.append("signature fields \(fa.map(describe)) against \(fb.map(describe))")
        }
        return out
    }

    static func sameBox(_ a: [Double], _ b: [Double]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= 1e-6 * max(1, abs($0), abs($1)) }
    }

    static func describe(_ f: Field) -> String { "\(f.name) (\(f.widget), page \(f.page.map(String.init) ?? "none"), \(f.rect))" }

    /// A box's corners in order: x0 ≤ x1, y0 ≤ y1.
    static func normalised(_ box: [Double]) -> [Double] {
        guard box.count == 4 else { return box }
        return [min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3])]
    }

    /// The crop box cut to the media box (what viewers show).
    static func cut(_ crop: [Double], to media: [Double]) -> [Double] {
        guard crop.count == 4, media.count == 4 else { return crop }
        return [max(crop[0], media[0]), max(crop[1], media[1]), min(crop[2], media[2]), min(crop[3], media[3])]
    }
}

extension DocumentReading {
    /// Our reader's reading of `document`: its pages and fields as `signable()` finds them.
    public static func ours(_ document: PDFDocument) throws -> DocumentReading {
        let signable = try document.signable()
        var pages: [Page] = []
        for page in signable.pages {
            var resolver = Resolver(fetch: { try document.object($0) })
            let contents = try page.contents.map { try resolver.value(.reference($0), depth: 0, follow: true) }
            let resources = try page.resources.map { try resolver.value($0, depth: 0, follow: true) }
            pages.append(Page(object: "\(page.reference)", contents: contents, resources: resources,
                              mediaBox: box(page.mediaBox), cropBox: box(page.cropBox), rotation: page.rotation))
        }
        var listedOn: [PDFReference: Int] = [:]
        for page in signable.pages { for a in page.annotations where listedOn[a] == nil { listedOn[a] = page.index + 1 } }
        var fields: [Field] = []
        for field in signable.signatureFields {
            for widget in field.widgets {
                guard let reference = widget.reference else { continue }
                fields.append(Field(name: field.name, widget: "\(reference)", page: listedOn[reference], rect: box(widget.rect)))
            }
        }
        return DocumentReading(pages: pages, signatureFields: fields)
    }

    static func box(_ r: PDFRect) -> [Double] { [r.x0, r.y0, r.x1, r.y1] }

    /// Our objects as `ReadValue`s, references followed the first time each is met (dictionaries
    /// in the order of their keys, as `QPDFReading` does too, so that both sides expand the same
    /// occurrence), up to 48 deep; back links (/Parent, /P) stay references.
    struct Resolver {
        let fetch: (PDFReference) throws -> PDFObject
        var expanded = Set<PDFReference>()

        mutating func value(_ object: PDFObject, depth: Int, follow: Bool) throws -> ReadValue {
            switch object {
            case .null: return .null
            case .bool(let b): return .bool(b)
            case .integer(let i): return .number(Double(i))
            case .real(let d): return .number(d)
            case .string(let s): return .bytes(s)
            case .name(let n): return .name(QPDFStrings.name(n.bytes))
            case .reference(let r):
                guard follow, depth < 48, expanded.insert(r).inserted else { return .reference("\(r)") }
                return try value(fetch(r), depth: depth + 1, follow: true)
            case .array(let items): return .array(try items.map { try value($0, depth: depth + 1, follow: follow) })
            case .dictionary(let d): return .dictionary(try dictionary(d, depth: depth, follow: follow))
            case .stream(let s):
                // /Length is the data's (qpdf leaves it out of its JSON beside the data itself).
                var d = s.dictionary
                d["Length"] = nil
                return .stream(try dictionary(d, depth: depth, follow: follow), Array(s.data))
            }
        }

        private mutating func dictionary(_ d: PDFDictionary, depth: Int, follow: Bool) throws -> [String: ReadValue] {
            var out: [String: ReadValue] = [:]
            for entry in d.entries.sorted(by: { QPDFStrings.name($0.key.bytes) < QPDFStrings.name($1.key.bytes) }) {
                let key = QPDFStrings.name(entry.key.bytes)
                out[key] = try value(entry.value, depth: depth + 1, follow: follow && key != "/Parent" && key != "/P")
            }
            return out
        }
    }
}
