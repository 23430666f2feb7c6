import FoundationEssentials
import Glibc
import InkCore
import InkStorage

/// A PDF that crashes poppler must not take the tablet down for good: the journal opens the
/// notebook's worksheet again at every start, so such a file would crash the kiosk at every
/// restart. Before poppler reads a file, the file is named in a note beside the worksheets
/// (`.in-poppler-THREAD`, one per thread); a return from poppler removes the note. A note still
/// there when the kiosk next runs means it died inside poppler with that file: a strike against
/// what poppler was doing (opening it, or drawing page n). A file with `strikesToRefuse` strikes
/// against one of them is not given to poppler again. A kill or a power cut that happens to
/// fall inside poppler is one strike, and the same work done again without dying forgives it.
public final class PopplerWatch: @unchecked Sendable {
    public static let strikesToRefuse = 2
    /// Files with strikes, remembered at most (the oldest forgotten first).
    static let remembered = 100
    /// Where the notes and the strikes live (the tablet's own worksheet folder).
    public let directory: String
    private let lock = Lock()
    /// Strikes per file (path, inode and size: a file replaced starts afresh), in
    /// the order they were first counted; nil until first needed (read on poppler's threads).
    private var strikes: [(file: String, count: Int)]?
    private var usable = true
    /// What poppler is doing now, per thread (its note): which file, which page, since when.
    private var busy: [String: (path: String, page: Int, since: Double)] = [:]

    public init(directory: String) { self.directory = directory }

    private var strikesFile: String { "\(directory)/.poppler-strikes" }

    /// Runs `read` (poppler opening `path`, `page` 0, or drawing page `page`) with the note in
    /// place. Throws without running it when the file has stopped the kiosk too often.
    public func around<T>(_ path: String, page: Int, _ read: () throws -> T) throws -> T {
        let identity = Self.identity(path)
        let (note, file) = self.note(identity: identity, page: page)
        let noted: Bool = try lock.withLock {
            loadIfNeeded()
            let count = mostStrikes(identity)
            if count >= Self.strikesToRefuse {
                throw WorksheetError(kind: .crashedBefore, path: path,
                                     detail: "the tablet stopped \(count) times while reading this PDF; it is not opened "
                                             + "again (a new copy of the file can be tried)")
            }
            busy[note] = (path, page, monotonicNow())
            return usable && Self.write(note, file)
        }
        defer {   // poppler returned (with a page or an error): no crash
            if noted { unlink(note) }
            lock.withLock { busy[note] = nil; forgive(file) }
        }
        return try read()
    }

    /// When the oldest poppler call under way began (monotonic seconds), if one is.
    public var busySince: Double? { lock.withLock { busy.values.map(\.since).min() } }

    /// A poppler call that has run for more than `seconds` (a PDF that makes it loop): which
    /// file, which page (0: opening it), and for how long. It cannot be stopped; a restart
    /// ends it, and its note makes that a strike.
    public func stuck(after seconds: Double) -> (path: String, page: Int, seconds: Double)? {
        let now = monotonicNow()
        return lock.withLock {
            busy.values.filter { now - $0.since >= seconds }.min { $0.since < $1.since }.map { ($0.path, $0.page, now - $0.since) }
        }
    }

    /// This thread's note while poppler reads page `page` of `path` (0: opens it): where, and what it says.
    func note(_ path: String, page: Int) -> (path: String, text: String) { note(identity: Self.identity(path), page: page) }

    private func note(identity: String, page: Int) -> (path: String, text: String) {
        ("\(directory)/.in-poppler-\(pthread_self())", "\(identity) #\(page)")
    }

    /// No sync: the note is for a crash of this process, which the kernel's page cache outlives.
    private static func write(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return (try? DurableFile.writeAll(fd, Array(text.utf8), path)) != nil
    }

    /// The most strikes counted against one part of `path` (for tests and the log).
    public func strikes(for path: String) -> Int {
        lock.withLock {
            loadIfNeeded()
            return mostStrikes(Self.identity(path))
        }
    }

    /// The most strikes against one part (the opening, a page) of the file known as `identity`.
    private func mostStrikes(_ identity: String) -> Int {
        strikes?.filter { $0.file.hasPrefix(identity + " #") }.map(\.count).max() ?? 0
    }

    /// The strikes file, plus a strike for every note a dead kiosk left behind.
    private func loadIfNeeded() {
        guard strikes == nil else { return }
        var known: [(file: String, count: Int)] = []
        if let text = try? String(contentsOfFile: strikesFile, encoding: .utf8) { known = Self.parseStrikes(text) }
        let notes = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(".in-poppler-") }
        for name in notes {
            let path = "\(directory)/\(name)"
            if let file = try? String(contentsOfFile: path, encoding: .utf8), !file.isEmpty {
                if let i = known.firstIndex(where: { $0.file == file }) { known[i].count += 1 } else { known.append((file, 1)) }
            }
            unlink(path)
        }
        strikes = Array(known.suffix(Self.remembered))
        if !notes.isEmpty { save() }
        usable = (try? DurableFile.prepareDirectory(directory)) != nil
    }

    private func forgive(_ file: String) {
        guard let i = strikes?.firstIndex(where: { $0.file == file }) else { return }
        strikes?.remove(at: i)
        save()
    }

    private func save() {
        try? DurableFile.replace(strikesFile, with: Array(Self.strikesText(strikes ?? []).utf8), mode: 0o600)
    }

    /// The strikes file's first line since file names are escaped. A kiosk from before skips it
    /// (it is no "COUNT FILE" line); without it, the lines are read as they were written before.
    static let strikesHeader = "# inkkiosk poppler strikes 2: COUNT FILE, FILE percent-encoded"

    /// The strikes file: the header, then a line "COUNT FILE" per file, FILE percent-encoded
    /// (every byte outside printable ASCII, and `%`), so that any file name, a line break in it
    /// too, stays on its line and comes back as it was.
    static func strikesText(_ strikes: [(file: String, count: Int)]) -> String {
        ([strikesHeader] + strikes.map { "\($0.count) \(percentEncoded($0.file))" }).map { $0 + "\n" }.joined()
    }

    /// The strikes in a strikes file, of this format or the one before (names written as they are).
    static func parseStrikes(_ text: String) -> [(file: String, count: Int)] {
        let lines = text.split(separator: "\n")
        let escaped = lines.first == Substring(strikesHeader)
        var known: [(file: String, count: Int)] = []
        for line in lines.dropFirst(escaped ? 1 : 0) {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let n = Int(parts[0]), n > 0 else { continue }
            guard let file = escaped ? percentDecoded(parts[1]) : String(parts[1]) else { continue }
            known.append((file, n))
        }
        return known
    }

    /// `text`'s UTF-8 bytes, those outside printable ASCII (0x20…0x7E) and `%` written as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if (0x20...0x7E).contains(byte) && byte != UInt8(ascii: "%") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(cFormat: "%02X", Int32(byte))
            }
        }
        return out
    }

    /// What `percentEncoded` wrote; nil: not its output (a bad escape, or bytes that are not UTF-8).
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var input = text.utf8[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard input.count >= 2, let high = hexValue(input.removeFirst()), let low = hexValue(input.removeFirst()) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// A file as the watch knows it: where it is, which file it is there (its inode) and its
    /// size. Not its time: opening a copy from the stick touches it (`WorksheetCopies`).
    static func identity(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return path }
        return "\(path) \(info.st_ino) \(info.st_size)"
    }
}
