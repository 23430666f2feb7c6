// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkDocument

/// What the store learnt of one uploaded PDF when it took it: kept in memory and in `DOC.json`
/// beside `DOC.pdf`, and what `POST /documents` and `GET /documents/{DOC}` answer.
struct StoredDocument: Codable, Sendable, Equatable {
    /// One signature field (AcroForm /FT /Sig) as the host sees it.
    struct Field: Codable, Sendable, Equatable {
        var name: String
        /// 1-based; nil for a field on no page (it cannot be signed).
        var page: Int?
        /// [x0, y0, x1, y1] in PDF points; nil for a field with no widget.
        var rect: [Double]?
        var signed: Bool

        enum CodingKeys: String, CodingKey { case name, page, rect, signed }

        /// `page` and `rect` are null rather than left out: a host's parser sees one shape.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(page, forKey: .page)
            try c.encode(rect, forKey: .rect)
            try c.encode(signed, forKey: .signed)
        }
    }

    var id: String
    /// Of the file's bytes, lower-case hex.
    var sha256: String
    var pages: Int
    var fields: [Field]
    var bytes: Int
    /// ISO 8601, UTC, with milliseconds.
    var created: String

    init(id: String, sha256: String, bytes: Int, created: String, signable: SignableDocument) {
        self.id = id; self.sha256 = sha256; self.bytes = bytes; self.created = created
        pages = signable.pages.count
        fields = signable.signatureFields.map { field in
            let rect = field.rect.map { [$0.x0, $0.y0, $0.x1, $0.y1] }
            let onPage = field.pageIndex.flatMap { signable.pages.indices.contains($0) ? $0 + 1 : nil }
            return Field(name: field.name, page: onPage, rect: rect, signed: field.isSigned)
        }
    }

    /// A line of `GET /documents`.
    struct Summary: Encodable {
        var id: String
        var sha256: String
        var pages: Int
        var created: String
    }

    var summary: Summary { Summary(id: id, sha256: sha256, pages: pages, created: created) }
}
