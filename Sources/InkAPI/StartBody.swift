// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkDocument

/// `POST /signatures`' body: every field optional; unknown fields, null and a field given twice
/// are refused (a misspelt "timout" would otherwise silently become the default). With
/// `document`, the signer signs that stored PDF: in its `field`, or at a new `place`.
struct StartBody: Decodable {
    var prompt: String?
    var timeout: Double?
    var document: String?
    var field: String?
    var place: Place?
    var review: DocumentToSign.Review?

    /// Where a new signature field goes: a 1-based page and a rectangle in PDF points.
    struct Place: Equatable {
        var page: Int
        var rect: PDFRect
    }

    static let fields = ["prompt", "timeout", "document", "field", "place", "review"]
    /// The signer pages through the whole document before Sign is offered: what they sign is
    /// what they were shown (a contract's terms are rarely on its first page).
    static let defaultReview = DocumentToSign.Review.allPages

    static func decode(_ data: Data) throws(APIProblem) -> StartBody {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return StartBody() }
        switch JSONKeyCheck.check(data) {
        case .duplicate(let path): throw APIProblem(.badRequest, "\(path): given more than once")
        case .tooDeep: throw APIProblem(.badRequest, "request body is nested more than \(JSONKeyCheck.deepest) levels deep")
        case nil: break
        }
        let body: StartBody
        do {
            body = try JSONDecoder().decode(StartBody.self, from: data)
        } catch let problem as APIProblem {
            throw problem
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw APIProblem(.badRequest, "request body must be a JSON object such as {\"prompt\": \"Sign here\", \"timeout\": 60}")
        } catch {
            throw APIProblem(.badRequest, "request body is not valid JSON")
        }
        try body.checkDocumentFields()
        return body
    }

    /// `field` and `place` say where in a `document`; a document needs exactly one of them.
    private func checkDocumentFields() throws(APIProblem) {
        guard document != nil else {
            for (name, given) in [("field", field != nil), ("place", place != nil), ("review", review != nil)] where given {
                throw APIProblem(.badRequest, "\(name) needs a document: {\"document\": \"<id from POST /documents>\", \"\(name)\": …}")
            }
            return
        }
        if field != nil && place != nil {
            throw APIProblem(.badRequest, "give field (an existing signature field) or place (a new one), not both")
        }
        if field == nil && place == nil {
            throw APIProblem(.badRequest, "a document needs field (the name of one of its signature fields) "
                             + "or place ({\"page\": 1, \"rect\": [x0, y0, x1, y1]} in points, for a document without fields)")
        }
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        for key in c.allKeys where !Self.fields.contains(key.stringValue) {
            throw APIProblem(.badRequest, "unknown field '\(key.stringValue)' (known: \(Self.fields.joined(separator: ", ")))")
        }
        // decodeIfPresent takes null for "absent": a host sending null meant something else.
        for key in c.allKeys where (try? c.decodeNil(forKey: key)) == true {
            throw APIProblem(.badRequest, "\(key.stringValue): null is not allowed (leave the field out for the default)")
        }
        do { prompt = try c.decodeIfPresent(String.self, forKey: AnyKey("prompt")) } catch {
            throw APIProblem(.badRequest, "prompt must be a string")
        }
        do { timeout = try c.decodeIfPresent(Double.self, forKey: AnyKey("timeout")) } catch {
            throw APIProblem(.badRequest, "timeout must be a number between \(formatSeconds(CaptureLimits.timeout.lowerBound)) and "
                             + "\(formatSeconds(CaptureLimits.timeout.upperBound)) seconds")
        }
        do { document = try c.decodeIfPresent(String.self, forKey: AnyKey("document")) } catch {
            throw APIProblem(.badRequest, "document must be a string: the id POST /documents answered")
        }
        do { field = try c.decodeIfPresent(String.self, forKey: AnyKey("field")) } catch {
            throw APIProblem(.badRequest, "field must be a string: the name of one of the document's signature fields")
        }
        if let text = try? c.decodeIfPresent(String.self, forKey: AnyKey("review")) {
            guard let value = DocumentToSign.Review(rawValue: text) else { throw Self.badReview }
            review = value
        } else if c.contains(AnyKey("review")) {
            throw Self.badReview
        }
        if c.contains(AnyKey("place")) {
            guard let nested = try? c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("place")) else { throw Self.badPlace }
            place = try Self.place(nested)
        }
    }

    private static let badReview = APIProblem(.badRequest, "review must be one of "
                                              + DocumentToSign.Review.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
    private static let badPlace = APIProblem(.badRequest, "place must be {\"page\": P, \"rect\": [x0, y0, x1, y1]}: "
                                             + "a page from 1 and four numbers in PDF points (1/72 inch, origin at the page's bottom left)")

    private static func place(_ c: KeyedDecodingContainer<AnyKey>) throws -> Place {
        for key in c.allKeys where !["page", "rect"].contains(key.stringValue) {
            throw APIProblem(.badRequest, "place: unknown field '\(key.stringValue)' (known: page, rect)")
        }
        guard let page = try? c.decode(Int.self, forKey: AnyKey("page")), page >= 1,
              let r = try? c.decode([Double].self, forKey: AnyKey("rect")), r.count == 4, r.allSatisfy(\.isFinite) else { throw badPlace }
        return Place(page: page, rect: PDFRect(r[0], r[1], r[2], r[3]))
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
