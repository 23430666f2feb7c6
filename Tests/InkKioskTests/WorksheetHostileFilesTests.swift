// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
import InkCore
import InkStorage
@testable import InkWorksheet
@testable import InkKiosk
import InkTestSupport
import InkWorksheetTestSupport

/// A teacher's USB stick is not to be trusted: links, FIFOs, devices and names with control
/// characters on it are listed with their reason and never opened or copied. Real files here.
@Suite struct WorksheetHostileFiles {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("worksheet-hostile-\(UUID().uuidString.prefix(8))") }

    func refusal(_ make: () throws -> Any) -> WorksheetError? {
        do { _ = try make(); return nil } catch let e as WorksheetError { return e } catch { return nil }
    }

    @Test func aLinkIsNeverFollowedNotByPopplerNorByTheSHA256NorByACopy() throws {
        // Another pupil's saved notebook, and a link to it on the stick.
        let saved = "\(dir)/saved", stick = "\(dir)/stick"
        for d in [saved, stick] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        try Worksheets.make("\(saved)/Anna-20250101-101010.pdf", pages: 1, title: "Anna's notebook")
        try FileManager.default.createSymbolicLink(atPath: "\(stick)/fun.pdf", withDestinationPath: "\(saved)/Anna-20250101-101010.pdf")
        let link = "\(stick)/fun.pdf"
        let opened = refusal { try Worksheet(path: link) }
        #expect(opened?.kind == .link && opened?.detail == "a link, not a file: refused", "\(String(describing: opened))")
        #expect(opened?.description == "\(link): a link, not a file: refused")
        #expect(refusal { try Worksheet.sha256(of: link, maxBytes: 1 << 30) }?.kind == .link)
        #expect(refusal { try WorksheetFile.open(link) }?.kind == .link)
        // A link to a folder's PDF by a relative name, and a dangling one: refused the same.
        try FileManager.default.createSymbolicLink(atPath: "\(stick)/rel.pdf", withDestinationPath: "../saved/Anna-20250101-101010.pdf")
        try FileManager.default.createSymbolicLink(atPath: "\(stick)/gone.pdf", withDestinationPath: "\(saved)/nothing.pdf")
        #expect(refusal { try Worksheet(path: "\(stick)/rel.pdf") }?.kind == .link)
        #expect(refusal { try Worksheet(path: "\(stick)/gone.pdf") }?.kind == .link)
        // Not copied to the tablet either, whatever SHA-256 is claimed.
        let copies = WorksheetCopies(folder: "\(dir)/copies", maxBytes: 1 << 30)
        let sha = try Worksheet.sha256(of: "\(saved)/Anna-20250101-101010.pdf", maxBytes: 1 << 30)
        #expect(refusal { try copies.keep(link, sha256: sha) }?.kind == .link)
        #expect(copies.files().isEmpty)
        // The shelf lists it, refused with its reason, and does not open it.
        let shelf = WorksheetShelf(folders: ["\(dir)/tablet", stick])
        #expect(shelf.pdfFiles().contains(link))
        let entry = shelf.entry(link, thumbnailHeight: 40)
        #expect(entry.problem?.kind == .link && entry.thumbnail == nil && entry.pages == 0 && entry.name == "fun")
        #expect(refusal { try shelf.open(link) }?.kind == .link)
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/tablet/copies/fun.pdf"))
    }

    @Test func fifosDevicesAndFoldersAreRefusedWithoutWaitingForThem() throws {
        let fifo = "\(dir)/pipe.pdf"
        #expect(mkfifo(fifo, 0o600) == 0, "mkfifo: \(Errno.describe(errno))")
        // No writer ever comes: a plain open for reading would wait for ever.
        let piped = refusal { try Worksheet(path: fifo) }
        #expect(piped?.kind == .notAFile && piped?.detail == "a pipe (FIFO), not a file: refused", "\(String(describing: piped))")
        #expect(refusal { try Worksheet.sha256(of: fifo, maxBytes: 1 << 30) }?.kind == .notAFile)
        let device = refusal { try Worksheet(path: "/dev/null") }
        #expect(device?.kind == .notAFile && device?.detail == "a device, not a file: refused")
        try FileManager.default.createDirectory(atPath: "\(dir)/folder.pdf", withIntermediateDirectories: true)
        #expect(refusal { try Worksheet(path: "\(dir)/folder.pdf") }?.detail == "a folder, not a file: refused")
        // What cannot be read at all keeps its cause: the path and errno.
        let missing = refusal { try Worksheet(path: "\(dir)/missing.pdf") }
        #expect(missing?.kind == .unreadable && missing?.description.hasPrefix("\(dir)/missing.pdf: cannot read it: ") == true
                && missing?.detail.hasSuffix("No such file or directory (ENOENT)") == true, "\(String(describing: missing))")
        #expect(missing?.cause?.errno == ENOENT && missing?.cause?.operation == "lstat")
        // The kind alone, as lstat reports it.
        #expect(WorksheetFile.kindProblem(S_IFSOCK)?.detail == "a socket, not a file: refused")
        #expect(WorksheetFile.kindProblem(S_IFBLK)?.kind == .notAFile && WorksheetFile.kindProblem(S_IFREG) == nil)
    }

    @Test func namesWithControlCharactersAreRefusedAndNeverPrintedRaw() throws {
        // Real PDFs under each name: refused for the name alone.
        for (name, shown) in [("a\nb", "a\\nb"), ("tab\there", "tab\\there"), ("del\u{7F}", "del\\u{7F}"),
                              ("next\u{85}line", "next\\u{85}line"), ("esc\u{1B}[2J", "esc\\u{1B}[2J")] {
            let path = "\(dir)/\(name).pdf"
            try Worksheets.make(path, pages: 1, title: "Fine title")
            let e = refusal { try Worksheet(path: path) }
            #expect(e?.kind == .badName, "\(shown)")
            #expect(e?.detail == "its name has control characters in it (\(shown).pdf): refused", "\(String(describing: e?.detail))")
            #expect(e.map { !$0.description.unicodeScalars.contains(where: WorksheetFile.isControl) } == true)
            #expect(refusal { try Worksheet.sha256(of: path, maxBytes: 1 << 30) }?.kind == .badName)
            #expect(refusal { try WorksheetCopies(folder: "\(dir)/copies", maxBytes: 1 << 30).keep(path, sha256: "0") }?.kind == .badName)
            #expect(WorksheetShelf.Entry.unchecked(path).name == shown)
        }
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/copies"), "nothing copied")
        // Letters of any script are no control characters.
        try Worksheets.make("\(dir)/Brüche ½ 分数.pdf", pages: 1, title: nil)
        #expect(try Worksheet(path: "\(dir)/Brüche ½ 分数.pdf").name == "Brüche ½ 分数")
        // A title with control characters is shown (and logged) with spaces for them.
        try Worksheets.make("\(dir)/titled.pdf", pages: 1, title: "Line\none\ttwo")
        #expect(try Worksheet(path: "\(dir)/titled.pdf").name == "Line one two")
    }

    @Test func aFileSwappedBetweenTheLookAndTheOpeningIsRefused() throws {
        let path = "\(dir)/swapped.pdf", other = "\(dir)/other.pdf"
        try Worksheets.make(path, pages: 1)
        try Worksheets.make(other, pages: 2)
        try Worksheets.make("\(dir)/secret.pdf", pages: 1)
        // Another file renamed over it: not the file looked at.
        let replaced = refusal { try WorksheetFile.open(path) { rename(other, path) } }
        #expect(replaced?.kind == .unreadable && replaced?.detail == "the file was replaced while it was opened: refused")
        // A link put in its place: not followed.
        let linked = refusal {
            try WorksheetFile.open(path) { unlink(path); symlink("\(dir)/secret.pdf", path) }
        }
        #expect(linked?.kind == .link)
        // A FIFO put in its place: the opening does not wait for a writer, and refuses it.
        let piped = refusal {
            try WorksheetFile.open("\(dir)/secret.pdf") { unlink("\(dir)/secret.pdf"); mkfifo("\(dir)/secret.pdf", 0o600) }
        }
        #expect(piped?.kind == .notAFile)
        // Untouched: the descriptor is the file, read-only and closed on exec.
        unlink(path)   // the link to the FIFO: cairo would wait on it for ever
        try Worksheets.make(path, pages: 1)
        let (fd, info) = try WorksheetFile.open(path)
        defer { close(fd) }
        #expect(info.st_mode & S_IFMT == S_IFREG && fcntl(fd, F_GETFD) & FD_CLOEXEC != 0 && fcntl(fd, F_GETFL) & O_NONBLOCK == 0)
    }

    @Test func aNameThatIsNotUTF8IsRefusedAsSuch() throws {
        // "bad\xFF.pdf": created by its bytes; the folder's listing gives it with U+FFFD.
        let bytes = Array("\(dir)/bad".utf8) + [0xFF] + Array(".pdf".utf8) + [0]
        let fd = bytes.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { creat($0, 0o644) }
        }
        try #require(fd >= 0, "creat: errno \(errno)")
        close(fd)
        let shelf = WorksheetShelf(folders: [dir])
        let listed = try #require(shelf.pdfFiles().first { $0.contains("bad") })
        let entry = shelf.entry(listed, thumbnailHeight: 40)
        #expect(entry.problem?.kind == .badName && entry.problem?.detail == "its name is not UTF-8 text: refused", "\(String(describing: entry.problem))")
    }

    @Test func theListShowsLinksPipesAndBadNamesInRedAndTappingOneOpensNothing() throws {
        let screens = WorksheetScreenTests(dir: dir)
        let (s, stick) = try screens.settingsWithAStick()
        try Worksheets.make("\(dir)/notebook.pdf", pages: 1, title: "Someone's notebook")
        try FileManager.default.createSymbolicLink(atPath: "\(stick)/fun.pdf", withDestinationPath: "\(dir)/notebook.pdf")
        #expect(mkfifo("\(stick)/pipe.pdf", 0o600) == 0)
        try Worksheets.make("\(stick)/a\nb.pdf", pages: 1, title: "Crash")
        let booth = try Booth(s)
        try booth.tap(.openWorksheets)
        try booth.png("worksheets-hostile")
        let entries = try #require(try screens.classroom(booth).shelf?.entries)
        #expect(entries.map(\.name) == ["a\\nb", "fun", "Maps", "pipe"])
        #expect(entries.map { $0.problem?.kind } == [.badName, .link, nil, .notAFile])
        #expect(entries[1].problem?.detail == "a link, not a file: refused")
        #expect(booth.logged.contains { $0.contains("worksheet refused: \(stick)/fun.pdf: a link, not a file: refused") }, "\(booth.logged)")
        #expect(booth.logged.contains { $0.contains("\(stick)/a\\nb.pdf: its name has control characters") }, "\(booth.logged)")
        #expect(booth.logged.allSatisfy { !$0.contains("\n") }, "no name starts a log line of its own")
        // Tapped: the reason on screen in red, nothing opened or copied.
        try booth.tap(.chooseWorksheet(1))
        try booth.png("worksheets-hostile-link-tapped")
        #expect(booth.pipeline.notebook.worksheet == nil)
        let banner = booth.shown.image.pixel(x: 290, y: 742)   // the red banner at the bottom (as wide as its words)
        #expect(banner.r > 150 && banner.g < 60, "the warning banner \(banner)")
        try booth.tap(.chooseWorksheet(0))
        #expect(booth.pipeline.notebook.worksheet == nil)
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/sheets/copies"), "nothing copied")
    }
}

/// `.poppler-strikes` keeps any file name on its line: one with a line break is struck and refused like any other.
@Suite struct WorksheetStrikesFile {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("worksheet-strikes-\(UUID().uuidString.prefix(8))") }

    @Test func anyNameRoundTrips() {
        for name in ["/s/maps.pdf 12 34 #2", "/s/a\nb.pdf 1 2 #0", "100%.pdf", "%41%", "tab\there\r\n", "Brüche 分数 𠀀",
                     "\u{7F}\u{85}\u{0}", " leading space", ""] {
            let encoded = PopplerWatch.percentEncoded(name)
            #expect(encoded.utf8.allSatisfy { (0x20...0x7E).contains($0) }, "\(encoded)")
            #expect(PopplerWatch.percentDecoded(Substring(encoded)) == name)
        }
        #expect(PopplerWatch.percentEncoded("a\nb%") == "a%0Ab%25")
        #expect(PopplerWatch.percentDecoded("bad%4") == nil && PopplerWatch.percentDecoded("bad%zz") == nil)
        #expect(PopplerWatch.percentDecoded("%FF") == nil, "not UTF-8")
        let text = PopplerWatch.strikesText([("/s/a\nb.pdf 1 2 #3", 2), ("/s/c.pdf 3 4 #0", 1)])
        #expect(text.split(separator: "\n").count == 3)
        #expect(PopplerWatch.parseStrikes(text).map { "\($0.count) \($0.file)" } == ["2 /s/a\nb.pdf 1 2 #3", "1 /s/c.pdf 3 4 #0"])
    }

    @Test func aStrikesFileFromBeforeIsReadAsItWas() throws {
        // Names written as they are, '%' too; no header.
        let old = "2 /s/maps.pdf 12 34 #2\n1 /s/50%41 off.pdf 5 6 #0\nnonsense\n"
        #expect(PopplerWatch.parseStrikes(old).map { "\($0.count) \($0.file)" } == ["2 /s/maps.pdf 12 34 #2", "1 /s/50%41 off.pdf 5 6 #0"])
        // A kiosk finding one refuses what it refused, and writes the new format from then on.
        let folder = "\(dir)/sheets", path = "\(folder)/50%41 maps.pdf"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Worksheets.make(path, pages: 2, title: "Maps")
        try Worksheets.write("\(folder)/.poppler-strikes", Array("2 \(PopplerWatch.identity(path)) #1\n".utf8))
        let watch = PopplerWatch(directory: folder)
        #expect(watch.strikes(for: path) == 2)
        #expect(refusalKind { try Worksheet(path: path, watch: watch) } == .crashedBefore)
        HelperFault.strike(watch, "\(folder)/other.pdf", page: 0)
        #expect(PopplerWatch(directory: folder).strikes(for: path) == 2, "read, a strike added, written again")
        let written = try String(contentsOfFile: "\(folder)/.poppler-strikes", encoding: .utf8)
        #expect(written.hasPrefix(PopplerWatch.strikesHeader + "\n") && written.contains("50%2541 maps.pdf"), "\(written)")
    }

    @Test func aFileWithALineBreakInItsNameThatCrashesPopplerIsRefusedAfterTwoStrikes() throws {
        let folder = "\(dir)/sheets", path = "\(folder)/crash\nme.pdf"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Worksheets.make(path, pages: 2, title: "Crash")
        HelperFault.strike(PopplerWatch(directory: folder), path, page: 1)
        #expect(PopplerWatch(directory: folder).strikes(for: path) == 1)
        HelperFault.strike(PopplerWatch(directory: folder), path, page: 1)
        let watch = PopplerWatch(directory: folder)
        #expect(watch.strikes(for: path) == 2, "the strikes add up across restarts")
        let text = try String(contentsOfFile: "\(folder)/.poppler-strikes", encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2 && text.contains("crash%0Ame.pdf"), "\(text)")
        // Refused before poppler sees it again, whatever is asked of it.
        var ran = false
        #expect(refusalKind { try watch.around(path, page: 1) { ran = true } } == .crashedBefore)
        #expect(!ran)
    }

    func refusalKind(_ make: () throws -> Any) -> WorksheetError.Kind? {
        do { _ = try make(); return nil } catch let e as WorksheetError { return e.kind } catch { return nil }
    }
}

/// Save's file names from a worksheet's title: at most 100 bytes, cut between whole characters.
@Suite struct WorksheetSaveNames {
    let date = "20250314-101500"

    /// Every file a save of `pages` pages writes.
    func names(_ title: String?, pages: Int) -> [String] {
        let base = SaveName.base(title: title, date: date, pages: pages)
        return (1...pages).map { "\(base)-page\($0).png" } + ["\(base).pdf"]
    }

    @Test func anASCIITitleIsKeptWhenItFitsAndCutWhenNot() {
        #expect(SaveName.base(title: "Fractions", date: date, pages: 3) == "Fractions-\(date)")
        #expect(SaveName.base(title: nil, date: date, pages: 3) == "notebook-\(date)")
        #expect(SaveName.base(title: "Maps: week 2/3", date: date, pages: 1) == "Maps-week-2-3-\(date)")
        let long = String(repeating: "abcdefghij", count: 20)
        for pages in [1, 9, 10, 1000] {
            let all = names(long, pages: pages)
            #expect(all.allSatisfy { $0.utf8.count <= SaveName.maxBytes }, "\(all.map(\.utf8.count))")
            #expect(all.map(\.utf8.count).max() == SaveName.maxBytes, "as much of the title as fits")
            #expect(all.last?.hasSuffix("-\(date).pdf") == true && all.first?.hasSuffix("-\(date)-page1.png") == true)
        }
    }

    @Test func exactlyAtTheLimitIsKeptAndOneMoreIsCut() {
        // 1 page: "-page1.png" (10 bytes) is the longest end; the title may have 100 - 1 - 15 - 10 = 74 bytes.
        let room = SaveName.maxBytes - 1 - date.utf8.count - "-page1.png".utf8.count
        let fits = String(repeating: "a", count: room)
        #expect(SaveName.base(title: fits, date: date, pages: 1) == "\(fits)-\(date)")
        #expect(names(fits, pages: 1).first?.utf8.count == SaveName.maxBytes)
        #expect(SaveName.base(title: fits + "b", date: date, pages: 1) == "\(fits)-\(date)")
        // A cut that ends on a separator drops it.
        #expect(SaveName.stem(String(repeating: "a", count: 9) + " b", maxBytes: 10) == String(repeating: "a", count: 9))
    }

    @Test func fourByteLettersAreCutBetweenLettersNeverInside() {
        // Sixty CJK letters of 4 bytes each: 240 bytes, with the date over the 255 a file system allows.
        let title = String(repeating: "\u{20000}", count: 60)
        let all = names(title, pages: 12)
        #expect(all.allSatisfy { $0.utf8.count <= SaveName.maxBytes })
        let stem = SaveName.stem(title, maxBytes: SaveName.maxBytes - 1 - date.utf8.count - "-page12.png".utf8.count)
        #expect(stem.unicodeScalars.allSatisfy { $0 == "\u{20000}" } && stem.utf8.count == 72, "\(stem.utf8.count)")
        #expect(all.last == "\(stem)-\(date).pdf")
        // Gothic letters (U+10330…), the same.
        let gothic = SaveName.stem(String(repeating: "\u{10330}", count: 30), maxBytes: 10)
        #expect(gothic == "\u{10330}\u{10330}")
    }

    @Test func aLetterKeepsItsAccentsAndAGiantClusterIsNotHalved() {
        // "é" as e and a combining acute (3 bytes together), 50 of them: cut between whole pairs.
        let title = String(repeating: "e\u{301}", count: 50)
        let stem = SaveName.stem(title, maxBytes: 10)
        #expect(stem == String(repeating: "e\u{301}", count: 3), "\(Array(stem.unicodeScalars))")
        #expect(SaveName.stem("cafe\u{301} au lait") == "cafe\u{301}-au-lait", "accents are kept")
        // A mark with no letter before it is not kept on its own.
        #expect(SaveName.stem("\u{301}x") == "x")
        // One letter with 200 marks: more than the room, so nothing of it (and the name is the fallback).
        #expect(SaveName.stem("a" + String(repeating: "\u{300}", count: 200), maxBytes: 70) == "worksheet")
        // Control characters and '/' never reach a name.
        let hostile = SaveName.stem("../../etc\n\t\u{7F}\u{85}passwd")
        #expect(hostile == "etc-passwd")
        #expect(SaveName.stem("\n\n") == "worksheet")
    }

    @Test func aWorksheetWithALongTitleIsSaved() throws {
        let dir = try Fixtures.outputDirectory("worksheet-longtitle-\(UUID().uuidString.prefix(8))")
        let screens = WorksheetScreenTests(dir: dir)
        let s = try screens.settings()
        try Worksheets.make("\(dir)/sheets/long.pdf", pages: 2, title: String(repeating: "\u{20000}", count: 60))
        let booth = try Booth(s)
        try screens.open(String(repeating: "\u{20000}", count: 60), in: booth)
        try screens.writeInTheBox(booth)
        try booth.tap(.save)
        let saved = try screens.classroom(booth).lastSaved
        #expect(saved.count == 3, "\(booth.logged)")
        for path in saved {
            let name = String(path.split(separator: "/").last ?? "")
            #expect(name.utf8.count <= SaveName.maxBytes && name.hasPrefix("\u{20000}") && FileManager.default.fileExists(atPath: path), "\(name)")
        }
    }
}
