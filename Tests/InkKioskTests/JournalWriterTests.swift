// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
import InkCore
@testable import InkStorage
import InkTestSupport

/// One clock for both ends: times come back exactly.
private let clock = ClockAnchor(wall: 1_790_000_000, mono: 100)

@Suite struct JournalWriterOnItsThread {
    private func strokes() throws -> [NotebookEdit] {
        let r = try replay("pressure")
        return r.pipeline.takeEdits()
    }

    private func path(_ name: String) throws -> String {
        let p = try Fixtures.outputDirectory("journal-writer") + "/\(name).inkj"
        unlink(p)
        return p
    }

    @Test func everyEditHandedOverIsOnDiskAfterAFlush() throws {
        let edits = try strokes()
        let p = try path("flush")
        let writer = JournalWriter(journal: try StrokeJournal(path: p, clock: clock))
        for e in edits { writer.submit([e], deviceNames: [1: "Wacom Intuos5 touch M Pen"]) }
        #expect(writer.flush(timeout: 10))
        let state = writer.state
        #expect(state.saved == edits.count && state.waiting == 0 && state.problem == nil)
        #expect(state.worstDurability >= state.lastDurability && state.lastDurability > 0)
        #expect(writer.stop(timeout: 10))
        let reopened = try StrokeJournal(path: p, clock: clock)
        #expect(reopened.recovered == edits)
        #expect(Set(reopened.restoredDevices.values) == ["Wacom Intuos5 touch M Pen"])
    }

    /// The kiosk's first start does not wait for a new journal's sync: the header is in the
    /// file at once (another opening finds an empty journal, not a damaged one), the writer
    /// syncs it, and edits handed over meanwhile, a compaction among them, all come back.
    @Test func aJournalMadeAnewIsSyncedByTheWriterNotBeforeTheFirstFrame() throws {
        let edits = try strokes()
        let p = try path("made-anew")
        let journal = try StrokeJournal(path: p, clock: clock, syncingNewFile: false)
        #expect(journal.newFileUnsynced && journal.recovered.isEmpty && journal.warning == nil)
        let meanwhile = try StrokeJournal(path: p, clock: clock)
        #expect(meanwhile.recovered.isEmpty && meanwhile.warning == nil && !meanwhile.newFileUnsynced)
        let writer = JournalWriter(journal: journal)
        writer.compact([])
        for e in edits { writer.submit([e]) }
        #expect(writer.flush(timeout: 10))
        #expect(writer.state.saved == edits.count && writer.state.problem == nil)
        #expect(writer.stop(timeout: 10))
        let reopened = try StrokeJournal(path: p, clock: clock, syncingNewFile: false)
        #expect(reopened.recovered == edits && !reopened.newFileUnsynced)
    }

    /// A signature handed over must not come back: the reset empties the journal after what
    /// came before it, and drops what was still waiting.
    @Test func aResetEmptiesTheJournalAfterWhatCameBefore() throws {
        let edits = try strokes()
        let p = try path("reset")
        let writer = JournalWriter(journal: try StrokeJournal(path: p, clock: clock))
        writer.submit(Array(edits.prefix(2)))
        writer.reset()
        writer.submit([edits[2]])
        #expect(writer.stop(timeout: 10))
        #expect(try StrokeJournal(path: p, clock: clock).recovered == [edits[2]])
    }

    /// Edits handed over from another thread while the writer syncs all arrive, in order.
    @Test func editsFromTheKioskThreadArriveInOrder() throws {
        let edits = try strokes()
        let p = try path("order")
        let writer = JournalWriter(journal: try StrokeJournal(path: p, clock: clock))
        let many = (0..<40).flatMap { _ in edits }
        let done = DispatchSemaphore(value: 0)
        Thread {
            for e in many { writer.submit([e]) }
            done.signal()
        }.start()
        done.wait()
        #expect(writer.stop(timeout: 20))
        #expect(try StrokeJournal(path: p, clock: clock).recovered == many)
    }

    /// A compaction replaces the file with the notebook's compacted form; what is handed over
    /// while the copy is written follows it, and everything comes back after a restart.
    @Test func compactionKeepsEveryEditHandedOverMeanwhile() throws {
        let edits = try strokes()
        let p = try path("compact")
        let writer = JournalWriter(journal: try StrokeJournal(path: p, clock: clock))
        // A long history: each stroke drawn, undone and redone many times.
        var notebook = Notebook()
        var history: [NotebookEdit] = []
        for e in edits { history.append(e) }
        for _ in 0..<200 { history += [.page(0, .undo), .page(0, .redo)] }
        notebook.restore(history)
        writer.submit(history)
        #expect(writer.flush(timeout: 10))
        let before = writer.state.bytes
        #expect(writer.compact(notebook.compacted()))
        writer.submit([.addPage])   // handed over while the copy is being written
        #expect(writer.stop(timeout: 10))
        let state = writer.state
        #expect(state.compactions == 1 && state.compactionProblem == nil)
        #expect(state.bytes < before, "the file shrank: \(before) → \(state.bytes) bytes")
        #expect(access(p + ".compact", F_OK) != 0, "no copy left beside the journal")
        let reopened = try StrokeJournal(path: p, clock: clock)
        var restored = Notebook()
        restored.restore(reopened.recovered)
        #expect(restored.count == 2 && restored.current == 1)
        #expect(restored.pages[0].strokes == notebook.page.strokes)
        #expect(reopened.recovered.count == notebook.compacted().count + 1)
    }

    /// A journal emptied (a signature handed over) while its compaction was being written
    /// stays empty: the copy holds what was erased.
    @Test func aResetDuringCompactionWins() throws {
        let edits = try strokes()
        let p = try path("compact-reset")
        let writer = JournalWriter(journal: try StrokeJournal(path: p, clock: clock))
        writer.submit(edits)
        var notebook = Notebook()
        notebook.restore(edits)
        writer.compact(notebook.compacted())
        writer.reset()
        #expect(writer.stop(timeout: 10))
        #expect(try StrokeJournal(path: p, clock: clock).recovered.isEmpty)
    }

    /// A copy a crash left beside the journal is removed; the journal itself is read as it is.
    @Test func aCopyLeftByACrashIsIgnored() throws {
        let edits = try strokes()
        let p = try path("compact-crash")
        try StrokeJournal(path: p, clock: clock).append(edits)
        FileManager.default.createFile(atPath: p + ".compact", contents: Data("INKJOURNAL 1\n garbage".utf8))
        #expect(try StrokeJournal(path: p, clock: clock).recovered == edits)
        #expect(access(p + ".compact", F_OK) != 0)
    }
}
