import Foundation
import Glibc
import Testing
import InkCore
@testable import InkStorage

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
}
