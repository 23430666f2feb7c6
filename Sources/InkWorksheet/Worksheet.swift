// SPDX-License-Identifier: Apache-2.0
import CCairo
import FoundationEssentials
import Glibc
import InkCore
import InkPDFHelper
import InkRender

/// What is wrong with a worksheet file, said so that a teacher can act on it.
public struct WorksheetError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        case unreadable, tooLarge, notPDF, damaged, passwordProtected, empty, tooManyPages, noSuchPage, noPoppler
        /// The PDF reader (the helper process) crashed on this file: the kiosk goes on.
        case crashed
        /// The PDF reader took longer than `worksheet_stuck_seconds` on it and was stopped.
        case stuck
        /// The file crashed or stalled the PDF reader `PopplerWatch.strikesToRefuse` times: not opened again.
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
    /// The failed system call behind it, with its errno, if one was the cause.
    public var cause: SystemCallError? = nil
    /// The path with its control characters escaped: a hostile name cannot forge a log line.
    public var description: String { "\(WorksheetFile.printable(path)): \(detail)" }

    public init(kind: Kind, path: String, detail: String, cause: SystemCallError? = nil) {
        self.kind = kind; self.path = path; self.detail = detail; self.cause = cause
    }
}

/// A PDF a teacher handed out, opened to be written on: its pages go under the ink. poppler
/// reads it in the PDF helper (`PDFHelper`, a caged process); the kiosk holds the checked
/// file's descriptor, to open it again in a new helper if the last one died.
/// Immutable after init: only `let`s; `helper`, `watch` and `document` guard their own state.
public final class Worksheet: Sendable {
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

    let helper: PDFHelper
    /// Counts the helper's crashes and stalls on a file; refuses one that had too many (nil: unwatched).
    let watch: PopplerWatch?
    /// The file as the helper has it open (the kiosk keeps its descriptor, to open it again in a new helper).
    let document: HelperDocument

    /// `asSigned`: a host's document to sign, read as its signed copy will read (`HelperRequest.asSigned`).
    public init(path: String, limits: Limits = Limits(), watch: PopplerWatch? = nil, helper: PDFHelper, asSigned: Bool = false) throws {
        func fail(_ kind: WorksheetError.Kind, _ detail: String) -> WorksheetError {
            WorksheetError(kind: kind, path: path, detail: detail)
        }
        // Looked at with lstat, opened without following a link, checked to be what was looked at.
        let (fd, info) = try WorksheetFile.open(path)
        defer { close(fd) }
        guard info.st_size > 0 else { throw fail(.empty, "the file is empty") }
        guard info.st_size <= limits.maxBytes else {
            throw fail(.tooLarge, "\(info.st_size / 1_048_576) MiB; worksheets may have at most \(limits.maxBytes / 1_048_576) MiB")
        }
        guard Self.startsLikeAPDF(fd) else { throw fail(.notPDF, "not a PDF (no %PDF- header in its first 1024 bytes)") }
        // The helper reads the descriptor checked here, never the path (a link could be put there meanwhile).
        document = try Self.asking(path, page: 0, watch: watch) { try helper.open(fd, maxPages: limits.maxPages, asSigned: asSigned) }
        self.path = path
        self.helper = helper
        self.watch = watch
        pageCount = document.pages
        // A title is shown, logged and makes a save's name: its control characters become spaces.
        title = document.title.map { String(String.UnicodeScalarView($0.unicodeScalars.map { WorksheetFile.isControl($0) ? " " : $0 })) }
    }

    /// Page `number`, 1 for the first.
    public func page(_ number: Int) throws -> WorksheetPage {
        guard (1...pageCount).contains(number) else {
            throw WorksheetError(kind: .noSuchPage, path: path,
                                 detail: "has \(pageCount) page\(pageCount == 1 ? "" : "s"); there is no page \(number)")
        }
        var request = HelperRequest(.page)
        request.page = number
        let reply = try Self.asking(path, page: number, watch: watch) { try helper.ask(request, on: document) }
        return WorksheetPage(number: number, width: reply.width ?? 595, height: reply.height ?? 842, worksheet: self)
    }

    /// Runs a request about page `page` of `path` (0: opening it) through the watch, its
    /// failures said as worksheet errors.
    static func asking<T>(_ path: String, page: Int, watch: PopplerWatch?, _ body: () throws -> T) throws -> T {
        do {
            return try watch.map { try $0.around(path, page: page, body) } ?? body()
        } catch let f as PDFHelper.Failure {
            let which = page == 0 ? "opening it" : "on page \(page)"
            switch f {
            case .crashed: throw WorksheetError(kind: .crashed, path: path, detail: "\(f) \(which); the tablet goes on without it")
            case .stuck: throw WorksheetError(kind: .stuck, path: path, detail: "\(f) \(which); the page is left blank")
            case .unavailable: throw WorksheetError(kind: .noPoppler, path: path, detail: "\(f)")
            case .refused(let problem, let detail):
                let kinds: [PDFProblem: WorksheetError.Kind] = [.damaged: .damaged, .passwordProtected: .passwordProtected,
                                                                .empty: .empty, .tooManyPages: .tooManyPages,
                                                                .noSuchPage: .noSuchPage, .noPoppler: .noPoppler]
                throw WorksheetError(kind: kinds[problem] ?? .damaged, path: path, detail: detail)
            }
        }
    }

    private static func startsLikeAPDF(_ fd: Int32) -> Bool {
        var head = [UInt8](repeating: 0, count: 1024)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 1024, 0) }
        guard n >= 5 else { return false }
        let marker: [UInt8] = Array("%PDF-".utf8)
        return (0...(n - 5)).contains { i in head[i..<(i + 5)].elementsEqual(marker) }
    }
}

/// One page of a worksheet under the ink. The helper draws it into shared memory, which is
/// painted where the caller's cairo context points (a screen's paper, a thumbnail, a PNG).
/// Files with vectors (PDF, SVG) are written by the helper itself: `AnnotatedFile`.
/// `lastFailure` is used only under `lock`; the rest is set in init.
public final class WorksheetPage: PageBackdrop, @unchecked Sendable {
    public let number: Int
    public let pageWidth: Double
    public let pageHeight: Double
    /// The document stays open while one of its pages is in use.
    let worksheet: Worksheet
    private let lock = Lock()
    private var lastFailure: WorksheetError?

    init(number: Int, width: Double, height: Double, worksheet: Worksheet) {
        self.number = number; pageWidth = width; pageHeight = height; self.worksheet = worksheet
    }

    /// Why the last drawing left the page blank, once (then forgotten).
    public func takeFailure() -> WorksheetError? { lock.withLock { defer { lastFailure = nil }; return lastFailure } }

    public func draw(in cr: OpaquePointer, printing: Bool) {
        do {
            try drawing(in: cr, printing: printing)
        } catch {
            let e = error as? WorksheetError
                ?? WorksheetError(kind: .damaged, path: worksheet.path, detail: "page \(number): \(error)")
            lock.withLock { lastFailure = e }
        }
    }

    private func drawing(in cr: OpaquePointer, printing: Bool) throws {
        let target = cairo_get_target(cr)
        guard cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE else {
            throw WorksheetError(kind: .unreadable, path: worksheet.path,
                                 detail: "page \(number) can only be drawn into images here; files are written by the PDF reader")
        }
        let width = Int(cairo_image_surface_get_width(target)), height = Int(cairo_image_surface_get_height(target))
        var matrix = cairo_matrix_t()
        cairo_get_matrix(cr, &matrix)
        try Worksheet.asking(worksheet.path, page: number, watch: worksheet.watch) {
            try worksheet.helper.render(worksheet.document, page: number, matrix: matrix, width: width, height: height,
                                        printing: printing) { image in
                cairo_save(cr)
                cairo_identity_matrix(cr)
                cairo_set_source_surface(cr, image, 0, 0)
                cairo_paint(cr)
                cairo_restore(cr)
            }
        }
    }
}
