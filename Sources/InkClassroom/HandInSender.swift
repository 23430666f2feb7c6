// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkCore

/// The requests a hand-in makes: WebDAV's, or a stand-in in a unit test of the rules below.
public protocol HandInServer: Sendable {
    func put(_ bytes: [UInt8], to path: String, contentType: String, condition: PutCondition) throws(DAVError) -> PutOutcome
    func get(_ path: String) throws(DAVError) -> (bytes: [UInt8], etag: String?)
    func fileETag(_ path: String) throws(DAVError) -> String?
}

extension WebDAVClient: HandInServer {}

/// Sends the outbox's hand-ins to the class's hand-in folder, each exactly once, never over
/// anybody's file:
/// - a first upload of a name says `If-None-Match: *`, a resubmission `If-Match` with the ETag of
///   our own last upload, so a file someone else put there or changed is never replaced;
/// - before each upload its digest is written to the ledger (synced) as unanswered; when the
///   server then refuses the condition (412), the file there is read: if it is this upload, the
///   answer was lost and it is sent; if it is an earlier unanswered upload of ours, it is replaced
///   (`If-Match` on its ETag); anything else is a conflict, shown to the pupil, and nothing is replaced.
public struct HandInSender: Sendable {
    public let server: any HandInServer
    /// The hand-in folder under the WebDAV root ("Class 7b/Hand-in").
    public let folder: String
    public let outbox: HandInOutbox
    public let ledgerPath: String

    public init(server: any HandInServer, folder: String, outbox: HandInOutbox, ledgerPath: String) {
        self.server = server; self.folder = folder; self.outbox = outbox; self.ledgerPath = ledgerPath
    }

    public struct Round: Sendable, Equatable {
        public var sent: [String] = []
        public var failed: [String] = []
        /// Why each of `failed` failed (what the ledger tells the pupil).
        public var reasons: [String: String] = [:]
        /// Set when the round stopped at a problem that may go away (no network, 5xx, 401):
        /// the rest waits for the next round.
        public var stoppedBy: DAVError?
    }

    /// Sends every item waiting, oldest first, except those that failed for good; stops at the
    /// first problem that may go away. `now` is seconds since 1970.
    public func sendWaiting(now: Int64) throws -> Round {
        var ledger = try HandInLedger.load(ledgerPath)
        var round = Round()
        for item in try outbox.items() {
            if let state = ledger.states[item.title], state.itemID == item.id, state.phase == .failed { continue }
            switch try send(item, ledger: &ledger, now: now) {
            case .sent:
                ledger.setState(item.title, HandInState(phase: .sent, updated: now, itemID: item.id))
                try ledger.save(ledgerPath)
                // The server has it: the tablet keeps nothing of the pupil's longer than needed.
                try outbox.remove(item)
                round.sent.append(item.id)
            case .failed(let why):
                ledger.setState(item.title, HandInState(phase: .failed, reason: why, updated: now, itemID: item.id))
                try ledger.save(ledgerPath)
                round.failed.append(item.id)
                round.reasons[item.id] = why
            case .waiting(let problem):
                ledger.setState(item.title, HandInState(phase: .waiting, reason: Self.pupilWords(problem), updated: now, itemID: item.id))
                try ledger.save(ledgerPath)
                round.stoppedBy = problem
                return round
            }
        }
        return round
    }

    enum ItemResult: Equatable {
        case sent
        case failed(String)
        case waiting(DAVError)
    }

    func send(_ item: HandInItem, ledger: inout HandInLedger, now: Int64) throws -> ItemResult {
        for file in item.files {
            var upload = ledger.upload(file.remote, now: now)
            if upload.sha256 == file.sha256, upload.etag != nil { continue }   // sent before a restart
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: outbox.path(of: file, in: item))))
            guard HandInOutbox.sha256(bytes) == file.sha256 else {
                return .failed("the hand-in's copy of \(file.remote) on this tablet is damaged (its SHA-256 changed)")
            }
            upload.unanswered = Array((upload.unanswered.filter { $0 != file.sha256 } + [file.sha256]).suffix(HandInLedger.maxUnanswered))
            upload.updated = now
            ledger.uploads[file.remote] = upload
            try ledger.save(ledgerPath)
            let result: FileResult
            do {
                result = try put(file, bytes, condition: upload.etag.map { .mustMatch($0) } ?? .mustNotExist, upload: upload)
            } catch {
                if error.isTemporary || Self.isUnauthorized(error) { return .waiting(error) }
                return .failed(Self.pupilWords(error))
            }
            switch result {
            case .stored(let etag):
                upload.etag = etag
                upload.sha256 = file.sha256
                upload.unanswered = []
                upload.updated = now
                ledger.uploads[file.remote] = upload
                try ledger.save(ledgerPath)
            case .conflict(let why):
                return .failed(why)
            }
        }
        return .sent
    }

    enum FileResult: Equatable {
        case stored(etag: String?)
        case conflict(String)
    }

    private func put(_ file: HandInFile, _ bytes: [UInt8], condition first: PutCondition,
                     upload: HandInLedger.Upload) throws(DAVError) -> FileResult {
        let path = folder + "/" + file.remote
        let type = file.remote.lowercased().hasSuffix(".png") ? "image/png" : "application/pdf"
        var condition = first
        // At most one retry: after finding our own earlier upload there, or the name freed.
        for attempt in 0..<2 {
            switch try server.put(bytes, to: path, contentType: type, condition: condition) {
            case .stored(let etag):
                return .stored(etag: try etagOr(etag, path))
            case .preconditionFailed:
                let there: (bytes: [UInt8], etag: String?)
                do {
                    there = try server.get(path)
                } catch .notFound(_) where attempt == 0 {
                    condition = .mustNotExist   // deleted between the two requests (a teacher tidying up)
                    continue
                }
                let digest = HandInOutbox.sha256(there.bytes)
                if digest == file.sha256 {
                    return .stored(etag: try etagOr(there.etag, path))   // the lost answer's upload
                }
                if attempt == 0, upload.unanswered.contains(digest) || digest == upload.sha256,
                   let etag = try etagOr(there.etag, path) {
                    condition = .mustMatch(etag)   // ours, from an upload whose answer was lost
                    continue
                }
                return .conflict(upload.etag == nil
                    ? "another file named \(file.remote) is in the hand-in folder already: it was not replaced"
                    : "\(file.remote) was changed on the server since this tablet handed it in: it was not replaced")
            }
        }
        return .conflict("\(file.remote) changed on the server while it was being handed in: it was not replaced")
    }

    /// An answer's ETag, else the file's own (a server that does not name it after a PUT or GET).
    private func etagOr(_ etag: String?, _ path: String) throws(DAVError) -> String? {
        if let etag { return etag }
        return try server.fileETag(path)
    }

    static func isUnauthorized(_ error: DAVError) -> Bool {
        if case .unauthorized = error { return true }
        return false
    }

    /// A problem as the status line shows it to a pupil (the log has the whole of it).
    static func pupilWords(_ error: DAVError) -> String {
        switch error {
        case .unauthorized: return "the school's server does not accept this tablet (ask the teacher to enrol it again)"
        case .notFound: return "the hand-in folder is not on the school's server"
        case .answer: return "the school's server gave an answer this tablet cannot read"
        case .http(let failure):
            switch failure.reason {
            case .transfer: return "no connection to the school's server"
            case .status(403, _): return "the hand-in folder does not take hand-ins (closed?)"
            case .status(413, _): return "the file is larger than the school's server takes"
            case .status(507, _): return "the school's server is full"
            case .status(let status, _): return "the school's server answered \(status)"
            default: return "\(failure.reason)"
            }
        }
    }
}
