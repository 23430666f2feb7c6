// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
import InkTestSupport
@testable import InkStorage

/// Journals put aside as unreadable are kept like the outbox's captures: a few, for a while.
@Suite struct DamagedJournalCopies {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    private func directory(_ name: String) throws -> String {
        let dir = try Fixtures.outputDirectory("damaged-\(name)-\(UUID().uuidString.prefix(8))")
        return dir
    }

    private func make(_ path: String, modified: Date? = nil) {
        _ = FileManager.default.createFile(atPath: path, contents: Data("not a journal".utf8))
        if let modified {
            var times = [timespec(tv_sec: Int(modified.timeIntervalSince1970), tv_nsec: 0),
                         timespec(tv_sec: Int(modified.timeIntervalSince1970), tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, path, &times, 0)
        }
    }

    @Test func theOldestBeyondTheCountAndTheTooOldAreRemoved() throws {
        let dir = try directory("prune")
        let journal = "\(dir)/journal.inkj"
        let day = 86_400.0
        // Put aside 1, 2, 3 and 40 days ago (the time in the name), and an older version's single copy.
        for days in [1.0, 2, 3, 40] { make(journal + ".damaged." + utcTimestamp(now - days * day)) }
        make(journal + ".damaged", modified: now - 10 * day)
        // Not copies of this journal: left alone.
        make("\(dir)/other.inkj.damaged.\(utcTimestamp(now - 90 * day))")
        make("\(dir)/journal.inkj.compact")
        let removed = try DamagedJournals(limits: Retention(keep: 2, maxAgeDays: 30)).prune(journal, now: now)
        #expect(removed == ["journal.inkj.damaged." + utcTimestamp(now - 40 * day), "journal.inkj.damaged",
                            "journal.inkj.damaged." + utcTimestamp(now - 3 * day)], "oldest first")
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        #expect(left == ["journal.inkj.damaged." + utcTimestamp(now - day), "journal.inkj.damaged." + utcTimestamp(now - 2 * day),
                         "other.inkj.damaged." + utcTimestamp(now - 90 * day), "journal.inkj.compact"])
        // 0 and 0: no limit.
        #expect(try DamagedJournals.unlimited.prune(journal, now: now + 1000 * day).isEmpty)
    }

    /// Each bad start keeps its own copy (two in one second too); opening the journal removes
    /// those beyond the limits and says so.
    @Test func everyStartPutsItsCopyAsideAndKeepsTheNewest() throws {
        let dir = try directory("open")
        let journal = "\(dir)/journal.inkj"
        let limits = DamagedJournals(limits: Retention(keep: 2, maxAgeDays: 30))
        var names: [String] = []
        for i in 0..<3 {
            try "garbage \(i)".write(toFile: journal, atomically: true, encoding: .utf8)
            let j = try StrokeJournal(path: journal, damaged: limits)
            let name = try #require(j.warning?.components(separatedBy: "moved aside to \(dir)/").last)
            names.append(name)
            if i == 2 { #expect(j.notes == [.info("removed 1 old damaged journals: \(names[0])")], "\(j.notes)") } else { #expect(j.notes.isEmpty) }
        }
        #expect(Set(names).count == 3, "three copies, three names: \(names)")
        #expect(Set(try DamagedJournals.copies(of: journal).keys) == Set(names.suffix(2)))
        #expect(try String(contentsOfFile: "\(dir)/\(names[2])", encoding: .utf8) == "garbage 2")
        // A healthy start with an old copy lying about: the age limit holds too.
        let aged = journal + ".damaged." + utcTimestamp(Date() - 31 * 86_400)
        make(aged)
        let j = try StrokeJournal(path: journal, damaged: limits)
        #expect(j.warning == nil && j.notes == [.info("removed 1 old damaged journals: \(URL(fileURLWithPath: aged).lastPathComponent)")])
    }

    @Test func timesInNamesAreReadBack() {
        #expect(DamagedJournals.date(utcTimestamp(now)) == now)
        for bad in ["20261323T060412Z", "2026112T060412Z", "20261123T060412", "20261123X060412Z", "2026112aT060412Z", ""] {
            #expect(DamagedJournals.date(bad) == nil, "\(bad)")
        }
    }
}
