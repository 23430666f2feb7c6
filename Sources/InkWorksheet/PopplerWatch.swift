// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkStorage
import InkPDFHelper

/// A PDF that crashes or stalls the PDF reader is not handed to it for ever: poppler runs in
/// a helper process (`PDFHelper`), so a crash costs the helper, not the kiosk, but the
/// journal opens the notebook's worksheet again at every start and a class would watch it
/// fail again and again. Each crash or stall is a strike against what the helper was doing
/// (opening the file, or drawing page n), kept in `.poppler-strikes` beside the worksheets; a
/// file with `strikesToRefuse` strikes against one of them is not given to the helper again
/// (a new copy of the file starts afresh). The same work done again without failing forgives it.
/// `strikes` (and the strikes file) are used only under `lock`; `directory` is set in init.
public final class PopplerWatch: @unchecked Sendable {
    public static let strikesToRefuse = 2
    /// Files with strikes, remembered at most (the oldest forgotten first).
    static let remembered = 100
    /// Where the strikes live (the tablet's own worksheet folder).
    public let directory: String
    private let lock = Lock()
    /// Strikes per file (path, inode and size: a file replaced starts afresh) and part, in the
    /// order they were first counted; nil until first needed.
    private var strikes: [(file: String, count: Int)]?

    public init(directory: String) { self.directory = directory }

    private var strikesFile: String { "\(directory)/.poppler-strikes" }

    /// Runs `read` (the helper opening `path`, `page` 0, or drawing page `page`). Throws without
    /// running it when the file has failed too often; a crash or a stall of the helper is a strike.
    public func around<T>(_ path: String, page: Int, _ read: () throws -> T) throws -> T {
        let identity = Self.identity(path)
        let part = "\(identity) #\(page)"
        try lock.withLock {
            loadIfNeeded()
            let count = mostStrikes(identity)
            if count >= Self.strikesToRefuse {
                throw WorksheetError(kind: .crashedBefore, path: path,
                                     detail: "the PDF reader failed \(count) times on this PDF; it is not opened "
                                             + "again (a new copy of the file can be tried)")
            }
        }
        do {
            let result = try read()
            lock.withLock { forgive(part) }
            return result
        } catch let failure as PDFHelper.Failure {
            switch failure {
            // Out of CPU time over its life (many pages): the helper's age, not this file's fault.
            case .crashed(let signal, _) where signal == SIGXCPU: break
            case .crashed, .stuck: lock.withLock { strike(part) }
            case .unavailable, .refused: break
            }
            throw failure
        }
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

    private func loadIfNeeded() {
        guard strikes == nil else { return }
        let text = try? String(contentsOfFile: strikesFile, encoding: .utf8)
        strikes = Array((text.map(Self.parseStrikes) ?? []).suffix(Self.remembered))
        // Notes of kiosks that ran poppler in their own process: gone with it (no strike any more).
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []) where name.hasPrefix(".in-poppler-") {
            unlink("\(directory)/\(name)")
        }
    }

    private func strike(_ part: String) {
        if let i = strikes?.firstIndex(where: { $0.file == part }) { strikes?[i].count += 1 } else { strikes?.append((part, 1)) }
        strikes = strikes.map { Array($0.suffix(Self.remembered)) }
        save()
    }

    private func forgive(_ part: String) {
        guard let i = strikes?.firstIndex(where: { $0.file == part }) else { return }
        strikes?.remove(at: i)
        save()
    }

    private func save() {
        _ = try? DurableFile.prepareDirectory(directory)
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
            guard input.count >= 2, let high = hexDigitValue(input.removeFirst()), let low = hexDigitValue(input.removeFirst()) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A file as the watch knows it: where it is, which file it is there (its inode) and its
    /// size. Not its time: opening a copy from the stick touches it (`WorksheetCopies`).
    static func identity(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return path }
        return "\(path) \(info.st_ino) \(info.st_size)"
    }
}
