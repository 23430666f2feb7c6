import Foundation
import Glibc
import Testing
import InkCore
import InkRender
import InkDisplay
@testable import InkKiosk

/// A replayed session's edits, as the kiosk would have journalled them.
private func session(_ name: String) throws -> (edits: [DocumentEdit], strokes: [Stroke], screen: Screen) {
    let r = try replay(name)
    var document = r.pipeline.document
    return (document.takeEdits(), r.pipeline.document.strokes, r.screen)
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
        var document = Document()
        document.restore(reopened.recovered)
        #expect(document.strokes.map(\.id) == strokes.map(\.id))
        #expect(document.strokes.map(\.samples) == strokes.map(\.samples))

        // The restored drawing looks the same on screen.
        let display = try OffscreenDisplay(size: screenSize)
        let pipeline = try FramePipeline(settings: InteractionSettings(screen: screenSize), devices: [], display: display)
        pipeline.restore(reopened.recovered)
        try pipeline.renderFrame()
        #expect(compare(Screen(display.screen), screen).maxDelta <= 2)

        // And undo still knows what the eraser did.
        document.undo()
        #expect(document.strokes.count == 2)
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

    @Test func aJournalThatCannotBeOpenedSaysWhere() throws {
        do {
            _ = try StrokeJournal(path: "/proc/inkkiosk/journal.inkj")
            Issue.record("opened a journal in /proc")
        } catch {
            #expect("\(error)".contains("/proc/inkkiosk/journal.inkj"))
        }
    }
}
