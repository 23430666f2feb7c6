// SPDX-License-Identifier: Apache-2.0
/// A host's document as one signature request needs it: where the file is, which field (or new
/// place) the ink goes into, and how much of it the signer must page through first. Made by the
/// API from a stored document, carried by the desk to the kiosk's screen, and back to the
/// capture's writer, which signs the file.
public struct DocumentToSign: Sendable, Equatable {
    /// How much of the document is shown before the signing view opens.
    public enum Review: String, Sendable, CaseIterable, Codable, Comparable {
        /// Straight to the signing view.
        case none
        /// The first page, then Sign.
        case firstPage = "first-page"
        /// Every page must have been shown before Sign is offered.
        case allPages = "all-pages"

        /// Less to read before more: none, first-page, all-pages.
        public static func < (a: Review, b: Review) -> Bool { a.pages < b.pages }

        private var pages: Int {
            switch self {
            case .none: 0
            case .firstPage: 1
            case .allPages: 2
            }
        }

        /// What the host asked for, raised to the kiosk's own minimum (`[signature] min_review`):
        /// a host may ask for more reading than the kiosk requires, never for less.
        public func atLeast(_ minimum: Review) -> Review { Swift.max(self, minimum) }
    }

    /// The document's id on the API.
    public var id: String
    /// The PDF as stored (read-only to the kiosk).
    public var path: String
    /// Of the file's bytes, lower-case hex: what the capture is bound to.
    public var sha256: String
    public var pageCount: Int
    /// The field signed: an existing one, or one made at a place.
    public var target: SignatureTarget
    /// 0-based page the ink goes on.
    public var pageIndex: Int
    /// Where on that page, in points (the page's default user space, y up).
    public var rect: PDFRect
    /// The page's visible box (its /CropBox), in the same space.
    public var pageBox: PDFRect
    public var review: Review
    /// What the device's signature forbids later revisions to change (`[signature]
    /// document_lock`, as this document can take it: `DocumentLock.applicable`).
    public var lock: DocumentLock

    public init(id: String, path: String, sha256: String, pageCount: Int, target: SignatureTarget,
                pageIndex: Int, rect: PDFRect, pageBox: PDFRect, review: Review, lock: DocumentLock = .none) {
        self.id = id; self.path = path; self.sha256 = sha256; self.pageCount = pageCount; self.target = target
        self.pageIndex = pageIndex; self.rect = rect; self.pageBox = pageBox; self.review = review; self.lock = lock
    }

    /// The field's name, as the capture's record and the host's status say it.
    public var fieldName: String {
        switch target {
        case .field(let name), .newField(let name, _, _): name
        }
    }

    /// Pages that must have been shown before the signing view opens (1-based, in any order).
    public var pagesToReview: Set<Int> {
        switch review {
        case .none: []
        case .firstPage: [1]
        case .allPages: Set(1...max(pageCount, 1))
        }
    }
}

/// Which document a capture signed and where, as the host's status, the request log and the
/// capture's record name it: the stored document's id, its SHA-256 (what the capture is bound
/// to), the field, its 1-based page and its rectangle in points; and the review and lock
/// applied (the kiosk's `[signature] min_review` may have raised the host's review, and a
/// document signed already is not certified). Records of older versions have neither.
public struct SignedPlace: Codable, Sendable, Equatable {
    public var id: String
    public var sha256: String
    public var field: String
    /// 1-based.
    public var page: Int
    /// [x0, y0, x1, y1] in PDF points.
    public var rect: [Double]
    public var review: DocumentToSign.Review?
    public var lock: DocumentLock?

    public init(id: String, sha256: String, field: String, page: Int, rect: [Double],
                review: DocumentToSign.Review? = nil, lock: DocumentLock? = nil) {
        self.id = id; self.sha256 = sha256; self.field = field; self.page = page; self.rect = rect
        self.review = review; self.lock = lock
    }
}

extension DocumentToSign {
    /// What the host's status and the records name of this request's document.
    public var place: SignedPlace {
        SignedPlace(id: id, sha256: sha256, field: fieldName, page: pageIndex + 1, rect: [rect.x0, rect.y0, rect.x1, rect.y1],
                    review: review, lock: lock)
    }
}

extension SignableDocument {
    /// Where `target` puts its ink in this document, or why it cannot: no such field, a field
    /// signed already, on no page, invisible; a place off the document's pages. Rotated pages
    /// are refused: the signing view maps the page's own axes onto the screen's.
    public func place(of target: SignatureTarget) throws -> (pageIndex: Int, rect: PDFRect, pageBox: PDFRect) {
        // What signing itself refuses (`InkSigning`), then what the signing view needs besides.
        let pageIndex: Int, rect: PDFRect
        switch target {
        case .field(let name):
            let (_, widget) = try InkSigning.existingField(name, in: self)
            guard let index = widget.pageIndex, pages.indices.contains(index) else {
                throw PDFError.refused("the field '\(name)' is on no page")
            }
            (pageIndex, rect) = (index, widget.rect)
        case .newField(let name, let index, let r):
            _ = try InkSigning.newFieldPlace(name, index, r, in: self)
            guard r.width >= 1, r.height >= 1 else { throw PDFError.refused("the rectangle \(r) has no area") }
            (pageIndex, rect) = (index, r)
        }
        let page = pages[pageIndex]
        guard page.rotation == 0 else {
            throw PDFError.refused("page \(pageIndex + 1) is shown turned (/Rotate \(page.rotation)); signing on turned pages is not supported")
        }
        let box = page.cropBox
        guard rect.x0 >= box.x0 - 0.5, rect.y0 >= box.y0 - 0.5, rect.x1 <= box.x1 + 0.5, rect.y1 <= box.y1 + 0.5 else {
            throw PDFError.refused("\(rect) is not within page \(pageIndex + 1)'s visible area \(box)")
        }
        return (pageIndex, rect, box)
    }
}
