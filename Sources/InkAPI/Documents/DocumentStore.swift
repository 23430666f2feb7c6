// SPDX-License-Identifier: Apache-2.0
import Crypto
import FoundationEssentials
import Glibc
import InkCore
import Logging
import InkDocument
import InkLoop
import Synchronization

/// The host's PDFs (`POST /documents`), in one directory: `DOC.pdf` (0600) and what was learnt
/// of it in `DOC.json`, so that they outlive a restart. At most `limits.maxDocuments`: for a new
/// one the oldest not in use goes (a POS that never DELETEs must not fill the card). Parsing,
/// hashing and fsync happen on tasks (`accept`, `signable`), never on the event loop.
final class DocumentStore: Sendable {
    let directory: String
    let limits: APILimits
    /// The document the waiting signature request uses, if any (the desk's).
    private let inUse: @Sendable () -> String?
    private let log: Logger
    private let state = Mutex(Shelf())

    /// Prefix of the files uploads are written to; any left at start are a crash's.
    static let uploadPrefix = ".upload-"
    /// Uploads received (and read back, parsed) at once: each may take `document_mb` of disk
    /// and, while it is read, that much memory and more; one more is 503.
    static let uploadsAtOnce = 2

    private struct Shelf {
        /// Oldest first.
        var documents: [StoredDocument] = []
        /// Pages and fields read from each file, kept once parsed (small: no file bytes).
        var parsed: [String: SignableDocument] = [:]
        /// Documents a signature request is being started on: not removed meanwhile.
        var pinned: [String: Int] = [:]
        /// Uploads between their head and their answer.
        var uploading = 0
    }

    init(directory: String, limits: APILimits, inUse: @escaping @Sendable () -> String?, log: Logger) {
        var directory = directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
        self.limits = limits
        self.inUse = inUse
        self.log = log
    }

    func path(of id: String) -> String { "\(directory)/\(id).pdf" }
    private func recordPath(of id: String) -> String { "\(directory)/\(id).json" }

    /// Makes the directory (0700), removes what a crash left (uploads, halves of a document),
    /// and takes in the documents stored before. Throws only when the directory is unusable.
    func open() throws {
        try DocumentFiles.prepare(directory)
        var found: [StoredDocument] = []
        let names = try DocumentFiles.names(in: directory)
        for name in names {
            if name.hasPrefix(Self.uploadPrefix) || name.hasSuffix(".tmp") {
                unlink("\(directory)/\(name)")
                log.notice("documents: removed \(directory)/\(name), left by an upload or a write that did not finish")
            } else if name.hasSuffix(".json") {
                let id = String(name.dropLast(5))
                let record = FileManager.default.contents(atPath: recordPath(of: id)).flatMap { try? JSONDecoder().decode(StoredDocument.self, from: $0) }
                guard let record, record.id == id, DocumentFiles.size(path(of: id)) == record.bytes else {
                    unlink(recordPath(of: id)); unlink(path(of: id))
                    log.notice("documents: removed \(id): \(record == nil ? "its record \(name) is damaged" : "its PDF is missing or not the size recorded")")
                    continue
                }
                found.append(record)
            } else if name.hasSuffix(".pdf"), !names.contains(String(name.dropLast(4)) + ".json") {
                unlink("\(directory)/\(name)")
                log.notice("documents: removed \(directory)/\(name): it has no record (a crash between the two writes)")
            }
        }
        found.sort { $0.created != $1.created ? $0.created < $1.created : $0.id < $1.id }
        state.withLock { $0.documents = found }
        // The limit may have been lowered since.
        for victim in makeRoom(for: 0) { remove(victim, why: "over [limits] documents = \(limits.maxDocuments)") }
    }

    // MARK: asking

    func list() -> [StoredDocument] { state.withLock { $0.documents } }

    func document(_ id: String) -> StoredDocument? { state.withLock { s in s.documents.first { $0.id == id } } }

    /// DELETE: 404 unknown, 409 while a signature request waits on it.
    func delete(_ id: String) throws(APIProblem) {
        let outcome: Result<Void, APIProblem> = state.withLock { s in
            guard let i = s.documents.firstIndex(where: { $0.id == id }) else { return .failure(Self.unknown(id)) }
            if inUse() == id || s.pinned[id] != nil {
                return .failure(APIProblem(.conflict, "document \(id) is in use by the waiting signature request: cancel it first"))
            }
            s.documents.remove(at: i)
            s.parsed[id] = nil
            return .success(())
        }
        try outcome.get()
        unlinkFiles(id)
    }

    static func unknown(_ id: String) -> APIProblem {
        APIProblem(.notFound, "no document with id '\(id)' (it was deleted, or made room for newer ones: [limits] documents)")
    }

    /// Runs `body` with document `id` held: no DELETE or eviction removes it meanwhile.
    func holding<T>(_ id: String, _ body: () async throws(APIProblem) -> T) async throws(APIProblem) -> T {
        let known = state.withLock { s in
            guard s.documents.contains(where: { $0.id == id }) else { return false }
            s.pinned[id, default: 0] += 1
            return true
        }
        guard known else { throw Self.unknown(id) }
        defer { state.withLock { s in s.pinned[id] = (s.pinned[id] ?? 1) > 1 ? (s.pinned[id] ?? 1) - 1 : nil } }
        return try await body()
    }

    /// The record and the pages and fields of document `id`: parsed again from its file when
    /// not at hand (after a restart), on the calling task. A file that no longer reads is removed.
    func signable(_ id: String) throws(APIProblem) -> (StoredDocument, SignableDocument) {
        let known = state.withLock { s in s.documents.first { $0.id == id }.map { ($0, s.parsed[id]) } }
        guard let (record, cached) = known else { throw Self.unknown(id) }
        if let cached { return (record, cached) }
        let signable: SignableDocument
        do {
            let bytes = try readAll(path(of: id))
            signable = try PDFDocument(bytes: bytes, limits: limits.documentReadLimits).signable()
        } catch {
            state.withLock { s in s.documents.removeAll { $0.id == id } }
            unlinkFiles(id)
            log.warning("documents: removed \(id): its file no longer reads: \(error)")
            throw APIProblem(.gone, "document \(id)'s file was damaged on the kiosk and has been removed: upload it again")
        }
        state.withLock { $0.parsed[id] = signable }
        return (record, signable)
    }

    // MARK: taking an upload

    func reserveUpload() -> Bool {
        state.withLock { s in
            guard s.uploading < Self.uploadsAtOnce else { return false }
            s.uploading += 1
            return true
        }
    }

    func releaseUpload() { state.withLock { $0.uploading = max(0, $0.uploading - 1) } }

    /// Reads the finished upload at `upload` (a temporary file in the directory), refuses it with
    /// a reason or keeps it: synced, renamed into place, recorded. The temporary file is gone
    /// when this returns, either way.
    func accept(_ upload: String) throws(APIProblem) -> StoredDocument {
        defer {
            unlink(upload)   // after the rename it is no longer there: harmless
            releaseUpload()
        }
        let bytes: [UInt8]
        do { bytes = try readAll(upload) } catch { throw APIProblem(.internalServerError, "cannot read the upload back: \(error)") }
        let signable = try Self.read(bytes, limits: limits.documentReadLimits)
        let id = CaptureID.make(at: Date())
        let record = StoredDocument(id: id, sha256: hexString(SHA256.hash(data: bytes)), bytes: bytes.count,
                                    created: Timestamp.string(Date()), signable: signable)
        // Room first: the card holds at most `maxDocuments` at any time.
        let victims = makeRoom(for: 1)
        for victim in victims { remove(victim, why: "to make room for a new one ([limits] documents = \(limits.maxDocuments))") }
        guard state.withLock({ $0.documents.count }) < limits.maxDocuments else {
            throw APIProblem(.insufficientStorage, "all \(limits.maxDocuments) stored documents are in use ([limits] documents): "
                             + "delete one, or wait for the waiting request to end")
        }
        do {
            try DocumentFiles.sync(upload)
            guard rename(upload, path(of: id)) == 0 else { throw SystemCallError("rename \(upload) to", path: path(of: id)) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try DocumentFiles.writeDurably(try encoder.encode(record), to: recordPath(of: id))
            try DocumentFiles.sync(directory, directory: true)
        } catch {
            unlinkFiles(id)
            throw APIProblem(.insufficientStorage, "cannot store the document in \(directory): \(error)")
        }
        state.withLock { s in
            s.documents.append(record)
            s.parsed[id] = signable
        }
        // Two uploads may have made room for one each at the same time: the older goes.
        for victim in makeRoom(for: 0) { remove(victim, why: "to make room for a new one ([limits] documents = \(limits.maxDocuments))") }
        return record
    }

    /// The pages and fields of a PDF, or why it is refused: 400 when it is no PDF or damaged,
    /// 422 when it is one this kiosk will not take (encrypted, too big, features not read, more
    /// than one reading, over the reader's budget). Every refusal names the reason and, where
    /// there is one, the byte.
    static func read(_ bytes: [UInt8], limits: PDFReadLimits) throws(APIProblem) -> SignableDocument {
        guard containsHeader(bytes.prefix(PDFLimits.headerSearchBytes)) else {
            throw APIProblem(.badRequest, "not a PDF: the body does not start with %PDF- (send the file itself, as Content-Type: application/pdf)")
        }
        let signable: SignableDocument
        do {
            signable = try PDFDocument(bytes: bytes, limits: limits).signable()
        } catch let error as PDFError {
            switch error.kind {
            case .malformed: throw APIProblem(.badRequest, "damaged PDF: \(error)")
            case .encrypted: throw APIProblem(.unprocessableEntity, "encrypted PDF: \(error.message); send it without a password")
            case .tooLarge: throw APIProblem(.unprocessableEntity, "the PDF is over the reader's limits: \(error)")
            case .unsupported: throw APIProblem(.unprocessableEntity, "the PDF uses what this kiosk cannot read: \(error)")
            case .refused: throw APIProblem(.unprocessableEntity, "the PDF was refused: \(error)")
            case .ambiguous:
                throw APIProblem(.unprocessableEntity, "the PDF admits more than one reading, so what is shown might not be what is "
                                 + "signed: \(error). Write it again with one tool (qpdf in.pdf out.pdf does) and send that")
            case .overBudget:
                throw APIProblem(.unprocessableEntity, "the PDF needs more work to read than one upload may take: \(error) "
                                 + "([limits] document_objects, document_inflate_mb, document_seconds)")
            }
        } catch {
            throw APIProblem(.badRequest, "damaged PDF: \(error)")
        }
        guard !signable.pages.isEmpty else { throw APIProblem(.unprocessableEntity, "the PDF has no pages") }
        return signable
    }

    private static func containsHeader(_ head: ArraySlice<UInt8>) -> Bool {
        let magic = Array("%PDF-".utf8)
        guard head.count >= magic.count else { return false }
        return (head.startIndex...(head.endIndex - magic.count)).contains { head[$0..<$0 + magic.count].elementsEqual(magic) }
    }

    // MARK: inside

    /// Takes out of the shelf the oldest documents not in use, until `adding` more fit.
    private func makeRoom(for adding: Int) -> [String] {
        let busy = inUse()
        return state.withLock { s in
            var victims: [String] = []
            while s.documents.count + adding > limits.maxDocuments,
                  let i = s.documents.firstIndex(where: { $0.id != busy && s.pinned[$0.id] == nil }) {
                victims.append(s.documents.remove(at: i).id)
            }
            for id in victims { s.parsed[id] = nil }
            return victims
        }
    }

    private func remove(_ id: String, why: String) {
        unlinkFiles(id)
        log.info("documents: removed the oldest document \(id) \(why)")
    }

    /// The record first: what a crash leaves is a PDF without one, removed at the next start.
    private func unlinkFiles(_ id: String) {
        unlink(recordPath(of: id))
        unlink(path(of: id))
    }

    private func readAll(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw SystemCallError("read", path: path) }
        return Array(data)
    }
}
