// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import InkDocument
import Testing
@testable import InkAPI
import InkTestSupport
import InkAPIClient

/// `/documents` and `POST /signatures` on a document, against the real server over TCP and the
/// unix socket, with curl: what is kept, what is answered, and every refusal's reason.
@Suite(.serialized) struct DocumentAPI {
    @Test(arguments: Transport.allCases)
    func aContractIsUploadedListedReadAndDeleted(_ transport: Transport) async throws {
        try await withDocumentAPI(transport) { api, _, directory, _ in
            let file = try temporaryFile(DocumentPDFs.contract())
            defer { unlink(file) }
            let stored = try await curl("POST", "/documents", at: api, file: file)
            #expect(stored.code == 201, "\(stored.body)")
            let id = try #require(stored.json["id"] as? String)
            let sha = try run("/usr/bin/sha256sum", [file]).stdout.split(separator: " ").first.map(String.init)
            #expect(stored.json["sha256"] as? String == sha, "the SHA-256 of the bytes sent")
            #expect(stored.json["pages"] as? Int == 2)
            let fields = try #require(stored.json["fields"] as? [[String: Any]])
            #expect(fields.map { $0["name"] as? String } == ["sign.customer", "sign.witness"], "only /Sig fields: \(stored.body)")
            #expect(fields.map { $0["page"] as? Int } == [2, 2])
            #expect(fields.map { $0["rect"] as? [Double] } == [[72, 100, 300, 160], [320, 100, 540, 160]], "normalised, in points")
            #expect(fields.map { $0["signed"] as? Bool } == [false, false])

            // On disk: the PDF (0600) and its record, in a 0700 directory; nothing else.
            #expect(filesIn(directory) == ["\(id).json", "\(id).pdf"])
            var info = stat()
            #expect(stat("\(directory)/\(id).pdf", &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(id).pdf")) == Data(contentsOf: URL(fileURLWithPath: file)))

            let read = try await curl("GET", "/documents/\(id)", at: api)
            #expect(read.code == 200 && read.json["sha256"] as? String == sha && (read.json["fields"] as? [Any])?.count == 2, "\(read.body)")
            let list = try await curl("GET", "/documents", at: api)
            let listed = try #require(list.json["documents"] as? [[String: Any]], "\(list.body)")
            #expect(listed.count == 1 && listed[0]["id"] as? String == id && listed[0]["pages"] as? Int == 2
                    && listed[0]["sha256"] as? String == sha && listed[0]["created"] is String)

            #expect(try await curl("DELETE", "/documents/\(id)", at: api).code == 204)
            #expect(filesIn(directory).isEmpty)
            let gone = try await curl("GET", "/documents/\(id)", at: api)
            #expect(gone.code == 404 && gone.error.contains(id))
            #expect(try await curl("DELETE", "/documents/\(id)", at: api).code == 404)
            let unknown = try await curl("GET", "/nothing", at: api)
            #expect(unknown.error.contains("/documents/{id}") && unknown.error.contains("pdf"), "\(unknown.body)")
        }
    }

    @Test(arguments: Transport.allCases)
    func badUploadsAreRefusedWithAReasonAndLeaveNoFile(_ transport: Transport) async throws {
        var limits = APILimits()
        limits.maxDocumentBytes = 64 << 10
        limits.maxDocumentPages = 3
        try await withDocumentAPI(transport, limits: limits) { api, _, directory, _ in
            let contract = DocumentPDFs.contract()
            let text = try temporaryFile(contract)
            defer { unlink(text) }
            let plainText = try await curl("POST", "/documents", at: api, file: text, type: "text/plain")
            #expect(plainText.code == 415 && plainText.error.contains("application/pdf"), "\(plainText.body)")
            let json = try await curl("POST", "/documents", at: api, json: #"{"pdf": "…"}"#)
            #expect(json.code == 415 && json.error.contains("application/pdf"), "\(json.body)")
            let elsewhere = try await curl("POST", "/signatures", at: api, file: text)
            #expect(elsewhere.code == 415 && elsewhere.error.contains("JSON"), "a PDF only on /documents: \(elsewhere.body)")

            let big = try temporaryFile(contract + [UInt8](repeating: 0x20, count: 80 << 10))
            defer { unlink(big) }
            let tooLarge = try await curl("POST", "/documents", at: api, file: big)
            #expect(tooLarge.code == 413 && tooLarge.error.contains("document_mb"), "\(tooLarge.body)")
            let chunked = try await curl("POST", "/documents", at: api, file: big, extra: ["-H", "Transfer-Encoding: chunked"])
            #expect(chunked.code == 413, "counted as it comes: \(chunked.body)")

            let cases: [(bytes: [UInt8], code: Int, says: String)] = [
                (Array("Dear customer, please sign.".utf8), 400, "not a PDF"),
                (Array(contract.prefix(contract.count / 2)), 400, "damaged PDF"),
                (try DocumentPDFs.encrypted(), 422, "encrypted"),
                (DocumentPDFs.plain(pages: 4), 422, "4 pages, where at most 3 are taken"),
                ([], 400, "not a PDF"),
            ]
            for item in cases {
                let file = try temporaryFile(item.bytes)
                defer { unlink(file) }
                let reply = try await curl("POST", "/documents", at: api, file: file)
                #expect(reply.code == item.code && reply.error.contains(item.says), "\(item.says): \(reply.code) \(reply.body)")
            }
            #expect(filesIn(directory).isEmpty, "no upload left behind: \(filesIn(directory))")
        }
    }

    @Test(arguments: Transport.allCases)
    func aSignatureIsRequestedOnAField(_ transport: Transport) async throws {
        try await withDocumentAPI(transport) { api, desk, directory, _ in
            let file = try temporaryFile(DocumentPDFs.contract())
            defer { unlink(file) }
            let stored = try await curl("POST", "/documents", at: api, file: file)
            let id = try #require(stored.json["id"] as? String, "\(stored.body)")
            let sha = try #require(stored.json["sha256"] as? String)

            let started = try await curl("POST", "/signatures", at: api,
                                         json: #"{"document": "\#(id)", "field": "sign.customer", "prompt": "Please sign", "review": "first-page"}"#)
            #expect(started.code == 201, "\(started.body)")
            let capture = try JSONDecoder().decode(CaptureStatus.self, from: Data(started.body.utf8))
            #expect(capture.document == CaptureDocument(id: id, sha256: sha, field: "sign.customer", page: 2, rect: [72, 100, 300, 160],
                                                        review: .firstPage, lock: DocumentLock.none))
            let expected = DocumentToSign(id: id, path: "\(directory)/\(id).pdf", sha256: sha, pageCount: 2, target: .field("sign.customer"),
                                          pageIndex: 1, rect: PDFRect(72, 100, 300, 160), pageBox: PDFRect(0, 0, 595, 842), review: .firstPage)
            #expect(desk.takeMessages() == [.start(CaptureRequest(id: capture.id, prompt: "Please sign", timeout: nil, document: expected))])

            let busy = try await curl("DELETE", "/documents/\(id)", at: api)
            #expect(busy.code == 409 && busy.error.contains("in use"), "\(busy.body)")
            let noPDF = try await curl("GET", "/signatures/\(capture.id)/pdf", at: api)
            #expect(noPDF.code == 404, "waiting: no files yet")

            // The kiosk signs: the signed PDF is served from the capture's files.
            let signed = try temporaryFile(DocumentPDFs.contract(signedWitness: true))
            defer { unlink(signed) }
            desk.finish(id: capture.id, state: .accepted, reason: nil,
                        files: CaptureFiles(directory: "/tmp", png: "", svg: "", inkml: "", json: "", samples: 1, pdf: signed))
            let download = try await curl("GET", "/signatures/\(capture.id)/pdf", at: api)
            #expect(download.code == 200 && download.body.hasPrefix("%PDF-"), "\(download.code)")
            let status = try await curl("GET", "/signatures/\(capture.id)", at: api)
            #expect((status.json["document"] as? [String: Any])?["field"] as? String == "sign.customer", "\(status.body)")
            #expect(try await curl("DELETE", "/documents/\(id)", at: api).code == 204, "free once the request ended")

            // A plain request's status has no document, and no PDF to download.
            let plain = try await curl("POST", "/signatures", at: api, json: "{}")
            let plainID = try #require(plain.json["id"] as? String)
            #expect(plain.json["document"] == nil, "\(plain.body)")
            desk.finish(id: plainID, state: .accepted, reason: nil,
                        files: CaptureFiles(directory: "/tmp", png: "", svg: "", inkml: "", json: "", samples: 1))
            let none = try await curl("GET", "/signatures/\(plainID)/pdf", at: api)
            #expect(none.code == 404 && none.error.contains("not asked on a document"), "\(none.body)")
        }
    }

    @Test func wrongTargetsAreRefusedWithAReason() async throws {
        try await withDocumentAPI(.tcp) { api, desk, _, _ in
            func upload(_ bytes: [UInt8]) async throws -> String {
                let file = try temporaryFile(bytes)
                defer { unlink(file) }
                return try #require(try await curl("POST", "/documents", at: api, file: file).json["id"] as? String)
            }
            let contract = try await upload(DocumentPDFs.contract(signedWitness: true))
            let plain = try await upload(DocumentPDFs.plain(pages: 2))
            let cases: [(body: String, code: Int, says: String)] = [
                (#"{"document": "\#(contract)", "field": "buyer"}"#, 400, "no signature field 'buyer' (the document has 'sign.customer', 'sign.witness')"),
                (#"{"document": "\#(contract)", "field": "sign.witness"}"#, 400, "signed already"),
                (#"{"document": "\#(contract)", "field": "remarks"}"#, 400, "not a signature field"),
                (#"{"document": "\#(plain)", "place": {"page": 3, "rect": [72, 72, 272, 132]}}"#, 400, "no page 3: the document has 2"),
                (#"{"document": "\#(plain)", "place": {"page": 1, "rect": [500, 800, 700, 900]}}"#, 400, "not within page 1"),
                (#"{"document": "\#(contract)", "field": "sign.customer", "place": {"page": 1, "rect": [72, 72, 272, 132]}}"#, 400, "not both"),
                (#"{"field": "sign.customer"}"#, 400, "field needs a document"),
                (#"{"place": {"page": 1, "rect": [1, 2, 3, 4]}}"#, 400, "place needs a document"),
                (#"{"document": "\#(contract)"}"#, 400, "needs field"),
                (#"{"document": "\#(plain)", "place": {"page": 0, "rect": [1, 2, 3]}}"#, 400, "place must be"),
                (#"{"document": "\#(contract)", "field": "sign.customer", "review": "some"}"#, 400, "review must be one of"),
                (#"{"document": "nope", "field": "sign.customer"}"#, 404, "no document with id 'nope'"),
            ]
            for item in cases {
                let reply = try await curl("POST", "/signatures", at: api, json: item.body)
                #expect(reply.code == item.code && reply.error.contains(item.says), "\(item.body): \(reply.code) \(reply.body)")
            }
            #expect(desk.takeMessages().isEmpty, "nothing reached the kiosk")

            // A place on a document without fields: a new field, named so as not to clash.
            let placed = try await curl("POST", "/signatures", at: api, json: #"{"document": "\#(plain)", "place": {"page": 2, "rect": [72, 72, 272, 132]}}"#)
            #expect(placed.code == 201, "\(placed.body)")
            guard case .start(let request)? = desk.takeMessages().first, let document = request.document else { Issue.record("no start"); return }
            #expect(document.target == .newField(name: "Signature1", pageIndex: 1, rect: PDFRect(72, 72, 272, 132)))
            #expect(document.pageIndex == 1 && document.review == .allPages, "all pages unless the host says otherwise")
        }
    }

    @Test func aFullStoreLetsTheOldestGoButNotTheOneInUse() async throws {
        var limits = APILimits()
        limits.maxDocuments = 2
        try await withDocumentAPI(.tcp, limits: limits) { api, desk, directory, _ in
            var ids: [String] = []
            for _ in 0..<3 {
                let file = try temporaryFile(DocumentPDFs.contract())
                defer { unlink(file) }
                ids.append(try #require(try await curl("POST", "/documents", at: api, file: file).json["id"] as? String))
            }
            #expect(try await curl("GET", "/documents/\(ids[0])", at: api).code == 404, "the oldest made room")
            #expect(filesIn(directory).count == 4, "two documents: \(filesIn(directory))")
            // The older of the two is in use by a waiting request: the newer one goes instead.
            let started = try await curl("POST", "/signatures", at: api, json: #"{"document": "\#(ids[1])", "field": "sign.customer"}"#)
            #expect(started.code == 201, "\(started.body)")
            let file = try temporaryFile(DocumentPDFs.plain())
            defer { unlink(file) }
            let fourth = try #require(try await curl("POST", "/documents", at: api, file: file).json["id"] as? String)
            let listed = (try await curl("GET", "/documents", at: api).json["documents"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(listed == [ids[1], fourth])
            _ = desk
        }
    }

    @Test func storedDocumentsOutliveARestartAndLeftoversGo() async throws {
        let directory = temporaryDocumentsDirectory()
        var id = ""
        try await withDocumentAPI(.unix, directory: directory) { api, _, _, _ in
            let file = try temporaryFile(DocumentPDFs.contract())
            defer { unlink(file) }
            id = try #require(try await curl("POST", "/documents", at: api, file: file).json["id"] as? String)
        }
        // What a crash leaves: an upload cut short, a record that no longer reads, a PDF without its record.
        for (name, text) in [(".upload-abc123", "%PDF-1.4 half"), ("20260101T000000Z-000001.json", "{broken"), ("20260101T000000Z-000002.pdf", "%PDF")] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
        }
        try await withDocumentAPI(.tcp, directory: directory) { api, _, _, _ in
            let read = try await curl("GET", "/documents/\(id)", at: api)
            #expect(read.code == 200 && (read.json["fields"] as? [Any])?.count == 2, "\(read.body)")
            #expect(filesIn(directory) == ["\(id).json", "\(id).pdf"])
            let started = try await curl("POST", "/signatures", at: api, json: #"{"document": "\#(id)", "field": "sign.witness"}"#)
            #expect(started.code == 201, "parsed again from its file: \(started.body)")
        }
    }

    @Test(arguments: Transport.allCases)
    func aClientThatLeavesMidUploadLeavesNoFile(_ transport: Transport) async throws {
        try await withDocumentAPI(transport) { _, _, directory, address in
            let during = try await blocking { () -> [String] in
                let client = try BlockingClient(address)
                _ = client.send("POST /documents HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/pdf\r\nContent-Length: 1000000\r\n\r\n")
                _ = client.send([UInt8](repeating: 0x25, count: 200_000))
                var seen: [String] = []
                for _ in 0..<400 where seen.isEmpty { usleep(5_000); seen = filesIn(directory) }
                client.close()
                return seen
            }
            #expect(during.count == 1 && during[0].hasPrefix(".upload-"), "streamed to a file as it comes: \(during)")
            for _ in 0..<400 where !filesIn(directory).isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            #expect(filesIn(directory).isEmpty)
        }
    }
}

extension DocumentAPI {
    @Test func twoUploadsAtOnceAndAThirdWaits() async throws {
        try await withDocumentAPI(.tcp) { api, _, directory, address in
            let file = try temporaryFile(DocumentPDFs.contract())
            defer { unlink(file) }
            let clients = try await blocking { () -> [BlockingClient] in
                let clients = try (0..<2).map { _ in try BlockingClient(address) }
                for client in clients {
                    _ = client.send("POST /documents HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/pdf\r\nContent-Length: 100000\r\n\r\n%PDF-")
                }
                for _ in 0..<400 where filesIn(directory).count < 2 { usleep(5_000) }
                return clients
            }
            let third = try await curl("POST", "/documents", at: api, file: file)
            #expect(third.code == 503 && third.error.contains("being uploaded already"), "\(third.body)")
            for client in clients { client.close() }
            for _ in 0..<400 where !filesIn(directory).isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            #expect(try await curl("POST", "/documents", at: api, file: file).code == 201, "the places are free again")
        }
    }
}

private func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        Thread { c.resume(with: Result { try work() }) }.start()
    }
}
