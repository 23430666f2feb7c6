// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import InkHTTPClient
import Synchronization
import Testing
@testable import InkClassroom

/// The hand-in's rules against an in-memory server (the real one: SchoolCloudTests): a lost
/// answer, an earlier upload of ours, somebody else's file, the outbox's limits.
@Suite(.serialized)
final class HandInRulesTests {
    /// Files by path with ETags; `loseAnswers` stores a PUT and then fails as a dropped connection would.
    final class MemoryServer: HandInServer, @unchecked Sendable {
        struct State { var files: [String: [UInt8]] = [:]; var version = 0; var etags: [String: String] = [:]; var loseAnswers = 0; var puts = 0 }
        let state = Mutex(State())

        func put(_ bytes: [UInt8], to path: String, contentType: String, condition: PutCondition) throws(DAVError) -> PutOutcome {
            let result: Result<PutOutcome, DAVError> = state.withLock { s in
                s.puts += 1
                switch condition {
                case .mustNotExist where s.files[path] != nil: return .success(.preconditionFailed)
                case .mustMatch(let etag) where s.etags[path] != etag: return .success(.preconditionFailed)
                default: break
                }
                s.version += 1
                s.files[path] = bytes
                s.etags[path] = "\"v\(s.version)\""
                if s.loseAnswers > 0 {
                    s.loseAnswers -= 1
                    return .failure(.http(HTTPError(method: "PUT", url: path, reason: .transfer(code: 56, name: "Failure when receiving data from the peer", message: ""))))
                }
                return .success(.stored(etag: s.etags[path]))
            }
            return try result.get()
        }

        func get(_ path: String) throws(DAVError) -> (bytes: [UInt8], etag: String?) {
            let found = state.withLock { s in s.files[path].map { ($0, s.etags[path]) } }
            guard let found else { throw .notFound(url: path) }
            return found
        }

        func fileETag(_ path: String) throws(DAVError) -> String? { state.withLock { $0.etags[path] } }

        /// The teacher changes a file (a new version, a new ETag).
        func edit(_ path: String, _ bytes: [UInt8]) {
            state.withLock { s in s.version += 1; s.files[path] = bytes; s.etags[path] = "\"t\(s.version)\"" }
        }
    }

    let directory: String
    let server = MemoryServer()
    let outbox: HandInOutbox
    let sender: HandInSender

    init() throws {
        directory = NSTemporaryDirectory() + "inkkiosk-handin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        outbox = HandInOutbox(directory: directory + "/outbox", maxItems: 3, maxBytes: 10_000)
        sender = HandInSender(server: server, folder: "Hand-in", outbox: outbox, ledgerPath: directory + "/ledger.json")
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func handIn(_ text: String, title: String = "Fractions", at time: Int64 = 1_800_000_000) throws -> HandInItem {
        let source = directory + "/source.pdf"
        try Data(text.utf8).write(to: URL(fileURLWithPath: source))
        return try outbox.enqueue(title: title, handedIn: time, files: [(remote: "tablet-07-\(title).pdf", source: source)])
    }

    var ledger: HandInLedger { get throws { try HandInLedger.load(directory + "/ledger.json") } }

    @Test func aHandInIsSentOnceAndRemovedFromTheTablet() throws {
        let item = try handIn("first")
        let round = try sender.sendWaiting(now: 10)
        #expect(round.sent == [item.id])
        #expect(server.state.withLock { $0.files["Hand-in/tablet-07-Fractions.pdf"] } == Array("first".utf8))
        #expect(try outbox.items().isEmpty)
        #expect(try ledger.states["Fractions"] == HandInState(phase: .sent, updated: 10, itemID: item.id))
        #expect(try sender.sendWaiting(now: 11) == HandInSender.Round())
    }

    @Test func aLostAnswerDoesNotMakeASecondCopyOrAConflict() throws {
        server.state.withLock { $0.loseAnswers = 1 }
        _ = try handIn("first")
        let lost = try sender.sendWaiting(now: 10)
        #expect(lost.stoppedBy != nil)
        #expect(try ledger.states["Fractions"]?.phase == .waiting)
        #expect(try ledger.states["Fractions"]?.reason == "no connection to the school's server")
        #expect(try outbox.items().count == 1)
        let retried = try sender.sendWaiting(now: 20)
        #expect(retried.sent.count == 1)
        #expect(server.state.withLock { ($0.files.count, $0.puts) } == (1, 2))   // the retry's 412, no new file
        // A resubmission then replaces it with If-Match on the ETag found.
        _ = try handIn("second")
        #expect(try sender.sendWaiting(now: 30).sent.count == 1)
        #expect(server.state.withLock { $0.files["Hand-in/tablet-07-Fractions.pdf"] } == Array("second".utf8))
    }

    @Test func aResubmissionWhoseFirstAnswerWasLostReplacesOurOwnEarlierUpload() throws {
        _ = try handIn("first")
        server.state.withLock { $0.loseAnswers = 1 }
        _ = try sender.sendWaiting(now: 10)   // stored, answer lost: unanswered in the ledger
        _ = try handIn("second")              // supersedes the first in the outbox
        #expect(try outbox.items().count == 1)
        #expect(try sender.sendWaiting(now: 20).sent.count == 1)
        #expect(server.state.withLock { $0.files["Hand-in/tablet-07-Fractions.pdf"] } == Array("second".utf8))
    }

    @Test func somebodyElsesFileOrAChangeOnTheServerIsNeverReplaced() throws {
        server.edit("Hand-in/tablet-07-Maps.pdf", Array("a file that was there".utf8))
        let item = try handIn("mine", title: "Maps")
        let round = try sender.sendWaiting(now: 10)
        #expect(round.failed == [item.id])
        #expect(try ledger.states["Maps"]?.reason == "another file named tablet-07-Maps.pdf is in the hand-in folder already: it was not replaced")
        #expect(server.state.withLock { $0.files["Hand-in/tablet-07-Maps.pdf"] } == Array("a file that was there".utf8))
        // Failed for good: not tried again, kept until the pupil hands in anew.
        #expect(try sender.sendWaiting(now: 11) == HandInSender.Round())
        #expect(try outbox.items().map(\.id) == [item.id])

        _ = try handIn("v1", title: "Fractions")
        #expect(try sender.sendWaiting(now: 20).sent.count == 1)
        server.edit("Hand-in/tablet-07-Fractions.pdf", Array("the teacher's marks".utf8))
        _ = try handIn("v2", title: "Fractions")
        #expect(try sender.sendWaiting(now: 30).failed.count == 1)
        #expect(try ledger.states["Fractions"]?.reason == "tablet-07-Fractions.pdf was changed on the server since this tablet handed it in: it was not replaced")
        #expect(server.state.withLock { $0.files["Hand-in/tablet-07-Fractions.pdf"] } == Array("the teacher's marks".utf8))
    }

    @Test func theOutboxRefusesBeyondItsLimitsAndKeepsWhatWaits() throws {
        _ = try handIn("a", title: "A")
        _ = try handIn("b", title: "B")
        _ = try handIn("c", title: "C")
        #expect(throws: HandInOutbox.Refused.self) { try self.handIn("d", title: "D") }
        #expect(try outbox.items().map(\.title) == ["A", "B", "C"])
        let big = HandInOutbox(directory: directory + "/small", maxItems: 10, maxBytes: 4)
        let source = directory + "/big.pdf"
        try Data("12345".utf8).write(to: URL(fileURLWithPath: source))
        #expect(throws: HandInOutbox.Refused.self) { try big.enqueue(title: "X", handedIn: 1, files: [(remote: "x.pdf", source: source)]) }
        #expect(try big.items().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/small").isEmpty)   // no staging left
    }

    @Test func aDamagedCopyOnTheTabletFailsInsteadOfSendingOtherBytes() throws {
        let item = try handIn("first")
        try Data("changed".utf8).write(to: URL(fileURLWithPath: outbox.path(of: item.files[0], in: item)))
        #expect(try sender.sendWaiting(now: 10).failed == [item.id])
        #expect(server.state.withLock { $0.puts } == 0)
    }
}
