// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkDocument
@testable import InkAPI
import InkTestSupport

/// `[signature] min_review` and `document_lock`: what the kiosk requires of a document's
/// signing, whatever the host asks, and what the host is told was applied.
@Suite struct DocumentPolicyRules {
    @Test func theStricterOfTheHostsReviewAndTheKiosksMinimumWins() {
        typealias Review = DocumentToSign.Review
        // (Review.none written out: a bare .none in an optional's place would be nil.)
        let cases: [(asked: Review?, minimum: Review, applied: Review)] = [
            (Review.none, .none, .none), (Review.none, .firstPage, .firstPage), (Review.none, .allPages, .allPages),
            (.firstPage, .none, .firstPage), (.firstPage, .firstPage, .firstPage), (.firstPage, .allPages, .allPages),
            (.allPages, .none, .allPages), (.allPages, .firstPage, .allPages), (.allPages, .allPages, .allPages),
            // A request that names none gets every page.
            (nil, .none, .allPages), (nil, .firstPage, .allPages),
        ]
        for (asked, minimum, applied) in cases {
            #expect(DocumentPolicy(minReview: minimum).review(asked: asked) == applied, "asked \(String(describing: asked)), minimum \(minimum)")
        }
    }
}

extension DocumentAPI {
    @Test func theKiosksMinimumReviewAndLockAreAppliedAndTheAnswerSaysSo() async throws {
        try await withDocumentAPI(.tcp, policy: DocumentPolicy(minReview: .firstPage, lock: .certify)) { api, desk, _, _ in
            func upload(_ bytes: [UInt8]) async throws -> String {
                let file = try temporaryFile(bytes)
                defer { unlink(file) }
                return try #require(try await curl("POST", "/documents", at: api, file: file).json["id"] as? String)
            }
            let fresh = try await upload(DocumentPDFs.contract())
            let witnessed = try await upload(DocumentPDFs.contract(signedWitness: true))
            let cases: [(body: String, review: String, lock: String)] = [
                // The host asks for less than the kiosk's minimum: raised.
                (#"{"document": "\#(fresh)", "field": "sign.customer", "review": "none"}"#, "first-page", "certify"),
                // … or for more: kept.
                (#"{"document": "\#(fresh)", "field": "sign.customer", "review": "all-pages"}"#, "all-pages", "certify"),
                (#"{"document": "\#(fresh)", "field": "sign.customer"}"#, "all-pages", "certify"),
                // Signed already (the witness): no certification, the fields are locked instead.
                (#"{"document": "\#(witnessed)", "field": "sign.customer", "review": "first-page"}"#, "first-page", "fields"),
            ]
            for item in cases {
                let reply = try await curl("POST", "/signatures", at: api, json: item.body)
                #expect(reply.code == 201, "\(item.body): \(reply.body)")
                let answered = try #require(reply.json["document"] as? [String: Any], "\(reply.body)")
                #expect(answered["review"] as? String == item.review && answered["lock"] as? String == item.lock, "\(item.body): \(reply.body)")
                // The kiosk gets what the answer names, and so does every later status.
                guard case .start(let request)? = desk.takeMessages().first, let document = request.document else {
                    Issue.record("no start for \(item.body)"); continue
                }
                #expect(document.review.rawValue == item.review && document.lock.rawValue == item.lock)
                let id = try #require(reply.json["id"] as? String)
                let status = try await curl("GET", "/signatures/\(id)", at: api)
                #expect((status.json["document"] as? [String: Any])?["lock"] as? String == item.lock, "\(status.body)")
                desk.finish(id: id, state: .cancelled, reason: "cancelled by host", files: nil)
            }
        }
    }
}

extension DocumentAPI {
    /// `[signature] keep_signed_pdf = false`: the signed PDF is not in the outbox; the desk holds
    /// it for GET …/pdf until the host asks for the next signature, then 410 says why.
    @Test func aSignedPDFNotKeptIsServedFromMemoryUntilTheNextRequest() async throws {
        try await withDocumentAPI(.tcp) { api, desk, _, _ in
            let file = try temporaryFile(DocumentPDFs.contract())
            defer { unlink(file) }
            let document = try #require(try await curl("POST", "/documents", at: api, file: file).json["id"] as? String)
            let started = try await curl("POST", "/signatures", at: api, json: #"{"document": "\#(document)", "field": "sign.customer"}"#)
            let id = try #require(started.json["id"] as? String, "\(started.body)")
            _ = desk.takeMessages()
            let signed = DocumentPDFs.contract(signedWitness: true)
            desk.finish(id: id, state: .accepted, reason: nil,
                        files: CaptureFiles(directory: "/tmp", png: "", svg: "", inkml: "", json: "", samples: 1), heldPDF: signed)
            let status = try await curl("GET", "/signatures/\(id)", at: api)
            #expect((status.json["files"] as? [String: Any])?["pdf"] == nil, "no path: it is not on the disk: \(status.body)")
            for _ in 0..<2 {
                let download = try await curl("GET", "/signatures/\(id)/pdf", at: api)
                #expect(download.code == 200 && download.body == String(decoding: signed, as: UTF8.self), "\(download.code) \(download.body.prefix(200))")
            }
            // The host asks for the next signature: the held PDF goes.
            let next = try await curl("POST", "/signatures", at: api, json: "{}")
            #expect(next.code == 201 && desk.heldPDF(id: id) == nil)
            let gone = try await curl("GET", "/signatures/\(id)/pdf", at: api)
            #expect(gone.code == 410 && gone.error.contains("keep_signed_pdf = false") && gone.error.contains("next signature"), "\(gone.body)")
        }
    }
}
