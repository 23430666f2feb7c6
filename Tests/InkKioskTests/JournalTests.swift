import Foundation
import Glibc
import Testing
import InkCore
import InkRender
import InkDisplay
@testable import InkKiosk

/// A replayed session's edits, as the kiosk would have journalled them.
private func session(_ name: String) throws -> (edits: [NotebookEdit], strokes: [Stroke], screen: Screen) {
    let r = try replay(name)
    return (r.pipeline.takeEdits(), r.pipeline.document.strokes, r.screen)
}

private func journalPath(_ name: String) throws -> String {
    let path = try Fixtures.outputDirectory("journal") + "/\(name).inkj"
    unlink(path); unlink(path + ".damaged")
    return path
}

private func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

@Suite struct Journal {
    @Test func aRestartBringsBackEveryStrokeAndItsUndoHistory() throws {
        let (edits, strokes, screen) = try session("eraser")   // two strokes, one erased by the eraser end
        #expect(edits.count == 3)
        let path = try journalPath("restart")
        try StrokeJournal(path: path).append(edits)

        let reopened = try StrokeJournal(path: path)
        #expect(reopened.warning == nil)
        #expect(reopened.recovered == edits)
        var notebook = Notebook()
        notebook.restore(reopened.recovered)
        #expect(notebook.page.strokes.map(\.id) == strokes.map(\.id))
        #expect(notebook.page.strokes.map(\.samples) == strokes.map(\.samples))

        // The restored drawing looks the same on screen.
        let display = try OffscreenDisplay(size: screenSize)
        let pipeline = try FramePipeline(settings: InteractionSettings(screen: screenSize), devices: [], display: display)
        pipeline.restore(reopened.recovered)
        try pipeline.renderFrame()
        #expect(compare(Screen(display.screen), screen).maxDelta <= 2)

        // And undo still knows what the eraser did.
        notebook.page.undo()
        #expect(notebook.page.strokes.count == 2)
    }

    @Test func aTornTailIsCutNeverRefused() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("torn")
        try StrokeJournal(path: path).append(Array(edits.prefix(2)))
        let whole = fileSize(path)
        try StrokeJournal(path: path).append([edits[2]])
        let full = fileSize(path)
        // A power cut at any byte of the last record: the first two strokes survive.
        for cut in stride(from: whole + 1, to: full, by: max(1, (full - whole) / 37)) {
            #expect(truncate(path, off_t(cut)) == 0)
            let j = try StrokeJournal(path: path)
            #expect(j.recovered == Array(edits.prefix(2)), "cut at \(cut)")
            #expect(j.warning?.contains("torn") == true, "cut at \(cut): \(j.warning ?? "no warning")")
            #expect(fileSize(path) == whole, "the damaged end is cut off")
            try j.append([edits[2]])   // and the journal goes on
        }
        #expect(try StrokeJournal(path: path).recovered == edits)
    }

    @Test func aCorruptRecordEndsWhatIsKept() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("corrupt")
        try StrokeJournal(path: path).append(edits)
        // Flip one byte inside the second record's payload.
        let fd = open(path, O_RDWR)
        #expect(fd >= 0)
        let header = StrokeJournal.magic.count
        var length: UInt32 = 0
        pread(fd, &length, 4, off_t(header))
        var byte: UInt8 = 0
        let target = off_t(header + 8 + Int(length) + 8 + 20)
        pread(fd, &byte, 1, target)
        byte ^= 0xff
        pwrite(fd, &byte, 1, target)
        close(fd)
        let j = try StrokeJournal(path: path)
        #expect(j.recovered == [edits[0]])
        #expect(j.warning?.contains("checksum") == true)
    }

    @Test func aFileThatIsNotAJournalIsMovedAsideAndANewOneStarted() throws {
        let path = try journalPath("foreign")
        try "hello".write(toFile: path, atomically: true, encoding: .utf8)
        let j = try StrokeJournal(path: path)
        #expect(j.recovered.isEmpty && j.warning?.contains("moved aside") == true)
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"))
    }

    @Test func pagesAndTheirOrderComeBack() throws {
        let (edits, _, _) = try session("pressure")
        let strokes = edits.compactMap { if case .page(_, .added(let s)) = $0 { return s } else { return nil } }
        let journalled: [NotebookEdit] = [.page(0, .added(strokes[0])), .addPage, .page(1, .added(strokes[1])),
                                          .page(1, .added(strokes[2])), .page(1, .undo), .turn(to: 0)]
        let path = try journalPath("pages")
        try StrokeJournal(path: path).append(journalled)
        let j = try StrokeJournal(path: path)
        #expect(j.recovered == journalled)
        var notebook = Notebook()
        notebook.restore(j.recovered)
        #expect(notebook.count == 2 && notebook.current == 0)
        #expect(notebook.pages[0].strokes.map(\.id) == [strokes[0].id])
        #expect(notebook.pages[1].strokes.map(\.id) == [strokes[1].id])
        #expect(notebook.pages[1].canRedo, "the undo history of page 2 came back")
        // Emptying the journal (a handed-over signature) leaves nothing to restore.
        try j.reset()
        #expect(try StrokeJournal(path: path).recovered.isEmpty)
    }

    @Test func aJournalThatCannotBeOpenedSaysWhere() throws {
        do {
            _ = try StrokeJournal(path: "/proc/inkkiosk/journal.inkj")
            Issue.record("opened a journal in /proc")
        } catch {
            #expect("\(error)".contains("/proc/inkkiosk/journal.inkj"))
        }
    }
}
