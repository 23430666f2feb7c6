// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
import CZlib
import InkCore
import InkStorage
import InkRender
import InkDisplay
@testable import InkKiosk
@testable import InkStorage
@testable import InkPipeline
import InkTestSupport

/// A replayed session's edits, as the kiosk would have journalled them.
private func session(_ name: String) throws -> (edits: [NotebookEdit], strokes: [Stroke], screen: Screen) {
    let r = try replay(name)
    return (r.pipeline.takeEdits(), r.pipeline.document.strokes, r.screen)
}

private func journalPath(_ name: String) throws -> String {
    let dir = try Fixtures.outputDirectory("journal"), path = "\(dir)/\(name).inkj"
    unlink(path)
    for f in try FileManager.default.contentsOfDirectory(atPath: dir) where f.hasPrefix("\(name).inkj.damaged") { unlink("\(dir)/\(f)") }
    return path
}

/// One clock for a test's journals: times come back exactly as written.
private let clock = ClockAnchor(wall: 1_790_000_000, mono: 100)

private func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

@Suite struct Journal {
    @Test func aRestartBringsBackEveryStrokeAndItsUndoHistory() throws {
        let (edits, strokes, screen) = try session("eraser")   // two strokes, one erased by the eraser end
        #expect(edits.count == 3)
        let path = try journalPath("restart")
        try StrokeJournal(path: path, clock: clock).append(edits)

        let reopened = try StrokeJournal(path: path, clock: clock)
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

    /// A batch bigger than one write (what was drawn while a compaction ran) is written in
    /// pieces, and comes back whole, as does a compacted copy of it.
    @Test func aBatchOfManyWritesComesBackWhole() throws {
        let (one, _, _) = try session("signatures")
        var edits: [NotebookEdit] = []
        var bytes = 0
        while bytes < 3 * StrokeJournal.writePiece {
            for edit in one {
                guard case .page(let page, .added(let stroke)) = edit else { continue }
                let copy = Stroke(id: edits.count + 1, brush: stroke.brush, source: stroke.source, samples: Array(stroke.samples), state: .done)
                bytes += stroke.samples.count * 40
                edits.append(.page(page, .added(copy)))
            }
        }
        let path = try journalPath("pieces")
        let journal = try StrokeJournal(path: path, clock: clock)
        let end = try journal.append(edits)
        #expect(Int(end) == fileSize(path) && Int(end) > 2 * StrokeJournal.writePiece, "more than two pieces written")
        let reopened = try StrokeJournal(path: path, clock: clock)
        #expect(reopened.warning == nil)
        #expect(reopened.recovered == edits)

        let copy = try journal.prepareCompaction(edits)
        _ = try journal.adopt(copy, tailFrom: end)
        #expect(try StrokeJournal(path: path, clock: clock).recovered == edits)
    }

    @Test func aTornTailIsCutNeverRefused() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("torn")
        let journal = try StrokeJournal(path: path, clock: clock)
        try journal.append(Array(edits.prefix(2)))
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try journal.append([edits[2]])
        let full = try Data(contentsOf: URL(fileURLWithPath: path))
        // A power cut at any byte of the last record: the first two strokes survive.
        for cut in stride(from: whole.count + 1, to: full.count, by: max(1, (full.count - whole.count) / 37)) {
            try full.prefix(cut).write(to: URL(fileURLWithPath: path))
            let j = try StrokeJournal(path: path, clock: clock)
            #expect(j.recovered == Array(edits.prefix(2)), "cut at \(cut)")
            #expect(j.warning?.contains("torn") == true, "cut at \(cut): \(j.warning ?? "no warning")")
            #expect(fileSize(path) == whole.count, "the damaged end is cut off")
        }
        try StrokeJournal(path: path, clock: clock).append([edits[2]])   // and the journal goes on
        #expect(try StrokeJournal(path: path, clock: clock).recovered == edits)
    }

    @Test func aCorruptRecordEndsWhatIsKept() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("corrupt")
        try StrokeJournal(path: path, clock: clock).append(edits)
        // Flip one byte inside the second stroke's payload (the first record is the session's clocks).
        do {
            let fd = open(path, O_RDWR)
            try #require(fd >= 0, "open \(path): errno \(errno)")
            defer { close(fd) }   // before the journal is opened again
            var at = off_t(StrokeJournal.magic.count)
            for _ in 0..<2 {
                var length: UInt32 = 0
                try #require(pread(fd, &length, 4, at) == 4)
                at += 8 + off_t(length)
            }
            var byte: UInt8 = 0
            let target = at + 8 + 20
            try #require(pread(fd, &byte, 1, target) == 1)
            byte ^= 0xff
            try #require(pwrite(fd, &byte, 1, target) == 1)
        }
        let j = try StrokeJournal(path: path, clock: clock)
        #expect(j.recovered == [edits[0]])
        #expect(j.warning?.contains("checksum") == true)
    }

    /// After a restart (here: a reboot, a day later) a stroke keeps its device, and its times
    /// move onto the new boot's monotonic clock through the wall clock.
    @Test func restoredStrokesKeepTheirDeviceAndTheirTimeOnTheNewClock() throws {
        let (edits, strokes, _) = try session("pressure")
        let path = try journalPath("clocks")
        let before = ClockAnchor(wall: 1_790_000_000, mono: 9.0)   // sample times 10…12 s: just after
        try StrokeJournal(path: path, clock: before).append(edits, deviceNames: [1: "Wacom Intuos5 touch M Pen"])
        let after = ClockAnchor(wall: 1_790_086_400, mono: 30.0)  // a day later, 30 s after that boot
        let j = try StrokeJournal(path: path, clock: after)
        let restored = j.recovered.compactMap { if case .page(_, .added(let s)) = $0 { return s } else { return nil } }
        #expect(restored.count == strokes.count)
        for (r, s) in zip(restored, strokes) {
            #expect(j.restoredDevices[r.source.device] == "Wacom Intuos5 touch M Pen")
            #expect(r.source.isPen && r.source.device < 0, "restored ids never clash with live devices")
            for (a, b) in zip(r.samples, s.samples) {
                // On the new clock the sample lies a day (less the new boot's 30 s) in the past.
                #expect(abs(a.time - (b.time - 9.0 - 86_400 + 30.0)) < 1e-6)
            }
        }
        // The time between samples is kept to the microsecond: the InkML of a signature
        // continued after the restart is consistent.
        let gaps = { (s: Stroke) in zip(s.samples.dropFirst(), s.samples).map { $0.time - $1.time } }
        for (r, s) in zip(restored, strokes) {
            #expect(zip(gaps(r), gaps(s)).allSatisfy { abs($0 - $1) < 1e-6 })
        }
        // A later process appends under its own clocks; every part of the journal keeps its own.
        let later = try StrokeJournal(path: path, clock: after)
        try later.append([edits[0]], deviceNames: [:])
        let again = try StrokeJournal(path: path, clock: after)
        #expect(again.recovered.count == edits.count + 1)
        if case .page(_, .added(let last)) = again.recovered.last {
            #expect(last.samples.first?.time == strokes[0].samples.first?.time, "written and read on one clock: unchanged")
        }
    }

    /// A record with a good checksum can still carry nonsense numbers: never a crash.
    @Test func nonsenseNumbersInAWholeRecordAreDamageNotACrash() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("nonsense")
        try StrokeJournal(path: path, clock: clock).append(Array(edits.prefix(1)))
        // As an older journal wrote samples (JSON), and as they are written now (binary).
        var json = JournalEntry(edits[0])
        json.packed = nil
        json.samples = [[1, 2, 0.5, 1, 0, 10, 1e300]]
        var binary = JournalEntry(edits[0])
        binary.packed = [Sample(location: Point(1e300, 2), pressure: 0.5, time: 10)]
        for (entry, problem) in [(json, "unreadable record"), (binary, "unreadable samples")] {
            try StrokeJournal(path: path, clock: clock).reset()
            try StrokeJournal(path: path, clock: clock).append(Array(edits.prefix(1)))
            let file = try #require(FileHandle(forWritingAtPath: path))
            try file.seekToEnd()
            try file.write(contentsOf: Data(try StrokeJournal.records([entry])))
            try file.close()
            let j = try StrokeJournal(path: path, clock: clock)
            #expect(j.recovered == Array(edits.prefix(1)))
            #expect(j.warning?.contains(problem) == true)
        }
    }

    @Test func aFileThatIsNotAJournalIsMovedAsideAndANewOneStarted() throws {
        let path = try journalPath("foreign")
        try "hello".write(toFile: path, atomically: true, encoding: .utf8)
        let before = Date()
        let j = try StrokeJournal(path: path)
        #expect(j.recovered.isEmpty && j.warning?.contains("moved aside to \(path).damaged.") == true, "\(j.warning ?? "")")
        // Named with the UTC time it was put aside, its bytes as they were.
        let copies = try DamagedJournals.copies(of: path)
        #expect(copies.count == 1)
        let (name, when) = try #require(copies.first)
        #expect(j.warning?.hasSuffix(name) == true)
        #expect(abs(when.timeIntervalSince(before)) < 2)
        #expect(try String(contentsOfFile: "\(URL(fileURLWithPath: path).deletingLastPathComponent().path)/\(name)", encoding: .utf8) == "hello")
    }

    @Test func pagesAndTheirOrderComeBack() throws {
        let (edits, _, _) = try session("pressure")
        let strokes = edits.compactMap { if case .page(_, .added(let s)) = $0 { return s } else { return nil } }
        let journalled: [NotebookEdit] = [.page(0, .added(strokes[0])), .addPage, .page(1, .added(strokes[1])),
                                          .page(1, .added(strokes[2])), .page(1, .undo), .turn(to: 0)]
        let path = try journalPath("pages")
        try StrokeJournal(path: path, clock: clock).append(journalled)
        let j = try StrokeJournal(path: path, clock: clock)
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

    @Test func aWorksheetAndItsPagesComeBackAndItsCompactedFormToo() throws {
        let (edits, _, _) = try session("pressure")
        let strokes = edits.compactMap { if case .page(_, .added(let s)) = $0 { return s } else { return nil } }
        let sheet = WorksheetRef(sha256: String(repeating: "ab", count: 32), file: "/w/fractions.pdf", title: "Fractions", pages: 3,
                                 bytes: 48_213)
        // Ink on a blank notebook, then a worksheet opened over it, written on, a page added after its pages.
        let journalled: [NotebookEdit] = [.page(0, .added(strokes[0])), .openWorksheet(sheet), .page(0, .added(strokes[1])),
                                          .turn(to: 2), .page(2, .added(strokes[2])), .addPage, .turn(to: 2)]
        let path = try journalPath("worksheet")
        try StrokeJournal(path: path, clock: clock).append(journalled)
        let j = try StrokeJournal(path: path, clock: clock)
        #expect(j.warning == nil)
        #expect(j.recovered == journalled)
        var notebook = Notebook()
        notebook.restore(j.recovered)
        #expect(notebook.worksheet == sheet && notebook.count == 4 && notebook.current == 2)
        #expect(notebook.pages[0].strokes.map(\.id) == [strokes[1].id], "the blank notebook's ink is not on the worksheet")
        #expect(notebook.pages[2].strokes.map(\.id) == [strokes[2].id])
        #expect(notebook.worksheetPage(at: 2) == 3 && notebook.worksheetPage(at: 3) == nil)
        // Compacted: the worksheet first, its pages, the blank page after them, the page shown.
        var again = Notebook()
        again.restore(notebook.compacted())
        #expect(again.worksheet == sheet && again.count == 4 && again.current == 2)
        #expect(again.pages.map { $0.strokes.map(\.id) } == notebook.pages.map { $0.strokes.map(\.id) })
        // A worksheet record whose digest is not one is damage: what came before it is kept.
        var bad = JournalEntry(.openWorksheet(sheet))
        bad.sha256 = "not a digest"
        try StrokeJournal(path: path, clock: clock).reset()
        try StrokeJournal(path: path, clock: clock).append([.page(0, .added(strokes[0]))])
        let file = try #require(FileHandle(forWritingAtPath: path))
        try file.seekToEnd()
        try file.write(contentsOf: Data(try StrokeJournal.records([bad])))
        try file.close()
        let damaged = try StrokeJournal(path: path, clock: clock)
        #expect(damaged.recovered == [.page(0, .added(strokes[0]))])
        #expect(damaged.warning != nil)
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

/// A signature's journal (signature mode) holds biometric samples: zeros go over its records,
/// synced, before they are cut off, so the disk's freed blocks do not keep them.
@Suite struct JournalScrubbing {
    private func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test func scrubWritesZerosOverEveryRecordAndKeepsTheHeader() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("scrub")
        let journal = try StrokeJournal(path: path, clock: clock, scrubbing: true)
        try journal.append(edits)
        let written = try bytes(path)
        #expect(written.count > 1000 && written.dropFirst(StrokeJournal.magic.count).contains { $0 != 0 })
        try journal.scrub()
        // The same length (the zeros went over the records, in place), the header as it was, nothing else.
        let scrubbed = try bytes(path)
        #expect(scrubbed.count == written.count)
        #expect(Array(scrubbed.prefix(StrokeJournal.magic.count)) == StrokeJournal.magic)
        #expect(scrubbed.dropFirst(StrokeJournal.magic.count).allSatisfy { $0 == 0 })
        // A reset of a scrubbing journal scrubs, then cuts: nothing comes back, and it goes on.
        try journal.append(Array(edits.prefix(1)))
        try journal.reset()
        #expect(try bytes(path) == StrokeJournal.magic)
        #expect(try StrokeJournal(path: path, clock: clock).recovered.isEmpty)
        // A crash between the zeros and the cut: the next start finds zeros, restores nothing, and cuts them.
        try journal.append(edits)
        try journal.scrub()
        let interrupted = try StrokeJournal(path: path, clock: clock, scrubbing: true)
        #expect(interrupted.recovered.isEmpty)
        #expect(interrupted.warning == "\(path): \(written.count - StrokeJournal.magic.count) bytes of zeros after 0 edits (emptying it was interrupted); cut",
                "\(interrupted.warning ?? "")")
        #expect(try bytes(path) == StrokeJournal.magic)
    }

    @Test func aTornTailIsZeroedOnlyBeyondTheWholeRecords() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("scrub-torn")
        let journal = try StrokeJournal(path: path, clock: clock)
        try journal.append(Array(edits.prefix(2)))
        let whole = try bytes(path)
        try journal.append([edits[2]])
        let full = try bytes(path)
        // Zeros over what follows a given length: exactly that range, the rest untouched.
        let fd = open(path, O_RDWR)
        try #require(fd >= 0)
        try StrokeJournal.overwrite(fd, from: off_t(whole.count), path)
        close(fd)
        let after = try bytes(path)
        #expect(after.count == full.count && Array(after.prefix(whole.count)) == whole)
        #expect(after.dropFirst(whole.count).allSatisfy { $0 == 0 })
        // Opened as a scrubbing journal, a torn last record is cut; what is kept is intact.
        try Data(full.dropLast(7)).write(to: URL(fileURLWithPath: path))
        let reopened = try StrokeJournal(path: path, clock: clock, scrubbing: true)
        #expect(reopened.recovered == Array(edits.prefix(2)) && reopened.warning?.contains("torn") == true)
        #expect(try bytes(path) == whole)
    }

    /// An append that fails part way (a full card) leaves a torn record: it is cut off, and in a
    /// signature's journal zeros go over it first, synced, as over anything else cut off.
    @Test func aFailedAppendIsZeroedBeforeItIsCutOff() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("scrub-failed-append")
        let journal = try StrokeJournal(path: path, clock: clock, scrubbing: true)
        try journal.append(Array(edits.prefix(2)))
        let whole = try bytes(path)
        // The disk fills 100 bytes into the third stroke's record, and the kiosk dies before the cut.
        journal.faults = .init(appendFailsAfter: 100, crashBeforeCut: true)
        do {
            try journal.append([edits[2]])
            Issue.record("the append did not fail")
        } catch let error as SystemCallError {
            #expect(error.errno == ENOSPC && error.path == path, "\(error)")
        }
        let torn = try bytes(path)
        #expect(torn.count == whole.count + 100 && Array(torn.prefix(whole.count)) == whole)
        #expect(torn.dropFirst(whole.count).allSatisfy { $0 == 0 }, "the torn record's bytes were zeroed before the cut")
        // The next start keeps the two whole strokes and cuts the zeros.
        let restarted = try StrokeJournal(path: path, clock: clock, scrubbing: true)
        #expect(restarted.recovered == Array(edits.prefix(2)))
        #expect(restarted.warning == "\(path): 100 bytes of zeros after 2 edits (emptying it was interrupted); cut", "\(restarted.warning ?? "")")
        #expect(try bytes(path) == whole)

        // Without the crash the file is cut back to its whole records, and the stroke is written again after them.
        restarted.faults.appendFailsAfter = 100
        #expect(throws: SystemCallError.self) { try restarted.append([edits[2]]) }
        #expect(try bytes(path) == whole, "nothing of the failed append is left")
        restarted.faults.appendFailsAfter = nil
        try restarted.append([edits[2]])
        #expect(try StrokeJournal(path: path, clock: clock, scrubbing: true).recovered == Array(edits.prefix(3)))
    }

    /// A signature's journal that cannot be read at all is not put aside (a copy would keep a
    /// customer's samples on the disk): zeros over it, then a new journal. A classroom's is kept
    /// aside for a person to look at.
    @Test func aDamagedSignatureJournalIsZeroedNotKeptAside() throws {
        let path = try journalPath("scrub-damaged")
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let damaged = Array("INKJOURNAL 9\n".utf8) + [UInt8](repeating: 0x5A, count: 5000)
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let journal = try StrokeJournal(path: path, clock: clock, scrubbing: true)
        #expect(journal.recovered.isEmpty)
        #expect(journal.warning == "\(path): not an inkkiosk journal (bad header); its 5013 bytes overwritten with zeros and emptied: "
                + "a signature's journal is not kept aside", "\(journal.warning ?? "")")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("scrub-damaged") }
        #expect(left == ["scrub-damaged.inkj"], "no copy beside it")
        #expect(try bytes(path) == StrokeJournal.magic, "a new journal in its place")
        try journal.append([.addPage])
        #expect(try StrokeJournal(path: path, clock: clock, scrubbing: true).recovered == [.addPage])

        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let classroom = try StrokeJournal(path: path, clock: clock)
        #expect(classroom.warning?.contains("moved aside to \(path).damaged.") == true, "\(classroom.warning ?? "")")
        #expect(try DamagedJournals.copies(of: path).count == 1)
    }

    /// The writer's thread does the zeros: after its reset the file is the header alone; a
    /// scrubbing journal is never compacted (the rename would free its blocks unscrubbed).
    @Test func theWriterEmptiesAScrubbingJournalAndNeverCompactsIt() throws {
        let (edits, _, _) = try session("pressure")
        let path = try journalPath("scrub-writer")
        let writer = JournalWriter(journal: try StrokeJournal(path: path, clock: clock, scrubbing: true))
        writer.submit(edits)
        #expect(writer.flush(timeout: 10))
        #expect(try bytes(path).count > 1000)
        #expect(!writer.compact(edits), "no compaction of a scrubbing journal")
        writer.reset()
        #expect(writer.flush(timeout: 10))
        #expect(try bytes(path) == StrokeJournal.magic)
        #expect(writer.state.problem == nil && writer.state.compactions == 0)
        #expect(writer.stop(timeout: 10))
    }
}

/// Records with valid checksums but any content, and records cut short: opening the journal
/// never crashes, keeps what came before the bad record, and says what it dropped.
@Suite struct JournalFuzz {
    @Test func tenThousandBadRecordsNeverCrashTheReader() throws {
        let (edits, _, _) = try session("pressure")
        let valid = edits.map { JournalEntry($0, deviceName: { _ in "Pen" }) } + [JournalEntry(session: clock)]
        let encoder = JSONEncoder()
        // Short strokes (six samples) keep ten thousand cases quick. Strokes are written with
        // their brush and samples in binary; older journals had them in the JSON: both are fuzzed.
        let objects = try valid.map { entry -> [String: Any] in
            var object = try JSONSerialization.jsonObject(with: encoder.encode(entry)) as! [String: Any]
            if let packed = entry.packed, let b = entry.packedBrush {
                object["samples"] = packed.prefix(6).map { [$0.location.x, $0.location.y, $0.pressure, $0.altitude, $0.azimuth, $0.time, 0] }
                object["color"] = Array(b[0..<4]); object["width"] = b[4]; object["nib"] = Array(b[5..<8])
                object["curve"] = stride(from: 8, to: b.count, by: 2).map { [b[$0], b[$0 + 1]] }
            }
            return object
        }
        let packedStrokes = try valid.filter { $0.packed != nil }.map { entry -> [UInt8] in
            var short = entry
            short.packed = Array(entry.packed!.prefix(6))
            return Array(try StrokeJournal.records([short]).dropFirst(8))   // the payload, without length and CRC
        }
        let good = Self.record(Array(try JSONSerialization.data(withJSONObject: objects[0])))
        var rng = SplitMix64(seed: 4711)
        let nasty: [Any] = [1e308, -1e308, 9.3e18, -9.3e18, -1, 0, 1e-300, 2147483648, "x", NSNull(), [Any](), [String: Any](),
                            true, [[1e308, -1e308, 0, 0, 0, 0, 1e19]], [[Double]](repeating: [0, 0, 0.5, 1, 0, 10, 0], count: 3)]
        var decodedBadOnes = 0, renderedBadOnes = 0
        let display = try OffscreenDisplay(size: PixelSize(width: 320, height: 200))
        let cases = Emulation.cases(10_000)
        for n in 0..<cases {
            var object = objects[rng.below(objects.count)]
            let keys = Array(object.keys)
            switch rng.below(4) {
            case 0: object[keys[rng.below(keys.count)]] = nasty[rng.below(nasty.count)]
            case 1: object.removeValue(forKey: keys[rng.below(keys.count)])
            case 2:
                if var samples = object["samples"] as? [[Double]], !samples.isEmpty {
                    let i = rng.below(samples.count), j = rng.below(samples[i].count)
                    samples[i][j] = [1e308, -1e308, 9.3e18, -1, 1e-300, 4e9][rng.below(6)] as Double
                    object["samples"] = samples
                } else {
                    object["page"] = [Notebook.maxPages, -1, 5, 999, Int.max][rng.below(5)] as Int
                }
            default: object[["op", "page", "id", "ids", "width", "wall"][rng.below(6)]] = nasty[rng.below(nasty.count)]
            }
            guard JSONSerialization.isValidJSONObject(object) else {
                Issue.record("case \(n): not serialisable: \(object.mapValues { type(of: $0) })")
                continue
            }
            var payload = Array(try JSONSerialization.data(withJSONObject: object))
            if n % 3 == 0 {
                // A binary stroke: nonsense numbers or bytes in its brush or samples.
                payload = packedStrokes[rng.below(packedStrokes.count)]
                let block = payload.firstIndex(of: 0)! + 1
                let at = block + rng.below(payload.count - block)
                switch rng.below(3) {
                case 0:
                    let nastyDouble = [Double.nan, .infinity, -1e308, 1e19, -1, 2, 4e9][rng.below(7)]
                    let bytes = withUnsafeBytes(of: nastyDouble.bitPattern.littleEndian) { Array($0) }
                    for (k, byte) in bytes.enumerated() where at + k < payload.count { payload[at + k] = byte }
                case 1: payload[at] = UInt8(truncatingIfNeeded: rng.below(256))
                default: payload[block] = UInt8(truncatingIfNeeded: rng.below(256)); payload[block + 1] = UInt8(truncatingIfNeeded: rng.below(256))
                }
            }
            if n % 7 == 0 { payload = Array(payload.prefix(rng.below(payload.count))) }   // cut short, yet a valid CRC
            let bad = Self.record(payload)
            var context = RestoreContext(reader: clock)
            let (kept, length, problem) = StrokeJournal.parse(StrokeJournal.magic + good + bad + good, &context)
            #expect(kept.count >= 1 && length >= StrokeJournal.magic.count + good.count, "case \(n)")
            if let problem {
                #expect(problem.contains("byte"), "case \(n): \(problem)")
            } else {
                decodedBadOnes += 1
            }
            var notebook = Notebook()
            notebook.restore(kept)
            #expect(notebook.count >= 1 && notebook.count <= Notebook.maxPages)
            if problem == nil && n % 10 == 0 {
                // Whatever was accepted also draws.
                let pipeline = try FramePipeline(settings: InteractionSettings(screen: display.size), devices: [], display: display)
                pipeline.restore(kept)
                try pipeline.renderFrame()
                renderedBadOnes += 1
            }
        }
        #expect(decodedBadOnes > 100, "the fuzzing reached the decoder's checks")
        print("journal fuzz: \(cases) records, \(decodedBadOnes) accepted as valid edits (\(renderedBadOnes) drawn), the rest cut with a warning")
    }

    private static func record(_ payload: [UInt8]) -> [UInt8] {
        let crc = payload.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        return le(UInt32(payload.count)) + le(crc) + payload
    }

    private static func le(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
}
