// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CCairo
import InkConfig
import InkDisplay
import InkCore
@testable import InkRender
import InkPDFHelper
import InkStorage
@testable import InkWorksheet
@testable import InkKiosk
@testable import InkPipeline
import InkTestSupport
import InkWorksheetTestSupport

/// The classroom's Worksheets: the list, a worksheet opened as the notebook, its pages under
/// the ink, the journal bringing it back, Save writing the annotated worksheet. The PDF helper
/// is asked inline here (the kiosk asks it from a thread of its own).
@Suite struct WorksheetScreenTests {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("worksheet-screen-\(UUID().uuidString.prefix(8))") }
    init(dir: String) { self.dir = dir }

    func settings() throws -> ScreenSettings {
        var s = ScreenSettings()
        s.mode = .classroom
        s.capture.saveDirectory = "\(dir)/saved"
        s.worksheets.folders = ["\(dir)/sheets"]
        s.pdfHelper.executable = Fixtures.inkkioskBinary
        s.pdfHelper.requiresSeccomp = !Fixtures.emulated
        try FileManager.default.createDirectory(atPath: "\(dir)/sheets", withIntermediateDirectories: true)
        return s
    }

    /// The classroom's settings with a USB stick (a folder, the second worksheet folder) holding maps.pdf (2 pages, "Maps").
    func settingsWithAStick() throws -> (ScreenSettings, String) {
        var s = try settings()
        let stick = "\(dir)/stick"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        s.worksheets.folders.append(stick)
        try Worksheets.make("\(stick)/maps.pdf", pages: 2, title: "Maps")
        return (s, stick)
    }

    func classroom(_ booth: Booth) throws -> ClassroomScreen { try #require(booth.screen as? ClassroomScreen) }

    /// Where a page point of the worksheet lies on the screen.
    func fit(_ booth: Booth) throws -> PageFit {
        PageFit(pageWidth: Worksheets.a4.width, pageHeight: Worksheets.a4.height, into: try classroom(booth).pageArea)
    }

    /// The list, then the worksheet named `name` from it.
    func open(_ name: String, in booth: Booth) throws {
        try booth.tap(.openWorksheets)
        let entries = try #require(try classroom(booth).shelf?.entries)
        // A name missing from the list says what was wrong with each entry (its reader's refusal).
        let index = try #require(entries.firstIndex { $0.name == name },
                                 "\(name) not in \(entries.map { "\($0.name): \($0.problem.map { "\($0.kind) \($0)" } ?? "ok")" })")
        try booth.tap(.chooseWorksheet(index))
    }

    /// A pen line across the page's box (page points 120…470 at y = 420).
    func writeInTheBox(_ booth: Booth, y: Double = 420) throws {
        let f = try fit(booth)
        try booth.draw([f.toScreen(Point(120, y)), f.toScreen(Point(470, y))])
    }

    /// Dark pixels of the page's heading ("Worksheet n", page points 72…330 × 64…104).
    func heading(_ screen: Screen, _ f: PageFit) -> Int {
        let a = f.toScreen(Point(72, 64)), b = f.toScreen(Point(330, 104))
        return screen.inkCount(x0: Int(a.x), y0: Int(a.y), x1: Int(b.x), y1: Int(b.y))
    }

    func inkAcrossTheBox(_ screen: Screen, _ f: PageFit, y: Double = 420) -> Bool {
        stride(from: 150.0, through: 440, by: 29).allSatisfy { x in
            let p = f.toScreen(Point(x, y)); return screen.inkNear(Int(p.x), Int(p.y))
        }
    }

    @Test func theListShowsEachPDFAndWhatIsWrongWithTheBadOnes() throws {
        let s = try settings()
        try Worksheets.make("\(dir)/sheets/fractions.pdf", pages: 2)
        try Worksheets.write("\(dir)/sheets/broken.pdf", Array("%PDF-1.4\n garbage".utf8))
        try Worksheets.locked("\(dir)/sheets/locked.pdf")
        try Worksheets.write("\(dir)/sheets/empty.pdf", [])
        try Worksheets.write("\(dir)/sheets/notes.txt", Array("not listed".utf8))
        let booth = try Booth(s)
        try booth.tap(.openWorksheets)
        try booth.png("worksheets-list")
        let entries = try #require(try classroom(booth).shelf?.entries)
        #expect(entries.map(\.name) == ["broken", "empty", "Fractions", "locked"])
        #expect(entries.map(\.pages) == [0, 0, 2, 0])
        #expect(entries[2].thumbnail != nil && entries[2].problem == nil)
        #expect(entries[0].problem?.kind == .damaged && entries[1].problem?.kind == .empty
                && entries[3].problem?.kind == .passwordProtected)
        // The list covers the page: the pen does not draw while it is up.
        try booth.draw([Point(300, 500), Point(700, 500)])
        #expect(booth.pipeline.document.strokes.isEmpty)
        // A bad one says what is wrong, on screen, and nothing is opened.
        try booth.tap(.chooseWorksheet(3))
        try booth.png("worksheets-locked")
        #expect(booth.pipeline.notebook.worksheet == nil)
        let shown = booth.shown.image.pixel(x: 200, y: 742)
        #expect(shown.r > 150 && shown.g < 60, "the warning banner \(shown)")
        try booth.tap(.closeWorksheets)
        #expect(try classroom(booth).shelf == nil)
    }

    @Test func theListShowsItsRowsAtOnceAndFillsThemInAsThePDFsAreRead() throws {
        let s = try settings()
        for n in 1...9 { try Worksheets.make("\(dir)/sheets/sheet-\(n).pdf", pages: n, title: "Sheet \(n)") }
        let sheets = try BackgroundChores.onThread()
        defer { sheets.stop(timeout: 10) }
        let booth = try Booth(s, sheets: sheets)
        try booth.tap(.openWorksheets)
        /// Frames until `done` holds (poppler's thread delivers between them), at most 10 s.
        func until(_ what: String, _ done: () throws -> Bool) throws {
            let deadline = Date().addingTimeInterval(10)
            while try !done() {
                guard Date() < deadline else { Issue.record("not within 10 s: \(what)"); return }
                usleep(1000)
                try booth.frame()
            }
        }
        // First the files' names, before any PDF is read (the rows a finger can already hit).
        try until("the rows") { try classroom(booth).shelf?.entries != nil }
        let first = try #require(try classroom(booth).shelf?.entries)
        #expect(first.map(\.name) == (1...9).map { "sheet-\($0)" } && first.allSatisfy { !$0.checked })
        try booth.png("worksheets-list-reading")
        // Then each PDF's title, pages and first page, a few at a time.
        var seen: Set<Int> = []
        try until("every row read") {
            let entries = try classroom(booth).shelf?.entries ?? []
            seen.insert(entries.filter(\.checked).count)
            return entries.allSatisfy(\.checked)
        }
        let entries = try #require(try classroom(booth).shelf?.entries)
        #expect(entries.map(\.name) == (1...9).map { "Sheet \($0)" } && entries.map(\.pages) == Array(1...9))
        #expect(entries.allSatisfy { $0.thumbnail != nil })
        #expect(seen.contains { $0 > 0 && $0 < 9 }, "rows filled in as they were read: \(seen.sorted())")
        #expect(booth.logged.contains { $0.hasPrefix("worksheets: 9 listed") }, "\(booth.logged)")
    }

    @Test func aWorksheetBecomesTheNotebookWithItsPagesUnderTheInk() throws {
        let s = try settings()
        try Worksheets.make("\(dir)/sheets/fractions.pdf", pages: 3)
        let journal = "\(dir)/journal.inkj"
        do {
            let booth = try Booth(s, journal: journal)
            // Ink on the blank notebook first: it is saved before the worksheet replaces it.
            try booth.draw([Point(300, 400), Point(700, 400)])
            try open("Fractions", in: booth)
            let screen = try classroom(booth)
            #expect(screen.lastSaved.contains { $0.hasSuffix(".pdf") && $0.contains("notebook-") }, "\(screen.lastSaved)")
            #expect(booth.pipeline.notebook.count == 3 && booth.pipeline.notebook.current == 0)
            #expect(booth.pipeline.document.strokes.isEmpty)
            let f = try fit(booth)
            #expect(heading(booth.shown, f) > 300, "page 1's heading on screen")
            // The desk beside the page is grey, the page white.
            let desk = booth.shown.image.pixel(x: 10, y: 500)
            #expect(desk.r > 190 && desk.r < 230)
            try writeInTheBox(booth)
            #expect(inkAcrossTheBox(booth.shown, f))
            try booth.png("worksheet-page1")
            try booth.tap(.nextPage)
            #expect(heading(booth.shown, f) > 300, "page 2's heading")
            #expect(!inkAcrossTheBox(booth.shown, f), "page 2 has no ink yet")
            try writeInTheBox(booth, y: 460)
            // The papers of the page shown and its neighbours are kept.
            #expect(Set(booth.pipeline.papers.keys) == [0, 1, 2])
            try booth.png("worksheet-page2")
        }
        // A restart (kill -9 is the same to the journal): the worksheet, its pages and the ink come back.
        let booth = try Booth(s, journal: journal)
        try booth.frame()
        #expect(booth.pipeline.notebook.worksheet?.pages == 3)
        #expect(booth.pipeline.notebook.current == 1)
        let f = try fit(booth)
        #expect(heading(booth.shown, f) > 300, "the page is under the restored ink")
        #expect(inkAcrossTheBox(booth.shown, f, y: 460))
        try booth.png("worksheet-restored")
        try booth.tap(.save)
        let screen = try classroom(booth)
        let pdf = try #require(screen.lastSaved.first { $0.hasSuffix(".pdf") })
        #expect(pdf.contains("/Fractions-"), "\(pdf)")
        #expect(screen.lastSaved.count == 4)
        // Its pages keep their text as text and their size; the ink lies where it was written.
        let text = try run("/usr/bin/pdftotext", [pdf, "-"])
        #expect(text.stdout.contains("Worksheet 1") && text.stdout.contains("Worksheet 2") && text.stdout.contains("Worksheet 3"))
        #expect(try run("/usr/bin/pdfinfo", [pdf]).stdout.contains("595 x 842 pts"))
        let prefix = "\(dir)/annotated"
        #expect(try run("/usr/bin/pdftoppm", ["-r", "72", "-png", pdf, prefix]).status == 0)
        let page1 = Screen(try ImageSurface.readPNG(prefix + "-1.png")), page2 = Screen(try ImageSurface.readPNG(prefix + "-2.png"))
        for x in stride(from: 150, through: 440, by: 29) {
            #expect(page1.inkNear(x, 420) && !page1.inkNear(x, 460), "page 1 at x \(x)")
            #expect(page2.inkNear(x, 460) && !page2.inkNear(x, 420), "page 2 at x \(x)")
        }
        #expect(page1.inkCount(x0: 72, y0: 64, x1: 330, y1: 104) > 300)
        // The PNG of page 2 is the screen's picture of it, without the toolbar.
        let png2 = Screen(try ImageSurface.readPNG(screen.lastSaved[1]))
        #expect(inkAcrossTheBox(png2, f, y: 460) && heading(png2, f) > 300)
    }

    @Test func aNotebookThatCannotBeSavedIsNotReplaced() throws {
        var s = try settings()
        try Worksheets.write("\(dir)/not-a-folder", Array("a file".utf8))
        s.capture.saveDirectory = "\(dir)/not-a-folder/saved"   // cannot be made: a file is in the way
        try Worksheets.make("\(dir)/sheets/fractions.pdf", pages: 2)
        let booth = try Booth(s)
        try booth.draw([Point(300, 400), Point(700, 400)])
        try open("Fractions", in: booth)
        #expect(booth.pipeline.notebook.worksheet == nil, "the worksheet is not opened")
        #expect(booth.pipeline.document.strokes.count == 1, "the ink is still there")
        #expect(booth.logged.contains { $0.contains("not opened: the notebook shown could not be saved") }, "\(booth.logged)")
        let banner = booth.shown.image.pixel(x: 200, y: 742)
        #expect(banner.r > 150 && banner.g < 60, "\(banner)")
    }

    @Test func aWorksheetThatIsGoneLeavesItsInkOnBlankPagesAndSaysSo() throws {
        let s = try settings()
        try Worksheets.make("\(dir)/sheets/maps.pdf", pages: 2, title: "Maps")
        let journal = "\(dir)/journal.inkj"
        do {
            let booth = try Booth(s, journal: journal)
            try open("Maps", in: booth)
            try writeInTheBox(booth)
        }
        // Renamed: found again by its content (the journal knows its size too).
        #expect(try StrokeJournal(path: journal).recovered.contains {
            if case .openWorksheet(let ref) = $0 { return ref.bytes == (try? FileManager.default.attributesOfItem(atPath: "\(dir)/sheets/maps.pdf")[.size] as? Int) }
            return false
        })
        try FileManager.default.moveItem(atPath: "\(dir)/sheets/maps.pdf", toPath: "\(dir)/sheets/maps-week2.pdf")
        do {
            let booth = try Booth(s, journal: journal)
            try booth.frame()
            let f = try fit(booth)
            #expect(heading(booth.shown, f) > 300, "found under its new name")
            #expect(booth.logged.contains { $0.contains("maps-week2.pdf opened again") }, "\(booth.logged)")
        }
        try FileManager.default.removeItem(atPath: "\(dir)/sheets/maps-week2.pdf")
        let booth = try Booth(s, journal: journal)
        try booth.frame()
        let f = try fit(booth)
        #expect(inkAcrossTheBox(booth.shown, f), "the ink is back")
        #expect(heading(booth.shown, f) == 0, "on a blank page")
        #expect(booth.logged.contains { $0.contains("cannot be opened again") }, "\(booth.logged)")
        try booth.png("worksheet-gone")
        // The note is on screen (the red banner at the bottom).
        let banner = booth.shown.image.pixel(x: 200, y: 742)
        #expect(banner.r > 150 && banner.g < 60, "\(banner)")
    }
}

/// A worksheet opened from the USB stick is copied to the tablet: the stick can be pulled out.
/// Waits (at most 5 s) until a file touched now gets a later modification time than `path`'s.
/// File times come from the kernel's coarse clock (one tick, a few ms), so two files touched
/// in a row may share one. `probe`: a scratch file on the same file system.
private func fileClockPasses(_ path: String, probe: String) -> Bool {
    func modified(_ file: String) -> Int? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
    }
    guard let then = modified(path), FileManager.default.createFile(atPath: probe, contents: nil) else { return false }
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
        utimensat(AT_FDCWD, probe, nil, 0)   // as WorksheetCopies marks a copy opened
        if let now = modified(probe), now > then { return true }
        usleep(1000)
    }
    return false
}

@Suite struct WorksheetsFromTheStick {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("worksheet-stick-\(UUID().uuidString.prefix(8))") }

    /// A classroom whose worksheets_usb is a folder holding maps.pdf (2 pages, "Maps").
    func withAStick() throws -> (WorksheetScreenTests, ScreenSettings, String) {
        let screens = WorksheetScreenTests(dir: dir)
        let (s, stick) = try screens.settingsWithAStick()
        return (screens, s, stick)
    }

    @Test func aStickWorksheetIsKeptOnTheTabletSoItsPagesOutliveTheStick() throws {
        let (screens, s, stick) = try withAStick()
        let journal = "\(dir)/journal.inkj"
        do {
            let booth = try Booth(s, journal: journal)
            try screens.open("Maps", in: booth)
            #expect(booth.pipeline.notebook.worksheet?.file == "\(dir)/sheets/copies/maps.pdf")
            #expect(booth.logged.contains { $0.contains("copied to \(dir)/sheets/copies/maps.pdf") }, "\(booth.logged)")
            try screens.writeInTheBox(booth)
            // Listed once, as the tablet's copy, while the stick is still in.
            try booth.tap(.openWorksheets)
            let entries = try #require(try screens.classroom(booth).shelf?.entries)
            #expect(entries.map(\.path) == ["\(dir)/sheets/copies/maps.pdf"])
        }
        // The teacher takes the stick to the next tablet; this one restarts (a crash, a power cut).
        try FileManager.default.removeItem(atPath: stick)
        let booth = try Booth(s, journal: journal)
        try booth.frame()
        let f = try screens.fit(booth)
        #expect(screens.heading(booth.shown, f) > 300, "the page is still under the ink")
        #expect(screens.inkAcrossTheBox(booth.shown, f))
        try booth.tap(.save)
        let pdf = try #require(try screens.classroom(booth).lastSaved.first { $0.hasSuffix(".pdf") })
        #expect(try run("/usr/bin/pdftotext", [pdf, "-"]).stdout.contains("Worksheet 2"), "saved with its pages, not on blank ones")
        #expect(!booth.logged.contains { $0.contains("blank pages") }, "\(booth.logged)")
    }

    @Test func aWorksheetThatCannotBeCopiedOpensFromTheStickAndTheScreenSaysKeepItIn() throws {
        let (screens, s, stick) = try withAStick()
        // The tablet's folder has a file where the copies' folder would be: nothing can be copied.
        try Worksheets.write("\(dir)/sheets/copies", Array("in the way".utf8))
        let booth = try Booth(s, journal: "\(dir)/journal.inkj")
        try screens.open("Maps", in: booth)
        #expect(booth.pipeline.notebook.worksheet?.file == "\(stick)/maps.pdf")
        #expect(booth.logged.contains { $0.contains("not copied to the tablet") }, "\(booth.logged)")
        try booth.frame()
        try booth.png("worksheet-not-copied")
        let banner = booth.shown.image.pixel(x: 200, y: 742)
        #expect(banner.r > 150 && banner.g < 60, "the warning banner \(banner)")
    }

    @Test func copiesStayWithinTheirLimitTheOldestOpenedGoingFirst() throws {
        let folder = "\(dir)/copies"
        try FileManager.default.createDirectory(atPath: "\(dir)/stick", withIntermediateDirectories: true)
        var sizes: [String: Int] = [:]
        for (name, pages) in [("a", 1), ("b", 2), ("c", 3)] {
            try Worksheets.make("\(dir)/stick/\(name).pdf", pages: pages, title: name)
            sizes[name] = try #require(try FileManager.default.attributesOfItem(atPath: "\(dir)/stick/\(name).pdf")[.size] as? Int)
        }
        func sha(_ name: String) throws -> String { try Worksheet.sha256(of: "\(dir)/stick/\(name).pdf", maxBytes: 1 << 30) }
        // Room for a and c (the largest), not for all three.
        let copies = WorksheetCopies(folder: folder, maxBytes: try #require(sizes["a"]) + (try #require(sizes["c"])) + 10)
        #expect(try copies.keep("\(dir)/stick/a.pdf", sha256: sha("a")) == "\(folder)/a.pdf")
        #expect(try copies.keep("\(dir)/stick/b.pdf", sha256: sha("b")) == "\(folder)/b.pdf")
        // Opened again later than b as the file system tells time (its clock ticks coarsely).
        try #require(fileClockPasses("\(folder)/b.pdf", probe: "\(dir)/clock-probe"), "the file system's clock moves on")
        #expect(try copies.keep("\(dir)/stick/a.pdf", sha256: sha("a")) == "\(folder)/a.pdf", "kept once, opened again")
        #expect(try copies.keep("\(dir)/stick/c.pdf", sha256: sha("c")) == "\(folder)/c.pdf")
        #expect(copies.files().map(\.path) == ["\(folder)/a.pdf", "\(folder)/c.pdf"], "b was opened longest ago")
        #expect(try Worksheet.sha256(of: "\(folder)/c.pdf", maxBytes: 1 << 30) == sha("c"), "the copy is the file")
        // Another worksheet of the same name (another teacher's stick) gets a name of its own.
        try Worksheets.make("\(dir)/stick/a.pdf", pages: 4, title: "another a")
        let other = try copies.keep("\(dir)/stick/a.pdf", sha256: sha("a"))
        #expect(other.hasPrefix("\(folder)/a-") && other != "\(folder)/a.pdf")
        // A file that is not what was opened (changed on the stick since) is not kept.
        #expect(throws: StorageError.self) { try copies.keep("\(dir)/stick/b.pdf", sha256: String(repeating: "0", count: 64)) }
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/b.pdf"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasSuffix(".tmp") })
    }
}

/// A PDF that crashes or stalls poppler costs its helper process, never the kiosk: the page
/// is refused, the screen says why, the ink goes on; twice, and the file is not opened again.
@Suite struct WorksheetsThatCrashPoppler {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("worksheet-crash-\(UUID().uuidString.prefix(8))") }

    @Test func aCrashOfTheHelperOnAPageIsShownAndTheInkGoesOn() throws {
        let screens = WorksheetScreenTests(dir: dir)
        let s = try screens.settings()
        try Worksheets.make("\(dir)/sheets/maps.pdf", pages: 6, title: "Maps")
        let booth = try Booth(s)
        try screens.open("Maps", in: booth)   // pages 1 to 3 drawn (the one shown and two ahead)
        let helper = try screens.classroom(booth).settings.worksheets.helper
        let first = try #require(helper.pid)
        // Turning to page 2 asks for page 4's paper; the helper dies (SIGSEGV) reading that page.
        let crash = HelperFault.during(helper, .page, signal: SIGSEGV)
        try booth.tap(.nextPage)
        try crash.wait()
        #expect(booth.logged.contains { $0.contains("maps.pdf: the PDF reader crashed (SIGSEGV) on page 4") }, "\(booth.logged)")
        let banner = booth.shown.image.pixel(x: 270, y: 745)
        #expect(banner.r > 150 && banner.g < 60, "the screen says so: \(banner)")
        try booth.png("worksheet-helper-crashed")
        try screens.writeInTheBox(booth)
        let f = try screens.fit(booth)
        #expect(booth.pipeline.notebook.current == 1 && screens.inkAcrossTheBox(booth.shown, f), "the ink goes on")
        #expect(screens.heading(booth.shown, f) > 300, "page 2 is on screen as before")
        // Page 4 stays blank; page 5 comes from a new helper, the worksheet opened again in it.
        try booth.tap(.nextPage)
        try booth.tap(.nextPage)
        #expect(booth.pipeline.notebook.current == 3 && screens.heading(booth.shown, f) == 0, "page 4 blank")
        try booth.tap(.nextPage)
        #expect(screens.heading(booth.shown, f) > 300, "page 5 drawn")
        #expect(helper.pid != nil && helper.pid != first)
        #expect(PopplerWatch(directory: "\(dir)/sheets").strikes(for: "\(dir)/sheets/maps.pdf") == 1)
    }

    @Test func aHelperStuckOnAPageIsKilledThePageLeftBlankAndTheNextWorks() throws {
        let screens = WorksheetScreenTests(dir: dir)
        var s = try screens.settings()
        s.pdfHelper.stuckSeconds = 1
        try Worksheets.make("\(dir)/sheets/maps.pdf", pages: 6, title: "Maps")
        let booth = try Booth(s)
        try screens.open("Maps", in: booth)
        let helper = try screens.classroom(booth).settings.worksheets.helper
        let stuck = try #require(helper.pid)
        // A helper that stops answering (as poppler looping on a crafted page does), asked for page 4.
        kill(stuck, SIGSTOP)
        let started = ProcessInfo.processInfo.systemUptime
        try booth.tap(.nextPage)
        let waited = ProcessInfo.processInfo.systemUptime - started
        #expect(waited >= 1 && helper.pid != stuck, "killed after worksheet_stuck_seconds (\(waited) s)")
        #expect(booth.logged.contains { $0.contains("maps.pdf: the PDF reader took more than 1 s and was stopped on page 4") }, "\(booth.logged)")
        let banner = booth.shown.image.pixel(x: 270, y: 745)
        #expect(banner.r > 150 && banner.g < 60, "\(banner)")
        try booth.png("worksheet-helper-stuck")
        try screens.writeInTheBox(booth)
        #expect(screens.inkAcrossTheBox(booth.shown, try screens.fit(booth)), "the ink goes on")
        for _ in 0..<3 { try booth.tap(.nextPage) }
        let f = try screens.fit(booth)
        #expect(booth.pipeline.notebook.current == 4 && screens.heading(booth.shown, f) > 300, "page 5 from a new helper")
    }

    @Test func twoFailuresOnOneFileRefuseItUntilItIsReplaced() throws {
        let folder = "\(dir)/sheets", path = "\(folder)/maps.pdf"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Worksheets.make(path, pages: 3, title: "Maps")
        let helper = PDFHelper(launch: Fixtures.pdfHelperLaunch)
        let watch = PopplerWatch(directory: folder)
        let sheet = try Worksheet(path: path, watch: watch, helper: helper)
        for round in 1...2 {
            _ = try sheet.page(1)   // opened (again, in a new helper after the first crash)
            let crash = HelperFault.during(helper, .page, signal: round == 1 ? SIGSEGV : SIGABRT)
            let e = #expect(throws: WorksheetError.self) { try sheet.page(2) }
            try crash.wait()
            #expect(e?.kind == .crashed && e?.detail.contains(round == 1 ? "(SIGSEGV) on page 2" : "(SIGABRT) on page 2") == true,
                    "\(String(describing: e))")
            #expect(PopplerWatch(directory: folder).strikes(for: path) == round, "counted on disk")
        }
        let refused = #expect(throws: WorksheetError.self) { try Worksheet(path: path, watch: PopplerWatch(directory: folder), helper: helper) }
        #expect(refused?.kind == .crashedBefore && refused?.detail.contains("failed 2 times") == true, "\(String(describing: refused))")
        // Touched (as a copy from the stick is when opened again): still refused.
        utimensat(AT_FDCWD, path, nil, 0)
        #expect(throws: WorksheetError.self) { try Worksheet(path: path, watch: PopplerWatch(directory: folder), helper: helper) }
        // The file written again (the teacher exported it anew, with a page more) is tried afresh.
        try Worksheets.make(path, pages: 4, title: "Maps")
        #expect(try Worksheet(path: path, watch: PopplerWatch(directory: folder), helper: helper).pageCount == 4)
    }

    @Test func aNotebookWhoseWorksheetFailedTwiceComesBackOnBlankPagesAndTheListSaysWhy() throws {
        let screens = WorksheetScreenTests(dir: dir)
        let s = try screens.settings()
        let folder = "\(dir)/sheets", path = "\(folder)/maps.pdf"
        try Worksheets.make(path, pages: 3, title: "Maps")
        let journal = "\(dir)/journal.inkj"
        do {
            let booth = try Booth(s, journal: journal)
            try screens.open("Maps", in: booth)
            try booth.tap(.nextPage)
            try screens.writeInTheBox(booth)
        }
        // Two crashes on page 2 (as a kiosk that came back to it twice saw them).
        for _ in 0..<2 { HelperFault.strike(PopplerWatch(directory: folder), path, page: 2) }
        let booth = try Booth(s, journal: journal)
        try booth.frame()
        let f = try screens.fit(booth)
        #expect(booth.pipeline.notebook.current == 1 && screens.inkAcrossTheBox(booth.shown, f), "the ink is back")
        #expect(screens.heading(booth.shown, f) == 0, "on a blank page")
        #expect(booth.logged.contains { $0.contains("cannot be opened again") && $0.contains("failed 2 times") }, "\(booth.logged)")
        let banner = booth.shown.image.pixel(x: 200, y: 742)
        #expect(banner.r > 150 && banner.g < 60, "\(banner)")
        try booth.png("worksheet-crashed")
        try booth.tap(.openWorksheets)
        let entries = try #require(try screens.classroom(booth).shelf?.entries)
        #expect(entries.first?.problem?.kind == .crashedBefore && entries.first?.thumbnail == nil)
    }
}

/// The papers of a worksheet's pages stay within their budget, nearest pages first.
@Suite struct WorksheetPapers {
    @Test func papersFarFromThePageShownOrOverTheBudgetGo() throws {
        let size = PixelSize(width: 320, height: 200)
        let pipeline = try FramePipeline(settings: InteractionSettings(screen: size), devices: [], display: try OffscreenDisplay(size: size))
        pipeline.open(WorksheetRef(sha256: String(repeating: "0", count: 64), file: "/w.pdf", title: "W", pages: 8))
        // Papers of noise: no runs to compress, so each is as big as a screen (320 x 200 x 4 bytes and the row index).
        var rng = SplitMix64(seed: 7)
        func paper() throws -> PageSnapshot {
            let image = try ImageSurface(size: size, format: .xrgb)
            let data = try #require(cairo_image_surface_get_data(image.surface))
            for y in 0..<size.height {
                let row = UnsafeMutableRawPointer(data + y * image.stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<size.width { row[x] = UInt32(truncatingIfNeeded: rng.next()) }
            }
            cairo_surface_mark_dirty(image.surface)
            return PageSnapshot(of: image, backdrop: PaperIDs.next())
        }
        for page in 0..<8 { pipeline.setPaper(try paper(), forPage: page) }
        pipeline.turn(to: 4)
        pipeline.keepPapers(within: 2)
        #expect(Set(pipeline.papers.keys) == [2, 3, 4, 5, 6])
        let one = try #require(pipeline.papers[4]).bytes
        pipeline.keepPapers(within: 2, budget: one * 3)
        #expect(pipeline.papers.count == 3 && pipeline.papers[4] != nil && pipeline.papers[3] != nil && pipeline.papers[5] != nil)
        pipeline.keepPapers(within: 2, budget: 0)
        #expect(Set(pipeline.papers.keys) == [4], "the page shown keeps its paper")
        #expect(pipeline.paperBytes == one)
    }
}
