import Foundation
import InkCore

/// The journal's own thread. The kiosk hands finished edits over without waiting; the writer
/// appends and syncs them, everything that gathered during the previous sync in one go (group
/// commit). A slow card (an SD card's fsync takes 20–200 ms, and may stall for seconds while it
/// erases) delays only this thread, never the ink.
///
/// The promise: an edit is on disk one sync after the sync in progress when it was handed over,
/// so within two syncs' time. `durability` says how long it really took. When the disk refuses
/// (full, read-only) the edits stay queued, in order, and are retried every `retryInterval` and
/// whenever new ones arrive; `problem` says why until they are saved.
public final class JournalWriter: @unchecked Sendable {
    /// What the kiosk thread may read at any time.
    public struct State: Sendable, Equatable {
        /// Why the disk refuses the edits, while it does.
        public var problem: String?
        /// Edits handed over and not yet on disk.
        public var waiting = 0
        /// Edits on disk since the start.
        public var saved = 0
        /// Hand-over → synced, of the last batch and the slowest since the start (seconds).
        public var lastDurability = 0.0
        public var worstDurability = 0.0
    }

    private enum Work {
        case edits([NotebookEdit], deviceNames: [Int: String], handedOver: Double)
        case reset
    }

    private let journal: StrokeJournal
    private let changed: @Sendable () -> Void
    private let retryInterval: Double
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var queue: [(seq: Int, work: Work)] = []
    private var nextSeq = 0
    private var current = State()
    private var stopping = false
    private var busy = false
    private var thread: Thread?

    public var path: String { journal.path }

    /// `changed` is called on the writer's thread after each sync or failure (to wake the kiosk).
    public init(journal: StrokeJournal, retryInterval: Double = 1.0, changed: @escaping @Sendable () -> Void = {}) {
        self.journal = journal
        self.retryInterval = retryInterval
        self.changed = changed
        let thread = Thread { self.run() }   // alive until stop() ends the thread
        thread.name = "journal"
        self.thread = thread
        thread.start()
    }

    public var state: State {
        condition.lock(); defer { condition.unlock() }
        var s = current
        s.waiting = queue.reduce(0) { if case .edits(let e, _, _) = $1.work { $0 + e.count } else { $0 } }
        return s
    }

    private func enqueue(_ work: Work) {
        queue.append((nextSeq, work))
        nextSeq += 1
        condition.signal()
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
    public func reset() {
        condition.lock()
        queue.removeAll()
        enqueue(.reset)
        condition.unlock()
    }

    /// Waits until everything handed over is on disk, at most `timeout` seconds; false if not.
    @discardableResult
    public func flush(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock(); defer { condition.unlock() }
        while !queue.isEmpty || busy {
            condition.signal()
            if !condition.wait(until: deadline) { return queue.isEmpty && !busy }
        }
        return true
    }

    /// Saves what it can within `timeout`, then ends the thread.
    public func stop(timeout: Double) -> Bool {
        let flushed = flush(timeout: timeout)
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        return flushed
    }

    private func run() {
        runInBackgroundPriority()
        condition.lock()
        while true {
            while queue.isEmpty && !stopping { condition.wait() }
            if queue.isEmpty || (stopping && current.problem != nil) { break }
            // Everything up to the next reset goes in one append and one sync.
            var batch = Array(queue.prefix { if case .edits = $0.work { true } else { false } })
            if batch.isEmpty { batch = [queue[0]] }   // a reset, on its own
            busy = true
            condition.unlock()
            let outcome = Result { try write(batch.map(\.work)) }
            condition.lock()
            busy = false
            switch outcome {
            case .success:
                // A reset that came meanwhile already dropped them.
                let done = Set(batch.map(\.seq))
                queue.removeAll { done.contains($0.seq) }
                current.problem = nil
            case .failure(let error):
                current.problem = StorageError.reason(error)
                condition.broadcast()
                condition.unlock()
                changed()
                condition.lock()
                // Retry after a while, or sooner when more work arrives.
                _ = condition.wait(until: Date(timeIntervalSinceNow: retryInterval))
                continue
            }
            condition.broadcast()
            condition.unlock()
            changed()
            condition.lock()
        }
        condition.unlock()
    }

    /// Writes a batch of edits in one append and sync, or empties the journal.
    private func write(_ batch: [Work]) throws {
        if case .reset = batch.first {
            try journal.reset()
            return
        }
        var edits: [NotebookEdit] = [], names: [Int: String] = [:], oldest = Double.infinity
        for case .edits(let e, let n, let at) in batch {
            edits += e
            names.merge(n) { a, _ in a }
            oldest = min(oldest, at)
        }
        try journal.append(edits, deviceNames: names)
        let took = monotonicNow() - oldest
        condition.lock()
        current.saved += edits.count
        current.lastDurability = took
        current.worstDurability = max(current.worstDurability, took)
        condition.unlock()
    }
}
