// SPDX-License-Identifier: Apache-2.0
import InkLoop
import FoundationEssentials
import Glibc
import InkCore

/// The journal's own threads. The kiosk hands finished edits over without waiting. One thread
/// appends them to the file at once (a `write`: from then on a crash of the kiosk cannot lose
/// them); another syncs the file, everything appended during the previous sync in one go
/// (group commit). A slow card (an SD card's fsync takes 20–200 ms, and may stall for seconds
/// while it erases) delays only these threads, never the ink, and never the next append.
///
/// The promise: an edit is on disk one sync after the sync in progress when it was handed over,
/// so within two syncs' time; `State` says how long it really took. When the disk refuses
/// (full, read-only, a failed sync) the edits stay queued, in order, and are retried every
/// `retryInterval` and whenever new ones arrive; `problem` says why until they are saved.
/// Thread safety: the queue, the batches, the flags and `State` are used only under `condition`; appends, resets, cuts
/// and a copy's adoption are serialised by `file`, and `syncing`/`adopting` keep a sync off the descriptor while a copy
/// replaces it; `journal`, `changed`, `retryInterval` and `syncingNewFile` are set in init, before the threads start.
public final class JournalWriter: @unchecked Sendable {
    /// What the kiosk thread may read at any time.
    public struct State: Sendable, Equatable {
        /// Why the disk refuses the edits, while it does, in a few words for the screen
        /// (`StorageError.reason`: "No space left on device").
        public var problem: String?
        /// The same, whole, for the log: what failed, on which file ("cannot sync /var/…: …").
        public var problemDetail: String?
        /// Edits handed over and not yet on disk.
        public var waiting = 0
        /// Edits on disk since the start.
        public var saved = 0
        /// Hand-over → synced, of the last batch and the slowest since the start (seconds).
        public var lastDurability = 0.0
        public var worstDurability = 0.0
        /// The journal's length now, and just after it was last compacted (or opened).
        public var bytes = 0
        public var compactedBytes = 0
        /// Compactions done, and why the last one failed (the old journal is then kept whole): the
        /// error's whole text, as no screen shows it.
        public var compactions = 0
        public var compactionProblem: String?
        /// A compaction is under way (another is not started meanwhile).
        public var compacting = false

        /// The journal has grown past twice its compacted size (small journals are left alone).
        public var outgrown: Bool { !compacting && bytes > 2 * compactedBytes && bytes > 256 << 10 }
    }

    private enum Work {
        case edits([NotebookEdit], deviceNames: [Int: String], handedOver: Double)
        case reset
        case compact([NotebookEdit], deviceNames: [Int: String])
    }

    /// Appended, not yet synced: kept until the sync succeeds, to be written again if it fails.
    private struct Appended {
        var seq: Int
        var edits: [NotebookEdit]
        var deviceNames: [Int: String]
        /// When the oldest of them was handed over.
        var handedOver: Double
        var end: off_t
        var count: Int { edits.count }
        /// To be written again.
        var work: Work { .edits(edits, deviceNames: deviceNames, handedOver: handedOver) }
    }

    private let journal: StrokeJournal
    private let changed: @Sendable () -> Void
    private let retryInterval: Double
    private let condition = Condition()
    // Guarded by `condition`:
    private var queue: [(seq: Int, work: Work)] = []
    private var nextSeq = 0
    private var appended: [Appended] = []
    /// The file's length up to which everything is on disk.
    private var syncedEnd: off_t = 0
    private var current = State()
    private var stopping = false
    private var appending = false
    private var syncing = false
    /// The sync thread's first work: the header of a journal made anew (`StrokeJournal.newFileUnsynced`).
    private let syncingNewFile: Bool
    /// A compaction is being written, or put in place (then no sync may start).
    private var compacting = false
    private var adopting = false
    /// Serialises the file's appends, resets and cuts (never held during a sync).
    private let file = Lock()

    public var path: String { journal.path }

    /// `changed` is called on a writer thread after each sync or failure (to wake the kiosk).
    public init(journal: StrokeJournal, retryInterval: Double = 1.0, changed: @escaping @Sendable () -> Void = {}) {
        self.journal = journal
        self.retryInterval = retryInterval
        self.changed = changed
        syncedEnd = journal.end
        current.bytes = Int(syncedEnd)
        current.compactedBytes = Int(syncedEnd)
        // A journal made anew at this start is synced first, here rather than before the first frame.
        syncingNewFile = journal.newFileUnsynced
        syncing = syncingNewFile
        // Both alive until stop() ends them.
        startThread(name: "journal") { self.appendLoop() }
        startThread(name: "journal-sync") { self.syncLoop() }
    }

    public var state: State {
        condition.lock(); defer { condition.unlock() }
        var s = current
        s.compacting = compactionUnderway
        s.waiting = queue.reduce(0) { if case .edits(let e, _, _) = $1.work { $0 + e.count } else { $0 } }
            + appended.reduce(0) { $0 + $1.count }
        return s
    }

    /// Hands edits over; returns at once.
    public func submit(_ edits: [NotebookEdit], deviceNames: [Int: String] = [:]) {
        guard !edits.isEmpty else { return }
        condition.lock()
        enqueue(.edits(edits, deviceNames: deviceNames, handedOver: monotonicNow()))
        condition.unlock()
    }

    /// Empties the journal after everything handed over before (a signature was handed over or
    /// abandoned: it must not come back). Edits still waiting are dropped: they would be erased.
    /// A scrubbing journal's zeros are written here too, on the writer's thread, never the caller's.
    public func reset() {
        condition.lock()
        queue.removeAll()
        enqueue(.reset)
        condition.unlock()
    }

    /// Replaces the journal with `edits`, the notebook's compacted form as it stands after
    /// everything handed over so far; edits handed over later follow it. The copy is written
    /// on its own thread while appends go on. False (nothing done) while one is under way, and
    /// always for a scrubbing journal: the copy's rename would free the old file's blocks
    /// without zeros over them (a signature's journal is emptied at every end anyway).
    @discardableResult
    public func compact(_ edits: [NotebookEdit], deviceNames: [Int: String] = [:]) -> Bool {
        guard !journal.scrubbing else { return false }
        condition.lock(); defer { condition.unlock() }
        guard !compactionUnderway else { return false }
        enqueue(.compact(edits, deviceNames: deviceNames))
        return true
    }

    private func enqueue(_ work: Work, atFront: Bool = false) {
        if atFront { queue.insert((nextSeq, work), at: 0) } else { queue.append((nextSeq, work)) }
        nextSeq += 1
        condition.broadcast()
    }

    /// Waits until everything handed over is on disk, at most `timeout` seconds; false if not.
    @discardableResult
    public func flush(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock(); defer { condition.unlock() }
        while !idle {
            condition.broadcast()
            if !condition.wait(until: deadline) { return idle }
        }
        return true
    }

    /// A compaction is queued, being written or being put in place (guarded by `condition`).
    private var compactionUnderway: Bool {
        compacting || queue.contains { if case .compact = $0.work { true } else { false } }
    }

    private var idle: Bool { queue.isEmpty && appended.isEmpty && !appending && !syncing && !compacting }

    /// Saves what it can within `timeout`, then ends the threads.
    public func stop(timeout: Double) -> Bool {
        let flushed = flush(timeout: timeout)
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        return flushed
    }

    // MARK: appending

    private func appendLoop() {
        runInBackgroundPriority()
        condition.lock()
        while true {
            while queue.isEmpty && !stopping { condition.wait() }
            if queue.isEmpty || (stopping && current.problem != nil) { break }
            // Everything up to the next reset goes in one append; a reset goes alone.
            var batch = Array(queue.prefix { if case .edits = $0.work { true } else { false } })
            if batch.isEmpty { batch = [queue[0]] }
            appending = true
            condition.unlock()
            let outcome = Result { try write(batch.map(\.work), seq: batch[batch.count - 1].seq) }
            condition.lock()
            appending = false
            switch outcome {
            case .success(let done):
                // A reset that came meanwhile already dropped what it erases.
                let written = Set(batch.map(\.seq))
                queue.removeAll { written.contains($0.seq) }
                if let done {
                    appended.append(done)
                    current.bytes = Int(done.end)
                } else if case .reset = batch[0].work {
                    appended.removeAll()
                    current.problem = nil
                    current.problemDetail = nil
                    current.bytes = StrokeJournal.magic.count
                }
                condition.broadcast()
            case .failure(let error):
                current.problem = StorageError.reason(error)
                current.problemDetail = "\(error)"
                condition.broadcast()
                condition.unlock()
                changed()
                condition.lock()
                // Retry after a while, or sooner when more work arrives.
                _ = condition.wait(until: Date(timeIntervalSinceNow: retryInterval))
            }
        }
        condition.unlock()
    }

    /// Appends a batch of edits without syncing (returns what the sync must cover), or empties
    /// the journal (returns nil).
    private func write(_ batch: [Work], seq: Int) throws -> Appended? {
        file.lock(); defer { file.unlock() }
        if case .compact(let edits, let names) = batch.first {
            // Everything handed over before is in the file by now: the copy continues from here.
            let base = journal.end, resets = journal.resets
            condition.lock()
            compacting = true
            condition.unlock()
            startThread(name: "journal-compact") { self.compactLoop(edits, names, base: base, resets: resets) }
            return nil
        }
        if case .reset = batch.first {
            try journal.reset()
            condition.lock()
            syncedEnd = off_t(StrokeJournal.magic.count)
            condition.unlock()
            return nil
        }
        var edits: [NotebookEdit] = [], names: [Int: String] = [:], oldest = Double.infinity
        for case .edits(let e, let n, let at) in batch {
            edits += e
            names.merge(n) { a, _ in a }
            oldest = min(oldest, at)
        }
        let end = try journal.append(edits, deviceNames: names, sync: false)
        return Appended(seq: seq, edits: edits, deviceNames: names, handedOver: oldest, end: end)
    }

    // MARK: compacting

    /// Writes the compacted copy (slow, no lock held), then puts it in place while no append
    /// or sync runs: what was appended meanwhile goes along, and is on disk with it.
    private func compactLoop(_ edits: [NotebookEdit], _ names: [Int: String], base: off_t, resets: Int) {
        runInBackgroundPriority()
        var outcome = Result { try journal.prepareCompaction(edits, deviceNames: names) }
        file.lock()
        condition.lock()
        // Polled: a failing sync wants the file lock this thread holds before it can signal.
        while syncing { _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05)) }
        adopting = true
        condition.unlock()
        var end: off_t = 0
        if case .success(let copy) = outcome {
            if journal.resets != resets {
                journal.discard(copy)   // emptied meanwhile: the copy holds what was erased
                outcome = .failure(StorageError("the journal was emptied during compaction"))
            } else {
                do { end = try journal.adopt(copy, tailFrom: base) } catch { outcome = .failure(error) }
            }
        }
        condition.lock()
        switch outcome {
        case .success(let copy) where end > 0:
            let now = monotonicNow()
            for batch in appended {
                current.saved += batch.count
                current.lastDurability = now - batch.handedOver
                current.worstDurability = max(current.worstDurability, current.lastDurability)
            }
            appended.removeAll()
            syncedEnd = end
            current.bytes = Int(end)
            current.compactedBytes = copy.bytes
            current.compactions += 1
            current.compactionProblem = nil
        case .failure(let error) where journal.resets == resets:
            current.compactionProblem = "\(error)"
            current.compactedBytes = current.bytes   // not again until the journal doubles once more
        default:
            break
        }
        adopting = false
        compacting = false
        condition.broadcast()
        condition.unlock()
        file.unlock()
        changed()
    }

    // MARK: syncing

    private func syncLoop() {
        runInBackgroundPriority()
        if syncingNewFile {
            // No ink in it yet: a failure here is the next sync's to report (it covers the header too).
            // Meanwhile `syncing` keeps a compaction from replacing the file under this sync.
            try? journal.sync()
            condition.lock()
            syncing = false
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        while true {
            // While a compaction is put in place the file changes under the sync: wait for it.
            while (appended.isEmpty && !stopping) || adopting { condition.wait() }
            if appended.isEmpty { break }
            let covered = appended[appended.count - 1].seq
            syncing = true
            condition.unlock()
            let outcome = Result { try journal.sync() }
            let now = monotonicNow()
            condition.lock()
            syncing = false
            condition.broadcast()   // a compaction may be waiting to put its copy in place
            switch outcome {
            case .success:
                // Only what was appended before the sync began (a reset meanwhile dropped the rest).
                let done = appended.filter { $0.seq <= covered }
                appended.removeAll { $0.seq <= covered }
                if let last = done.last { syncedEnd = last.end }
                for batch in done {
                    current.saved += batch.count
                    current.lastDurability = now - batch.handedOver
                    current.worstDurability = max(current.worstDurability, current.lastDurability)
                }
                current.problem = nil
                current.problemDetail = nil
            case .failure(let error):
                // What the failed sync covered may never reach the disk: cut it off and write it
                // again. No append runs meanwhile (the file lock); no disk work under `condition`.
                condition.unlock()
                file.lock()
                condition.lock()
                current.problem = StorageError.reason(error)
                current.problemDetail = "\(error)"
                for again in appended.reversed() { enqueue(again.work, atFront: true) }
                appended.removeAll()
                let end = syncedEnd
                condition.unlock()
                journal.cut(to: end)
                file.unlock()
                condition.lock()
            }
            condition.broadcast()
            condition.unlock()
            changed()
            condition.lock()
        }
        condition.unlock()
    }
}
