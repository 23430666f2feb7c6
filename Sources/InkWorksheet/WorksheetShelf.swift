// SPDX-License-Identifier: Apache-2.0
import Crypto
import FoundationEssentials
import Glibc
import InkCore
import InkPDFHelper
import InkRender

/// The worksheets a class may open: the PDFs in the configured folders (the tablet's own, and
/// a USB stick's when one is mounted), each with what a list shows. Everything here reads
/// files and runs poppler: never on the kiosk's thread.
public struct WorksheetShelf: Sendable {
    public var folders: [String]
    public var limits: Worksheet.Limits
    /// The most files a list shows (a stick full of PDFs must not take minutes to list).
    public var maxListed: Int
    /// RAM for the papers of the worksheet's pages around the one shown.
    public var cacheBytes: Int
    /// poppler on one call longer than this is stuck (the screen says so).

    /// Where worksheets opened from the stick are kept (`copies` in the tablet's own folder),
    /// and how much of the tablet's disk they may take; nil: no stick is configured.
    public var copies: WorksheetCopies?
    /// Files that crashed poppler (its notes and strikes live in the tablet's own folder).
    public let watch: PopplerWatch
    /// The caged process poppler runs in (started at the first PDF, again after it died).
    public let helper: PDFHelper

    /// `folders[0]` is the tablet's own folder; any others (a USB stick) are only read.
    public init(folders: [String], limits: Worksheet.Limits = Worksheet.Limits(), maxListed: Int = 60, cacheMB: Int = 24,
                copiesMB: Int = 256, helper: PDFHelper = PDFHelper()) {
        self.folders = folders; self.limits = limits; self.maxListed = maxListed; cacheBytes = cacheMB << 20
        copies = folders.count > 1 ? WorksheetCopies(folder: Self.join(folders[0], "copies"), maxBytes: copiesMB << 20) : nil
        watch = PopplerWatch(directory: folders[0])
        self.helper = helper
    }

    /// One PDF as the list shows it: its name and page count and first page, or why it cannot be used.
    /// A value: every field is a `let` of a Sendable type (the thumbnail only read once made) but `checked`, a copy's own.
    public struct Entry: Sendable {
        public let path: String
        public let name: String
        public let pages: Int
        /// The first page, `thumbnailHeight` pixels tall (made on the lister's thread, then only read).
        public let thumbnail: ImageSurface?
        public let problem: WorksheetError?
        /// false: only its file name is known yet (the list shows it while the PDF is read).
        public var checked = true

        /// A row before its PDF is read: its file name only.
        public static func unchecked(_ path: String) -> Entry {
            Entry(path: path, name: Worksheet.shownName(path), pages: 0, thumbnail: nil, problem: nil, checked: false)
        }
    }

    /// The PDFs in the folders, by name, at most `maxListed`; `more` counts those left out. Only
    /// the folders are read, no PDF: quick even on a stick full of them.
    public func listedFiles() -> (paths: [String], more: Int) {
        let files = pdfFiles()
        return (Array(files.prefix(maxListed)), max(0, files.count - maxListed))
    }

    /// One PDF read for the list: its title, page count and first page, or what is wrong with it.
    public func entry(_ path: String, thumbnailHeight: Int) -> Entry {
        do {
            let sheet = try Worksheet(path: path, limits: limits, watch: watch, helper: helper)
            let first = try sheet.page(1)
            let thumbnail = try Exporter.thumbnail(first, height: thumbnailHeight)
            if let failed = first.takeFailure() { throw failed }
            return Entry(path: path, name: sheet.name, pages: sheet.pageCount, thumbnail: thumbnail, problem: nil)
        } catch let e as WorksheetError {
            return Entry(path: path, name: Worksheet.shownName(path), pages: 0, thumbnail: nil, problem: e)
        } catch {
            return Entry(path: path, name: Worksheet.shownName(path), pages: 0, thumbnail: nil,
                         problem: WorksheetError(kind: .unreadable, path: path, detail: "\(error)"))
        }
    }

    /// Every `*.pdf` directly in the folders and the copies (not below), sorted by file name; a
    /// missing folder (no stick in the slot) has none. A stick's file whose copy (same name and
    /// size) is on the tablet is listed once, as the copy.
    public func pdfFiles() -> [String] {
        var out: [String] = []
        var copied: Set<String> = []
        for folder in [folders[0]] + (copies.map { [$0.folder] } ?? []) + folders.dropFirst() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names where name.lowercased().hasSuffix(".pdf") && !name.hasPrefix(".") {
                let path = Self.join(folder, name)
                let key = "\(name)|\(Self.size(of: path))"
                if folder == copies?.folder { copied.insert(key) } else if isOnStick(path) && copied.contains(key) { continue }
                out.append(path)
            }
        }
        return out.sorted { Worksheet.fileName($0).lowercased() < Worksheet.fileName($1).lowercased() }
    }

    /// Whether `path` lies in one of the folders that are only read (a USB stick that may be pulled out).
    public func isOnStick(_ path: String) -> Bool {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return folders.dropFirst().contains { $0 == folder || $0 == folder + "/" }
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The size of the file itself (a link is not followed); -1: none.
    static func size(of path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    /// Opens `path` as a worksheet, with what the journal remembers of it. A file on the stick
    /// is copied to the tablet and opened from there; if that fails it is opened where it is,
    /// and `notCopied` says why (its pages then need the stick).
    public func open(_ path: String) throws -> (sheet: Worksheet, ref: WorksheetRef, notCopied: String?) {
        let sheet = try Worksheet(path: path, limits: limits, watch: watch, helper: helper)
        let ref = try sheet.reference(limits: limits)
        guard let copies, isOnStick(path) else { return (sheet, ref, nil) }
        do {
            let local = try copies.keep(path, sha256: ref.sha256)
            var kept = ref
            kept.file = local
            return (try Worksheet(path: local, limits: limits, watch: watch, helper: helper), kept, nil)
        } catch {
            return (sheet, ref, "\(error)")
        }
    }

    /// The file with this content: where it was, else any PDF in the folders of its size with
    /// the same SHA-256 (it was renamed or moved between the folders); nil: gone.
    public func find(_ sheet: WorksheetRef) -> String? {
        func holds(_ path: String) -> Bool {
            (sheet.bytes == nil || Self.size(of: path) == sheet.bytes)
                && (try? Worksheet.sha256(of: path, maxBytes: limits.maxBytes)) == sheet.sha256
        }
        if holds(sheet.file) { return sheet.file }
        return pdfFiles().first { $0 != sheet.file && holds($0) }
    }
}

extension Worksheet {
    /// The file's SHA-256 in lowercase hex, read in 1 MiB pieces; files over `maxBytes` are refused.
    public static func sha256(of path: String, maxBytes: Int) throws -> String {
        try digest(of: path, maxBytes: maxBytes).sha256
    }

    /// The file read once in 1 MiB pieces, each handed to `each` as it is hashed (a copy writes
    /// them out): its SHA-256 in lowercase hex and its size. Files over `maxBytes` are refused.
    static func digest(of path: String, maxBytes: Int, each: (ArraySlice<UInt8>) throws -> Void = { _ in })
        throws -> (sha256: String, bytes: Int) {
        // The same checked opening as poppler's: a link, a FIFO or a name with control characters is refused.
        let fd = try WorksheetFile.open(path).fd
        defer { close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw WorksheetFile.cannotRead(path, "read") }
            if n == 0 { break }
            total += n
            guard total <= maxBytes else {
                throw WorksheetError(kind: .tooLarge, path: path, detail: "more than \(maxBytes / 1_048_576) MiB")
            }
            hash.update(data: buffer[0..<n])
            try each(buffer[0..<n])
        }
        return (hash.finalize().map { String(cFormat: "%02x", Int32($0)) }.joined(), total)
    }

    /// What the journal remembers of this worksheet (its SHA-256 and size read from the file now).
    public func reference(limits: Limits) throws -> WorksheetRef {
        let read = try Self.digest(of: path, maxBytes: limits.maxBytes)
        return WorksheetRef(sha256: read.sha256, file: path, title: name, pages: pageCount, bytes: read.bytes)
    }

    /// The file's name as a list shows it: without `.pdf`, its control characters escaped.
    static func shownName(_ path: String) -> String { WorksheetFile.printable(fileName(path)) }

    static func fileName(_ path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return file.lowercased().hasSuffix(".pdf") ? String(file.dropLast(4)) : file
    }
}
