// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore

/// Journals put aside because they could not be read at all (`JOURNAL.damaged.<UTC time>`,
/// e.g. `journal.inkj.damaged.20261123T060412Z`): kept for a person to look at, but bounded
/// like the outbox (`Retention`: at most `keep`, none older than `maxAgeDays`, 0 = no limit),
/// the oldest removed first. A copy's age is the time in its name, when it was put aside; the
/// single `JOURNAL.damaged` of older versions counts too, by its modification time.
public struct DamagedJournals: Sendable, Equatable {
    public var limits: Retention

    /// `[storage] damaged_keep`, `damaged_days`.
    public static let standard = DamagedJournals(limits: Retention(keep: 4, maxAgeDays: 30))
    /// No limit: opening a journal with it removes no copy (the kiosk prunes after its first frame).
    public static let unlimited = DamagedJournals(limits: Retention(keep: 0, maxAgeDays: 0))

    public init(limits: Retention) { self.limits = limits }

    static let infix = ".damaged"

    /// A name no copy has yet, for a journal put aside at `date`.
    static func newName(for journal: String, at date: Date) -> String {
        let base = journal + infix + "." + utcTimestamp(date)
        var name = base, n = 1
        while access(name, F_OK) == 0 {   // two in one second: the second gets "-2"
            n += 1
            name = "\(base)-\(n)"
        }
        return name
    }

    /// The copies of `journal` in its directory (file names), each with when it was put aside.
    static func copies(of journal: String) throws -> [String: Date] {
        let (directory, base) = split(journal)
        let fm = FileManager.default
        var found: [String: Date] = [:]
        for name in try fm.contentsOfDirectory(atPath: directory) {
            guard name == base + infix || name.hasPrefix(base + infix + ".") else { continue }
            let stamp = name.dropFirst(base.count + infix.count + 1).prefix(16)
            if let when = Self.date(String(stamp)) {
                found[name] = when
            } else if let attributes = try? fm.attributesOfItem(atPath: "\(directory)/\(name)"),
                      attributes[.type] as? FileAttributeType == .typeRegular, let modified = attributes[.modificationDate] as? Date {
                found[name] = modified
            }
        }
        return found
    }

    /// Removes the copies beyond the limits, oldest first; returns the names removed.
    @discardableResult
    public func prune(_ journal: String, now: Date = Date()) throws -> [String] {
        guard limits.keep > 0 || limits.maxAgeDays > 0 else { return [] }
        let directory = Self.split(journal).directory
        let expired = limits.expired(try Self.copies(of: journal), now: now)
        for name in expired where unlink("\(directory)/\(name)") != 0 && errno != ENOENT {
            throw SystemCallError("remove", path: "\(directory)/\(name)")
        }
        if !expired.isEmpty { try DurableFile.sync(directory) }
        return expired
    }

    private static func split(_ journal: String) -> (directory: String, base: String) {
        guard let slash = journal.lastIndex(of: "/") else { return (".", journal) }
        let directory = String(journal[..<slash])
        return (directory.isEmpty ? "/" : directory, String(journal[journal.index(after: slash)...]))
    }

    /// `yyyyMMddTHHmmssZ` (what `utcTimestamp` writes) as a date; nil for anything else.
    static func date(_ stamp: String) -> Date? {
        let chars = Array(stamp.utf8)
        guard chars.count == 16, chars[8] == UInt8(ascii: "T"), chars[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var n: Int32 = 0
            for c in chars[range] {
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int32(c - UInt8(ascii: "0"))
            }
            return n
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
              let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900; parts.tm_mon = month - 1; parts.tm_mday = day
        parts.tm_hour = hour; parts.tm_min = minute; parts.tm_sec = second
        return Date(timeIntervalSince1970: Double(timegm(&parts)))
    }
}
