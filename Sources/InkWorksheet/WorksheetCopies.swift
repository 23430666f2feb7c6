// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkStorage

/// Worksheets opened from a USB stick, kept on the tablet: a teacher takes the stick to the
/// next tablet, and this one's pages, a restart after a crash and Save still have the PDF.
/// The folder holds at most `maxBytes` of copies; the ones opened longest ago go first.
public struct WorksheetCopies: Sendable {
    public let folder: String
    public let maxBytes: Int

    public init(folder: String, maxBytes: Int) { self.folder = folder; self.maxBytes = maxBytes }

    /// The tablet's copy of `source`, whose content has the SHA-256 `sha256`: one already kept,
    /// else a new one written beside the others (synced, then renamed into place). Throws when it
    /// cannot be written (full, read-only) or when the file read differs from `sha256`.
    public func keep(_ source: String, sha256: String) throws -> String {
        _ = try WorksheetFile.check(source)   // a link, a FIFO, a name with control characters: not copied (the copy reads it checked again)
        try DurableFile.prepareDirectory(folder)
        let name = Worksheet.fileName(source)
        let plain = "\(folder)/\(name).pdf"
        for candidate in [plain, "\(folder)/\(name)-\(sha256.prefix(8)).pdf"] {
            if WorksheetShelf.size(of: candidate) < 0 {   // nothing there, not even a link
                try copy(source, to: candidate, sha256: sha256)
                prune(keeping: candidate)
                return candidate
            }
            if WorksheetShelf.size(of: candidate) == WorksheetShelf.size(of: source),
               (try? Worksheet.sha256(of: candidate, maxBytes: Int.max)) == sha256 {
                utimensat(AT_FDCWD, candidate, nil, 0)   // opened now: the last to go
                return candidate
            }
        }
        // Two other worksheets already have both names: the file is written under its digest.
        let last = "\(folder)/\(sha256).pdf"
        if (try? Worksheet.sha256(of: last, maxBytes: Int.max)) != sha256 { try copy(source, to: last, sha256: sha256) }
        prune(keeping: last)
        return last
    }

    /// The copies, oldest first (by when they were last opened), with their sizes.
    public func files() -> [(path: String, bytes: Int)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var found: [(path: String, bytes: Int, time: Int)] = []
        for name in names where name.lowercased().hasSuffix(".pdf") && !name.hasPrefix(".") {
            var info = stat()
            let path = "\(folder)/\(name)"
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            found.append((path, Int(info.st_size), info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec))
        }
        return found.sorted { ($0.time, $0.path) < ($1.time, $1.path) }.map { ($0.path, $0.bytes) }
    }

    /// Removes the oldest copies until they fit `maxBytes` (never `keeping`, the one in use).
    func prune(keeping: String) {
        var copies = files()
        var total = copies.reduce(0) { $0 + $1.bytes }
        while total > maxBytes, let oldest = copies.first(where: { $0.path != keeping }) {
            unlink(oldest.path)
            total -= oldest.bytes
            copies.removeAll { $0.path == oldest.path }
        }
    }

    private func copy(_ source: String, to path: String, sha256: String) throws {
        let tmp = "\(folder)/.\(sha256.prefix(16)).tmp"
        let output = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard output >= 0 else { throw SystemCallError("create", path: tmp) }
        var closed = false
        defer { if !closed { close(output) }; unlink(tmp) }
        let read = try Worksheet.digest(of: source, maxBytes: .max) { try DurableFile.writeAll(output, $0, tmp) }
        guard read.sha256 == sha256 else { throw StorageError(description: "\(source) changed while it was copied", reason: "the file changed while it was copied") }
        guard fsync(output) == 0 else { throw SystemCallError("sync", path: tmp) }
        close(output)
        closed = true
        guard rename(tmp, path) == 0 else { throw SystemCallError("rename \(tmp) to", path: path) }
        try DurableFile.sync(folder)
    }
}
