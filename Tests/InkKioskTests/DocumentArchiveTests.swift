// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkStorage
@testable import InkAPI
@testable import InkKiosk
import InkTestSupport

/// A request on a document keeps its document across a restart: the outbox's request log
/// writes it with the start, and the restored status names it again.
@Suite struct DocumentArchive {
    @Test func aRequestsDocumentIsRestored() throws {
        let outbox = try Fixtures.outputDirectory("doc-archive-\(UUID().uuidString.prefix(8))")
        let archive = OutboxArchive(outbox: outbox, retention: Retention(keep: 10, maxAgeDays: 30))
        let document = CaptureDocument(id: "20261123T060355Z-8d20b1", sha256: String(repeating: "ab", count: 32),
                                       field: "sign.customer", page: 2, rect: [72, 100, 300, 160])
        let onDocument = CaptureStatus(id: "20261123T060412Z-3fa91c", state: .waiting, prompt: "Sign", timeout: nil,
                                       created: "2026-11-23T06:04:12.264Z", document: document)
        let plain = CaptureStatus(id: "20261123T060500Z-000001", state: .waiting, prompt: nil, timeout: nil, created: "2026-11-23T06:05:00.000Z")
        try archive.started(onDocument)
        try archive.started(plain)
        archive.settle()

        let restored = OutboxArchive(outbox: outbox, retention: Retention(keep: 10, maxAgeDays: 30)).restored
        #expect(restored.map(\.id) == [onDocument.id, plain.id])
        #expect(restored.first?.document == document && restored.first?.state == .interrupted)
        #expect(restored.last?.document == nil)
        // A plain request's line has no document key (an older kiosk reads it as before).
        let log = try String(contentsOfFile: "\(outbox)/\(RequestLog.fileName)", encoding: .utf8)
        #expect(log.split(separator: "\n").filter { $0.contains("\"document\"") }.count == 1, "\(log)")
    }
}
