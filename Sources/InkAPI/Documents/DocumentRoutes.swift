// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkDocument

/// `/documents` and the document part of `POST /signatures`. The upload itself arrived on disk
/// already (`DocumentUpload`); what reads or parses a PDF runs later, on a task.
extension SignatureRoutes {
    func documentRoute(_ path: [String], _ request: APIRequest) throws(APIProblem) -> Answer {
        guard let store = documents else { throw APIProblem(.notFound, "this kiosk keeps no documents") }
        if path.count == 1 {
            // A POST with a PDF was streamed to disk and never comes here; one without the type was refused (415).
            try only([.GET, .POST], request)
            guard request.method == .GET else {
                throw APIProblem(.unsupportedMediaType, "POST /documents takes the PDF itself: send Content-Type: application/pdf")
            }
            return .now(.json(.ok, ["documents": store.list().map(\.summary)]))
        }
        try only([.GET, .DELETE], request)
        let id = path[1]
        if request.method == .DELETE {
            try store.delete(id)
            return .now(APIResponse(status: .noContent, headers: [("Cache-Control", "no-store")]))
        }
        guard let record = store.document(id) else { throw DocumentStore.unknown(id) }
        return .now(.json(.ok, record))
    }

    /// A whole `POST /documents` body, in the temporary file at `path`: read, checked and kept
    /// (201), or refused with a reason; the file is gone either way.
    func upload(_ path: String) -> Answer {
        guard let store = documents else {
            unlink(path)
            return .now(Self.response(for: APIProblem(.notFound, "this kiosk keeps no documents")))
        }
        return Self.later { () async throws(APIProblem) -> APIResponse in
            let record = try store.accept(path)
            var response = APIResponse.json(.created, record)
            response.headers.append(("Location", "/documents/\(record.id)"))
            return response
        }
    }

    /// `POST /signatures` with a document: the field (or the new one at `place`) is checked
    /// against the PDF's pages and fields, then the desk hands the kiosk a `DocumentToSign`.
    func start(_ body: StartBody, on id: String) throws(APIProblem) -> Answer {
        guard let store = documents else { throw APIProblem(.notFound, "this kiosk keeps no documents") }
        let (desk, policy) = (self.desk, self.policy)
        return Self.later { () async throws(APIProblem) -> APIResponse in
            // Held until the desk has it: a DELETE meanwhile is 409, and no eviction takes it.
            try await store.holding(id) { () async throws(APIProblem) -> APIResponse in
                let (record, signable) = try store.signable(id)
                let target: SignatureTarget
                if let field = body.field {
                    target = .field(field)
                } else if let place = body.place {
                    target = .newField(name: Self.newFieldName(avoiding: signable.fieldNames), pageIndex: place.page - 1, rect: place.rect)
                } else {
                    throw APIProblem(.badRequest, "a document needs field or place")
                }
                let spot: (pageIndex: Int, rect: PDFRect, pageBox: PDFRect)
                do { spot = try signable.place(of: target) } catch {
                    throw APIProblem(.badRequest, "document \(id): \((error as? PDFError)?.message ?? "\(error)")")
                }
                // The kiosk's minimum review and its lock (not a certification on a document signed already).
                let document = DocumentToSign(id: id, path: store.path(of: id), sha256: record.sha256, pageCount: record.pages,
                                              target: target, pageIndex: spot.pageIndex, rect: spot.rect, pageBox: spot.pageBox,
                                              review: policy.review(asked: body.review), lock: policy.lock.applicable(to: signable))
                do throws(DeskError) {
                    return .json(.created, try desk.start(prompt: body.prompt, timeout: body.timeout, document: document))
                } catch {
                    throw APIProblem(error)
                }
            }
        }
    }

    /// "Signature1", "Signature2", …: the first not already a field's name.
    static func newFieldName(avoiding names: [String]) -> String {
        let taken = Set(names)
        var n = 1
        while taken.contains("Signature\(n)") { n += 1 }
        return "Signature\(n)"
    }
}
