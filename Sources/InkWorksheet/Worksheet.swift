import FoundationEssentials
import Glibc
import InkCore
import InkRender

/// What is wrong with a worksheet file, said so that a teacher can act on it.
public struct WorksheetError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        case unreadable, tooLarge, notPDF, damaged, passwordProtected, empty, tooManyPages, noSuchPage, noPoppler
        /// poppler crashed the kiosk with this file before (`PopplerWatch`).
        case crashedBefore
        /// A link (on a stick it could point at any PDF the kiosk can read), never followed.
        case link
        /// A FIFO, a device, a socket, a folder: not a regular file.
        case notAFile
        /// A name with control characters (a line break, a tab, DEL, C1).
        case badName
    }
    public let kind: Kind
    public let path: String
    public let detail: String
    /// The path with its control characters escaped: a hostile name cannot forge a log line.
    public var description: String { "\(WorksheetFile.printable(path)): \(detail)" }
}

/// A PDF a teacher handed out, opened to be written on: its pages go under the ink.
public final class Worksheet: @unchecked Sendable {
    /// What a kiosk opens at most: bigger files or more pages are refused with a message.
    public struct Limits: Sendable, Equatable {
        public var maxBytes = 32 << 20
        public var maxPages = 200
        public init() {}
        public init(maxMB: Int, maxPages: Int) { maxBytes = maxMB << 20; self.maxPages = maxPages }
    }

    public let path: String
    public let pageCount: Int
    /// The PDF's own title, if it has one.
    public let title: String?
    /// What a list of worksheets shows: the title, else the file's name without `.pdf`.
    public var name: String {
        if let title, !title.isEmpty { return title }
        return Self.fileName(path)
    }

    private let poppler: Poppler
    private let document: OpaquePointer
    /// Keeps a file that crashes poppler from crashing the kiosk at every start (nil: unwatched).
    let watch: PopplerWatch?

    public init(path: String, limits: Limits = Limits(), watch: PopplerWatch? = nil) throws {
        func fail(_ kind: WorksheetError.Kind, _ detail: String) -> WorksheetError {
            WorksheetError(kind: kind, path: path, detail: detail)
        }
        // Looked at with lstat, opened without following a link, checked to be what was looked at.
        let (fd, info) = try WorksheetFile.open(path)
        var fdOwned = true   // until poppler takes it
        defer { if fdOwned { close(fd) } }
        guard info.st_size > 0 else { throw fail(.empty, "the file is empty") }
        guard info.st_size <= limits.maxBytes else {
            throw fail(.tooLarge, "\(info.st_size / 1_048_576) MiB; worksheets may have at most \(limits.maxBytes / 1_048_576) MiB")
        }
        guard Self.startsLikeAPDF(fd) else { throw fail(.notPDF, "not a PDF (no %PDF- header in its first 1024 bytes)") }
        let poppler: Poppler
        switch Poppler.shared {
        case .success(let p): poppler = p
        case .failure(let why): throw fail(.noPoppler, why.text)
        }
        var error: UnsafeMutableRawPointer?
        // poppler reads the descriptor checked here, never the path again (a link could be put there meanwhile).
        let read: () -> OpaquePointer?
        var uri: UnsafeMutablePointer<CChar>?
        defer { if let uri { poppler.free(uri) } }
        if let newFromFd = poppler.newFromFd {
            read = { fdOwned = false; return newFromFd(fd, nil, &error) }   // poppler owns (and closes) it from here
        } else {
            // poppler before 21.12: the descriptor by its name in /proc, which is the file opened, not a path looked up again.
            uri = poppler.filenameToURI("/proc/self/fd/\(fd)", nil, &error)
            guard let uri else {
                let message = poppler.take(error)?.message ?? "?"
                throw fail(.unreadable, "cannot name it as a URI: \(message)")
            }
            read = { poppler.newFromFile(uri, nil, &error) }
        }
        let opened = try watch.map { try $0.around(path, page: 0, read) } ?? read()
        guard let document = opened else {
            let e = poppler.take(error)
            // POPPLER_ERROR: 0 invalid, 1 encrypted, 2 cannot open, 3 bad catalog, 4 damaged.
            if e?.domain == poppler.errorQuark() && e?.code == 1 {
                throw fail(.passwordProtected, "the PDF is protected by a password; save it without one to use it as a worksheet")
            }
            throw fail(.damaged, "the PDF cannot be read (\(e?.message ?? "damaged"))")
        }
        let pages = Int(poppler.pageCount(document))
        guard pages > 0 else { poppler.unref(UnsafeMutableRawPointer(document)); throw fail(.empty, "the PDF has no pages") }
        guard pages <= limits.maxPages else {
            poppler.unref(UnsafeMutableRawPointer(document))
            throw fail(.tooManyPages, "\(pages) pages; worksheets may have at most \(limits.maxPages)")
        }
        self.path = path
        self.poppler = poppler
        self.document = document
        self.watch = watch
        pageCount = pages
        if let t = poppler.getTitle(document) {
            // A title is shown, logged and makes a save's name: its control characters become spaces.
            title = String(String.UnicodeScalarView(String(cString: t).unicodeScalars.map { WorksheetFile.isControl($0) ? " " : $0 }))
            poppler.free(t)
        } else {
            title = nil
        }
    }

    deinit { poppler.unref(UnsafeMutableRawPointer(document)) }

    /// Page `number`, 1 for the first.
    public func page(_ number: Int) throws -> WorksheetPage {
        guard (1...pageCount).contains(number), let page = poppler.getPage(document, Int32(number - 1)) else {
            throw WorksheetError(kind: .noSuchPage, path: path,
                                 detail: "has \(pageCount) page\(pageCount == 1 ? "" : "s"); there is no page \(number)")
        }
        return WorksheetPage(number: number, page: page, worksheet: self, poppler: poppler)
    }

    private static func startsLikeAPDF(_ fd: Int32) -> Bool {
        var head = [UInt8](repeating: 0, count: 1024)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 1024, 0) }
        guard n >= 5 else { return false }
        let marker: [UInt8] = Array("%PDF-".utf8)
        return (0...(n - 5)).contains { i in head[i..<(i + 5)].elementsEqual(marker) }
    }
}

/// One page of a worksheet, drawn by poppler under the ink.
public final class WorksheetPage: PageBackdrop, @unchecked Sendable {
    public let number: Int
    public let pageWidth: Double
    public let pageHeight: Double
    private let page: OpaquePointer
    private let poppler: Poppler
    /// The document stays open while one of its pages is in use.
    private let worksheet: Worksheet

    init(number: Int, page: OpaquePointer, worksheet: Worksheet, poppler: Poppler) {
        self.number = number
        self.page = page
        self.worksheet = worksheet
        self.poppler = poppler
        var w = 0.0, h = 0.0
        poppler.pageSize(page, &w, &h)
        pageWidth = w
        pageHeight = h
    }

    deinit { poppler.unref(UnsafeMutableRawPointer(page)) }

    public func draw(in cr: OpaquePointer, printing: Bool) {
        // Printing: what the page shows on paper (annotations meant for the screen left out);
        // cairo's PDF surface then keeps its text as text and its drawings as vectors.
        let render = printing ? poppler.renderForPrinting : poppler.render
        guard let watch = worksheet.watch else { return render(page, cr) }
        _ = try? watch.around(worksheet.path, page: number) { render(page, cr) }   // refused: the paper stays blank
    }
}
