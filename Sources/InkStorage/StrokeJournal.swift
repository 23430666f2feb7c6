// SPDX-License-Identifier: Apache-2.0
import CZlib
import FoundationEssentials
import Glibc
import InkCore

/// Never lose ink: every finished edit (a stroke, an erase, undo, redo, clear, a page added or
/// turned to) is appended to a journal file and synced to disk before the next stroke starts.
///
/// The file is `INKJOURNAL 1\n`, then records: a 4-byte little-endian payload length, a
/// 4-byte CRC-32 of the payload, the payload (one JSON edit). A crash, `kill -9` or power cut
/// can leave a torn or corrupt tail: opening the journal keeps every whole record before it,
/// cuts the rest off, and says so; it never refuses to start.
///
/// Restored strokes keep their device (by name) and their times, brought onto this boot's
/// monotonic clock through the wall clock each process records once, in a `session` record.
///
/// A `scrubbing` journal (signature mode: its records are a signature's samples, biometric
/// data) writes zeros over records, and syncs them, before it cuts them off or empties the
/// file, so that the freed blocks do not keep them for whoever reads the disk later.
public final class StrokeJournal {
    public let path: String
    /// Replaced when a compacted copy is adopted.
    private var fd: Int32
    /// What opening found: the edits to restore, and what was cut off (if anything).
    public let recovered: [NotebookEdit]
    public let warning: String?
    /// What opening did besides, for the log: damaged copies removed (`DamagedJournals`).
    public let notes: [LogNote]
    /// Records are overwritten with zeros before the file is cut shorter.
    public let scrubbing: Bool
    /// The devices restored strokes were drawn with, by the (negative) ids their strokes carry.
    public let restoredDevices: [Int: String]
    /// This process's clocks, written before its first edit.
    private let clock: ClockAnchor
    private var sessionWritten = false

    public static let magic = Array("INKJOURNAL 1\n".utf8)
    static let maxRecord = 64 << 20

    /// Made anew (none was there, or a damaged one was put aside) and opened with
    /// `syncingNewFile: false`: its header was written, not synced (`JournalWriter` syncs it first).
    public let newFileUnsynced: Bool

    /// `damaged`: how many journals put aside as unreadable are kept, and for how long.
    /// `syncingNewFile: false` leaves the sync of a journal made anew to whoever syncs it next (the
    /// kiosk's start does not wait for it: it holds no ink, and every later sync covers it).
    public init(path: String, clock: ClockAnchor = .now(), scrubbing: Bool = false, damaged: DamagedJournals = .standard,
                syncingNewFile: Bool = true) throws {
        self.path = path
        self.clock = clock
        self.scrubbing = scrubbing
        var context = RestoreContext(reader: clock)
        let created: Bool
        (fd, recovered, warning, created) = try Self.open(path, &context, scrubbing: scrubbing, syncingNewFile: syncingNewFile)
        newFileUnsynced = created && !syncingNewFile
        restoredDevices = context.deviceNames
        // Every start, not only when one is put aside: the age limit holds on a kiosk that never restarts badly again.
        do {
            let removed = try damaged.prune(path)
            notes = removed.isEmpty ? [] : [.info("removed \(removed.count) old damaged journals: \(removed.joined(separator: ", "))")]
        } catch {
            notes = [.warning("cannot remove old damaged journals: \(error)")]
        }
    }

    /// Opens (or creates) the journal and recovers what it holds; a damaged end is cut off.
    /// Also says whether the file was made anew (its header just written).
    private static func open(_ path: String, _ context: inout RestoreContext, scrubbing: Bool,
                             syncingNewFile: Bool) throws -> (Int32, [NotebookEdit], String?, Bool) {
        unlink(path + ".compact")   // a compaction a crash interrupted: the journal itself is whole
        var fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemCallError("open the journal", path: path) }
        let data = readAll(fd)
        let (edits, goodLength, problem) = parse(data, &context)
        var warning: String?
        if let problem {
            warning = "\(path): \(problem); kept \(edits.count) edits, cut \(data.count - goodLength) bytes"
            if goodLength >= magic.count && data[goodLength...].allSatisfy({ $0 == 0 }) {
                // A scrubbing journal's reset: zeros synced, then a crash before the cut.
                warning = "\(path): \(data.count - goodLength) bytes of zeros after \(edits.count) edits (emptying it was interrupted); cut"
            }
        }
        if data.isEmpty || goodLength < magic.count {
            if !data.isEmpty && scrubbing {
                // A signature's journal that cannot be read may still hold a customer's samples:
                // kept aside, it would be personal data lying around. Zeros over it, then emptied.
                let zeroed = Result { try overwrite(fd, from: 0, path) }
                guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
                    let error = SystemCallError("empty the damaged", path: path)
                    close(fd)
                    throw error
                }
                let how = switch zeroed {
                case .success: "overwritten with zeros and emptied"
                case .failure(let error): "emptied without zeros over it (\(error))"
                }
                warning = "\(path): \(problem ?? "damaged"); its \(data.count) bytes \(how): a signature's journal is not kept aside"
            } else if !data.isEmpty {
                // Not even the header survived, or this is not a journal: keep it aside, start anew.
                close(fd)
                let aside = DamagedJournals.newName(for: path, at: Date())
                if rename(path, aside) == 0 {
                    warning = "\(path): \(problem ?? "damaged"); moved aside to \(aside)"
                } else {
                    warning = "\(path): \(problem ?? "damaged"); cannot move it aside to \(aside) (\(Errno.describe(errno))): started anew over it"
                }
                fd = Glibc.open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                guard fd >= 0 else { throw SystemCallError("recreate the journal", path: path) }
            }
            try DurableFile.writeAll(fd, magic, path)
            if syncingNewFile { guard fsync(fd) == 0 else { throw SystemCallError("sync", path: path) } }
            guard lseek(fd, 0, SEEK_END) >= 0 else { throw SystemCallError("seek in", path: path) }
            return (fd, edits, warning, true)
        } else if problem != nil {
            // The zeros are worth a try; the cut must happen anyway (a journal that opens is what keeps ink).
            if scrubbing { try? overwrite(fd, from: off_t(goodLength), path) }
            guard ftruncate(fd, off_t(goodLength)) == 0, fsync(fd) == 0 else {
                throw SystemCallError("cut the damaged end of", path: path)
            }
        }
        guard lseek(fd, 0, SEEK_END) >= 0 else { throw SystemCallError("seek in", path: path) }
        return (fd, edits, warning, false)
    }

    deinit { close(fd) }

    /// Appends the edits and, with `sync`, syncs them to disk. On failure (disk full, read-only)
    /// nothing half-written stays behind and the error says so; the caller keeps drawing.
    /// `deviceNames` names the devices of the strokes' sources. Returns where the file ends.
    @discardableResult
    public func append(_ edits: [NotebookEdit], deviceNames: [Int: String] = [:], sync: Bool = true) throws -> off_t {
        guard !edits.isEmpty else { return lseek(fd, 0, SEEK_END) }
        let startsSession = !sessionWritten
        let start = lseek(fd, 0, SEEK_END)
        let written: Int
        do {
            written = try Self.write(edits, deviceNames: deviceNames, to: fd, path: path,
                                     after: [], session: startsSession ? clock : nil, failingAfter: faults.appendFailsAfter)
            if sync { try self.sync() }
        } catch {
            if start >= 0 { cutBack(to: start) }   // leave no torn record behind
            throw error
        }
        sessionWritten = true
        if startsSession { sessionStart = start }
        return start + off_t(written)
    }

    /// Where the file ends now.
    public var end: off_t { lseek(fd, 0, SEEK_END) }

    /// Syncs what was appended to disk.
    public func sync() throws {
        guard fsync(fd) == 0 else { throw SystemCallError("sync", path: path) }
    }

    /// Cuts the file back to `length` (what a failed sync may have lost is written again).
    public func cut(to length: off_t) {
        let length = max(length, off_t(Self.magic.count))
        cutBack(to: length)
        if let sessionStart, length <= sessionStart { sessionWritten = false; self.sessionStart = nil }
    }

    /// Cuts the file back to `length` after a failure: a scrubbing journal first writes zeros
    /// over what goes and syncs them (the disk just failed: the zeros are worth a try, the cut
    /// must happen anyway), so that the freed blocks keep no part of a signature's record.
    private func cutBack(to length: off_t) {
        if scrubbing { try? Self.overwrite(fd, from: length, path) }
        if faults.crashBeforeCut { return }
        _ = ftruncate(fd, length)
    }

    /// Where tests make the disk fail, as `SignatureCapture.Step` stops a capture's write: an
    /// append fails (ENOSPC, as on a full card) once this many of its bytes are in the file;
    /// the process dies between a cut's zeros and the cut.
    struct Faults {
        var appendFailsAfter: Int?
        var crashBeforeCut = false
    }
    var faults = Faults()

    /// Where this process's session record starts.
    private var sessionStart: off_t?

    /// Forgets everything (a signature was handed over or abandoned: it must not come back,
    /// nor stay on the device's disk). A scrubbing journal overwrites the records first; if
    /// that fails, nothing is cut (the caller tries again, as for any failed write).
    public func reset() throws {
        if scrubbing { try scrub() }
        guard ftruncate(fd, off_t(Self.magic.count)) == 0, fsync(fd) == 0, lseek(fd, 0, SEEK_END) >= 0 else {
            throw SystemCallError("empty the journal", path: path)
        }
        sessionWritten = false
        sessionStart = nil
        resets += 1
    }

    /// How often the journal was emptied (a compaction prepared before a reset is void).
    public private(set) var resets = 0

    /// Writes zeros over every record (the header stays) and syncs them; the file keeps its
    /// length. `reset` of a scrubbing journal does this before it cuts the file.
    public func scrub() throws {
        try Self.overwrite(fd, from: off_t(Self.magic.count), path)
    }

    /// Zeros from `start` to the end of the file, synced (fdatasync): the bytes a cut is about
    /// to free hold nothing. In place, so the file system reuses the blocks the records were in
    /// (a flash card's controller may still keep old copies of them: see docs/DEPLOYMENT.md, "Threat model").
    static func overwrite(_ fd: Int32, from start: off_t, _ path: String) throws {
        let end = lseek(fd, 0, SEEK_END)
        guard end >= 0 else { throw SystemCallError("seek in", path: path) }
        guard end > start else { return }
        let zeros = [UInt8](repeating: 0, count: Int(min(end - start, 1 << 16)))
        var at = start
        while at < end {
            let n = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, min($0.count, Int(end - at)), at) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw SystemCallError("overwrite from byte \(at)", path: path) }
            at += off_t(n)
        }
        guard fdatasync(fd) == 0 else { throw SystemCallError("sync the zeros written over", path: path) }
    }

    // MARK: compaction

    /// A compacted journal written beside the real one, synced, not yet in its place.
    public struct CompactCopy: Sendable {
        let fd: Int32
        let path: String
        /// Its length before the journal's newer records are added.
        public let bytes: Int
    }

    /// Writes `edits` (a notebook's compacted form) to `PATH.compact` and syncs it. The journal
    /// itself is untouched, so appends may go on meanwhile; any thread may call this.
    public func prepareCompaction(_ edits: [NotebookEdit], deviceNames: [Int: String] = [:]) throws -> CompactCopy {
        let copyPath = path + ".compact"
        let copyFD = Glibc.open(copyPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard copyFD >= 0 else { throw SystemCallError("create", path: copyPath) }
        do {
            let written = try Self.write(edits, deviceNames: deviceNames, to: copyFD, path: copyPath, after: Self.magic, session: clock)
            guard fsync(copyFD) == 0 else { throw SystemCallError("sync", path: copyPath) }
            return CompactCopy(fd: copyFD, path: copyPath, bytes: written)
        } catch {
            close(copyFD)
            unlink(copyPath)
            throw error
        }
    }

    /// Puts the copy in the journal's place: the records appended since `base` (where the
    /// journal ended when the copy's edits were taken) are added to it, it is synced, renamed
    /// over the journal, and the directory synced. A crash at any point leaves one whole
    /// journal, the old or the new. Not concurrently with `append`, `sync` or `cut`.
    /// Returns where the journal now ends.
    public func adopt(_ copy: CompactCopy, tailFrom base: off_t) throws -> off_t {
        do {
            let end = lseek(fd, 0, SEEK_END)
            guard end >= base else {
                throw StorageError(description: "\(path) shrank while it was compacted", reason: "the journal shrank while it was compacted")
            }
            var tail = [UInt8](repeating: 0, count: Int(end - base))
            if !tail.isEmpty {
                let n = tail.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, base) }
                guard n == tail.count else { throw SystemCallError("read", path: path) }
                guard lseek(copy.fd, 0, SEEK_END) >= 0 else { throw SystemCallError("seek in", path: copy.path) }
                try DurableFile.writeAll(copy.fd, tail, copy.path)
            }
            guard fsync(copy.fd) == 0 else { throw SystemCallError("sync", path: copy.path) }
            guard rename(copy.path, path) == 0 else { throw SystemCallError("put \(copy.path) in place of", path: path) }
        } catch {
            discard(copy)
            throw error
        }
        close(fd)
        fd = copy.fd
        // The copy starts with this process's session record.
        sessionWritten = true
        sessionStart = off_t(Self.magic.count)
        // The rename is done and the old file gone; should this sync fail, the disk is failing
        // and the next append's sync reports it.
        try? DurableFile.sync(directoryOf: path)
        return lseek(fd, 0, SEEK_END)
    }

    /// Gives a prepared copy up (the journal was emptied meanwhile, or adopting it failed).
    public func discard(_ copy: CompactCopy) {
        close(copy.fd)
        unlink(copy.path)
    }

    // MARK: file format

    /// Checked records: length, CRC-32, JSON payload.
    static func records(_ entries: [JournalEntry]) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let encoder = JSONEncoder()
        for entry in entries { try appendRecord(entry, to: &bytes, encoder) }
        return bytes
    }

    /// Bytes handed to the file at a time by `write`.
    static let writePiece = 1 << 20

    /// Writes `prefix`, a session record (when `session` is given), then the edits' records, in
    /// pieces of about `writePiece` bytes: a batch (a day's notebook when compacting; what was
    /// drawn while a compaction ran, when appending) never sits in RAM whole, and an edit's
    /// samples are copied into its entry only as it is written. Returns the bytes written.
    private static func write(_ edits: [NotebookEdit], deviceNames: [Int: String], to fd: Int32, path: String,
                              after prefix: [UInt8], session: ClockAnchor?, failingAfter limit: Int? = nil) throws -> Int {
        let encoder = JSONEncoder()
        var pending = prefix, written = 0
        func put() throws {
            if let limit, written + pending.count > limit {
                try DurableFile.writeAll(fd, pending.prefix(max(0, limit - written)), path)
                throw SystemCallError("write", path: path, errno: ENOSPC)
            }
            try DurableFile.writeAll(fd, pending, path)
            written += pending.count
            pending.removeAll(keepingCapacity: true)
        }
        if let session { try appendRecord(JournalEntry(session: session), to: &pending, encoder) }
        for edit in edits {
            try appendRecord(JournalEntry(edit, deviceName: { deviceNames[$0] }), to: &pending, encoder)
            if pending.count >= writePiece { try put() }
        }
        if !pending.isEmpty { try put() }
        return written
    }

    /// One record: its length, its CRC-32, and its payload (JSON; a stroke's samples after a zero byte).
    private static func appendRecord(_ entry: JournalEntry, to bytes: inout [UInt8], _ encoder: JSONEncoder) throws {
        var payload = Array(try encoder.encode(entry))
        if let packed = entry.packed { payload += [0] + SampleBlock.pack(brush: entry.packedBrush ?? [], packed) }
        let crc = payload.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        bytes += le(UInt32(payload.count)) + le(crc) + payload
    }

    static func parse(_ data: [UInt8], _ context: inout RestoreContext) -> (edits: [NotebookEdit], goodLength: Int, problem: String?) {
        guard data.count >= magic.count, Array(data[0..<magic.count]) == magic else {
            return ([], 0, data.isEmpty ? nil : "not an inkkiosk journal (bad header)")
        }
        var edits: [NotebookEdit] = []
        var at = magic.count
        let decoder = JSONDecoder()
        while at < data.count {
            guard at + 8 <= data.count else { return (edits, at, "torn record header at byte \(at)") }
            let length = Int(readLE(data, at)), crc = readLE(data, at + 4)
            guard length <= maxRecord, at + 8 + length <= data.count else { return (edits, at, "torn record at byte \(at)") }
            let payload = Array(data[(at + 8)..<(at + 8 + length)])
            let actual = payload.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
            guard actual == crc else { return (edits, at, "checksum mismatch at byte \(at)") }
            // JSON, then (a stroke) a zero byte and its samples in binary.
            let split = payload.firstIndex(of: 0) ?? payload.endIndex
            guard var entry = try? decoder.decode(JournalEntry.self, from: Data(payload[..<split])) else {
                return (edits, at, "unreadable record at byte \(at)")
            }
            if split < payload.endIndex {
                guard let stroke = SampleBlock.unpack(payload[(split + 1)...]) else { return (edits, at, "unreadable samples at byte \(at)") }
                entry.packedBrush = stroke.brush
                entry.packed = stroke.samples
            }
            if entry.op == "session" {
                guard let clock = entry.session else { return (edits, at, "unreadable session record at byte \(at)") }
                context.writer = clock
            } else {
                guard let edit = entry.edit(&context) else { return (edits, at, "unreadable record at byte \(at)") }
                edits.append(edit)
            }
            at += 8 + length
        }
        return (edits, at, nil)
    }

    private static func readAll(_ fd: Int32) -> [UInt8] {
        var info = stat()
        let size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        var out = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if n <= 0 { break }
            done += n
        }
        if done < size { out.removeSubrange(done...) }
        return out
    }

    private static func le(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    private static func readLE(_ d: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(d[at + $1]) << (8 * $1) }
    }
}

/// Why ink or a file could not be kept, when no system call failed (a name refused, a file that
/// changed under us) or when a failure is told with what it stopped ("cannot sign X: …"); a failed
/// system call on its own is a `SystemCallError` with its errno and path.
public struct StorageError: Error, CustomStringConvertible {
    /// The whole text, for the log: what failed, with its path, and the cause's text.
    public var description: String
    /// A few words for the screen, without the path ("the document changed since it was posted"):
    /// it goes into a one-line banner ("Cannot save to disk (%@). …").
    public var reason: String
    /// The error behind this one, if another error stopped the work.
    public var cause: (any Error)?

    /// `description` says it all, with the path, for the log; `reason` says it in a few words, for the screen.
    public init(description: String, reason: String) {
        self.description = description
        self.reason = reason
    }

    /// `what` (with its path) failed because of `cause`: the log reads "what: cause", the screen
    /// the cause's own short reason.
    public init(_ what: String, cause: any Error) {
        description = "\(what): \(cause)"
        reason = Self.reason(cause)
        self.cause = cause
    }

    /// A failure short enough for the screen that names no file: the log and the screen say the same.
    public init(_ text: String) {
        description = text
        reason = text
    }

    /// The most characters of a reason the screen shows: the banner is one line, and the reason
    /// sits inside a sentence of some 70 characters; longer, it would run off the screen.
    public static let screenLength = 60

    /// A short reason for any error, fit for the screen: the error's own when its type has one (a
    /// `StorageError`'s, or a `SystemCallError`'s: the system's words, "No space left on device"),
    /// else its text, cut at a word when it is too long. The caller logs the whole error.
    public static func reason(_ error: any Error) -> String {
        switch error {
        case let error as StorageError: error.reason
        case let error as SystemCallError: error.reason
        default: shortened("\(error)")
        }
    }

    /// `text` whole when it fits in `limit` characters; else up to its last word that fits with the
    /// "…" that says something was left out (without the punctuation before the cut). One word
    /// longer than that (a path) is cut where it must.
    static func shortened(_ text: String, to limit: Int = screenLength) -> String {
        guard text.count > limit else { return text }
        let head = text.prefix(limit - 1)
        guard let space = head.lastIndex(of: " "), space > head.startIndex else { return head + "…" }
        var kept = head[..<space]
        while let last = kept.last, " ,;:(-".contains(last) { kept = kept.dropLast() }
        return kept.isEmpty ? head + "…" : kept + "…"
    }
}
