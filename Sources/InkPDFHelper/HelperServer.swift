// SPDX-License-Identifier: Apache-2.0
import CCairo
import FoundationEssentials
import Glibc
import InkCore
import InkRender
import InkStorage

/// The PDF helper's side: `inkkiosk pdf-helper` reads requests from descriptor 3, opens and
/// draws PDFs with poppler, and answers. It enters its `Cage` before the first request; the
/// first message it sends says how it is caged (or why it could not be, and it ends).
public enum HelperServer {
    /// Documents open at once at most (the kiosk has a worksheet open, the list reads one at a time).
    static let maxDocuments = 16

    public static func run(channelFD: Int32, cage: Cage) -> Never {
        let channel = HelperChannel(fd: channelFD)
        // poppler and its libraries are loaded before the cage closes: nothing is mapped executable after.
        let poppler = Poppler.shared
        // So are the converters poppler-glib's titles go through (glibc loads iconv's modules on
        // first use, from a folder outside the cage); kept open so that they stay loaded.
        for from in ["UTF-16BE", "UTF-16LE"] { _ = iconv_open("UTF-8", from) }
        var hello = HelperReply()
        do {
            hello.detail = try cage.enter()
        } catch let refusal as Cage.Refusal {
            hello = .failed(.uncaged, "\(refusal)")
            _ = try? channel.send(HelperWire.encode(hello))
            exit(0)
        } catch {
            hello = .failed(.noPoppler, "the PDF helper cannot enter its cage: \(error)")
            _ = try? channel.send(HelperWire.encode(hello))
            exit(70)
        }
        if case .failure(let why) = poppler { hello = .failed(.noPoppler, why.text) }
        guard (try? channel.send(HelperWire.encode(hello))) != nil, case .success(let p) = poppler else { exit(0) }
        var server = Documents(poppler: p)
        server.fileMB = cage.fileMB
        while true {
            let message: (bytes: [UInt8], fds: [Int32])
            do { message = try channel.receive() } catch { exit(0) }   // the kiosk is gone
            var reply: HelperReply
            do {
                let request = try HelperWire.decode(HelperRequest.self, message.bytes)
                reply = server.handle(request, fds: message.fds)
            } catch {
                reply = .failed(.badRequest, "\(error)")
            }
            // Every descriptor a request brought is closed, whatever became of it (poppler has its own copy).
            for fd in message.fds { close(fd) }
            guard (try? channel.send(HelperWire.encode(reply))) != nil else { exit(0) }
        }
    }

    /// The documents poppler has open, by number.
    struct Documents {
        let poppler: Poppler
        var open: [Int: OpaquePointer] = [:]
        var next = 1
        /// The largest file it may write (RLIMIT_FSIZE), for what a write past it says.
        var fileMB = 256

        init(poppler: Poppler) { self.poppler = poppler }

        mutating func handle(_ r: HelperRequest, fds: [Int32]) -> HelperReply {
            switch r.op {
            case .open: return openDocument(fds.first, maxPages: r.maxPages ?? 200, asSigned: r.asSigned == true)
            case .close:
                if let d = r.document, let doc = open.removeValue(forKey: d) { poppler.unref(UnsafeMutableRawPointer(doc)) }
                return HelperReply()
            case .page:
                switch page(r) {
                case .failure(let f): return f
                case .success(let page):
                    defer { poppler.unref(UnsafeMutableRawPointer(page)) }
                    var reply = HelperReply()
                    var w = 0.0, h = 0.0
                    poppler.pageSize(page, &w, &h)
                    reply.width = w; reply.height = h
                    return reply
                }
            case .render: return render(r, buffer: fds.first)
            case .write: return write(r, fds: fds)
            case .memory:
                var reply = HelperReply()
                reply.peakKiB = Self.peakKiB()
                return reply
            }
        }

        private mutating func openDocument(_ fd: Int32?, maxPages: Int, asSigned: Bool) -> HelperReply {
            guard let fd else { return .failed(.badRequest, "no file passed") }
            guard open.count < HelperServer.maxDocuments else { return .failed(.badRequest, "\(open.count) documents open already") }
            var error: UnsafeMutableRawPointer?
            let document: OpaquePointer?
            if asSigned {
                switch Self.bytesAsSigned(fd) {
                case .failure(let reply): return reply
                case .success(let bytes): document = poppler.document(bytes, &error)
                }
            } else if let newFromFd = poppler.newFromFd {
                // poppler closes the descriptor it is given: it gets a copy (the request's is closed after).
                let own = dup(fd)
                guard own >= 0 else { return .failed(.damaged, "cannot copy the file's descriptor: \(Errno.describe(errno))") }
                document = newFromFd(own, nil, &error)
                if document == nil && error == nil { close(own) }
            } else {
                // poppler before 21.12: the descriptor by its name in /proc (the file opened, not a path looked up again).
                var uriError: UnsafeMutableRawPointer?
                guard let uri = poppler.filenameToURI("/proc/self/fd/\(fd)", nil, &uriError) else {
                    return .failed(.damaged, "cannot name it as a URI: \(poppler.take(uriError)?.message ?? "?")")
                }
                defer { poppler.free(uri) }
                document = poppler.newFromFile(uri, nil, &error)
            }
            guard let document else {
                let e = poppler.take(error)
                // POPPLER_ERROR: 0 invalid, 1 encrypted, 2 cannot open, 3 bad catalog, 4 damaged.
                if e?.domain == poppler.errorQuark() && e?.code == 1 {
                    return .failed(.passwordProtected, "the PDF is protected by a password; save it without one to use it as a worksheet")
                }
                return .failed(.damaged, "the PDF cannot be read (\(e?.message ?? "damaged"))")
            }
            let pages = Int(poppler.pageCount(document))
            guard pages > 0, pages <= maxPages else {
                poppler.unref(UnsafeMutableRawPointer(document))
                return pages <= 0 ? .failed(.empty, "the PDF has no pages")
                    : .failed(.tooManyPages, "\(pages) pages; worksheets may have at most \(maxPages)")
            }
            let id = next
            next += 1
            open[id] = document
            var reply = HelperReply()
            reply.document = id
            reply.pages = pages
            if let t = poppler.getTitle(document) {
                reply.title = String(cString: t)
                poppler.free(t)
            }
            return reply
        }

        /// The file's bytes and an end of line: the file as a copy with an update appended reads
        /// (a linearized file's /L no longer its length: poppler reads it as any other).
        static func bytesAsSigned(_ fd: Int32) -> Result<[UInt8], HelperReply> {
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .failure(.failed(.damaged, "not a regular file")) }
            guard info.st_size <= 256 << 20 else { return .failure(.failed(.damaged, "larger than 256 MiB")) }
            var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
            var done = 0
            while done < Int(info.st_size) {
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, Int(info.st_size) - done, off_t(done)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return .failure(.failed(.damaged, "cannot read it: \(n == 0 ? "it ended early" : Errno.describe(errno))")) }
                done += n
            }
            bytes[done] = 0x0A
            return .success(bytes)
        }

        private func page(_ r: HelperRequest) -> Result<OpaquePointer, HelperReply> {
            guard let d = r.document, let doc = open[d] else { return .failure(.failed(.badRequest, "no such document")) }
            let count = Int(poppler.pageCount(doc))
            guard let n = r.page, (1...count).contains(n), let page = poppler.getPage(doc, Int32(n - 1)) else {
                return .failure(.failed(.noSuchPage, "has \(count) page\(count == 1 ? "" : "s"); there is no page \(r.page ?? 0)"))
            }
            return .success(page)
        }

        /// Draws the page through the request's matrix into the shared buffer (ARGB32, transparent where the page does not draw).
        private func render(_ r: HelperRequest, buffer: Int32?) -> HelperReply {
            guard let buffer, let w = r.width, let h = r.height, (1...16384).contains(w), (1...16384).contains(h),
                  let m = r.matrix, m.count == 6, m.allSatisfy(\.isFinite) else { return .failed(.badRequest, "a render without its buffer or sizes") }
            let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(w)))
            let mapped: MappedMemory
            do { mapped = try MappedMemory(fd: buffer, atLeast: stride * h, writable: true) } catch {
                return .failed(.badRequest, "\(error)")
            }
            defer { mapped.unmap() }
            switch page(r) {
            case .failure(let f): return f
            case .success(let page):
                defer { poppler.unref(UnsafeMutableRawPointer(page)) }
                guard let surface = cairo_image_surface_create_for_data(mapped.base.assumingMemoryBound(to: UInt8.self),
                                                                        CAIRO_FORMAT_ARGB32, Int32(w), Int32(h), Int32(stride)) else {
                    return .failed(.badRequest, "cannot make a surface of \(w)x\(h)")
                }
                defer { cairo_surface_destroy(surface) }
                let cr = cairo_create(surface)
                defer { cairo_destroy(cr) }
                cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
                cairo_paint(cr)
                cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
                var matrix = cairo_matrix_t(xx: m[0], yx: m[1], xy: m[2], yy: m[3], x0: m[4], y0: m[5])
                cairo_set_matrix(cr, &matrix)
                (r.printing == true ? poppler.renderForPrinting : poppler.render)(page, cr)
                cairo_surface_flush(surface)
                return HelperReply()
            }
        }

        /// The annotated file: each sheet's worksheet page (as it prints: text as text, drawings
        /// as vectors) with its ink drawn on it by the same code as the screen's.
        private func write(_ r: HelperRequest, fds: [Int32]) -> HelperReply {
            guard fds.count == 2, let sheets = r.sheets, !sheets.isEmpty, let format = r.format, format == "pdf" || (format == "svg" && sheets.count == 1) else {
                return .failed(.badRequest, "a write needs the ink, the file, its sheets and pdf or svg")
            }
            // The ink's length leads (the memfd is a whole number of pages); the strokes are copied out once.
            guard let mapped = try? MappedMemory(fd: fds[0], atLeast: 8, writable: false) else { return .failed(.badRequest, "unreadable ink") }
            defer { mapped.unmap() }
            let length = Int(clamping: UInt64(littleEndian: mapped.base.loadUnaligned(as: UInt64.self)))
            guard length <= mapped.bytes - 8 else { return .failed(.badRequest, "the ink's length is wrong") }
            let ink = [UInt8](UnsafeRawBufferPointer(start: mapped.base + 8, count: length))
            guard let pages = StrokeTransfer.decode(ink), pages.count == sheets.count else {
                return .failed(.badRequest, "the ink is unreadable, or not one page of it per sheet")
            }
            var exporters: [Exporter] = []
            var held: [OpaquePointer] = []
            defer { for p in held { poppler.unref(UnsafeMutableRawPointer(p)) } }
            for sheet in sheets {
                guard (1...16384).contains(sheet.width), (1...16384).contains(sheet.height) else { return .failed(.badRequest, "a sheet's size") }
                var backdrop: PageBackdrop?
                if let n = sheet.page {
                    var one = r
                    one.page = n
                    switch page(one) {
                    case .failure(let f): return f
                    case .success(let p): held.append(p); backdrop = PopplerPage(poppler: poppler, page: p)
                    }
                }
                let area = sheet.area.flatMap { $0.count == 4 && $0.allSatisfy(\.isFinite) ? Rect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) : nil }
                let background: Exporter.Background = sheet.background.flatMap {
                    $0.count == 4 ? .color(RGBA($0[0], $0[1], $0[2], $0[3])) : nil
                } ?? .transparent
                exporters.append(Exporter(size: PixelSize(width: sheet.width, height: sheet.height), background: background,
                                          backdrop: backdrop, pageArea: area))
            }
            do {
                if format == "svg" {
                    try exporters[0].svg(pages[0], toDescriptor: fds[1])
                } else {
                    try Exporter.pdf(sheets: Array(zip(exporters, pages)), toDescriptor: fds[1])
                }
            } catch let e as SystemCallError where e.errno == EFBIG {
                return .failed(.cannotWrite, "the file would be larger than \(fileMB) MiB ([limits] worksheet_save_mb): \(e)")
            } catch {
                return .failed(.cannotWrite, "\(error)")
            }
            return HelperReply()
        }

        /// Its peak resident memory (getrusage: /proc is outside the cage).
        static func peakKiB() -> Int? {
            var usage = rusage()
            return getrusage(Int32(RUSAGE_SELF.rawValue), &usage) == 0 ? Int(usage.ru_maxrss) : nil
        }
    }
}

extension HelperReply: Error {}

/// A poppler page as `Exporter` draws it under the ink (the helper's side only).
struct PopplerPage: PageBackdrop {
    let poppler: Poppler
    let page: OpaquePointer
    let pageWidth: Double
    let pageHeight: Double

    init(poppler: Poppler, page: OpaquePointer) {
        self.poppler = poppler; self.page = page
        var w = 0.0, h = 0.0
        poppler.pageSize(page, &w, &h)
        pageWidth = w; pageHeight = h
    }

    func draw(in cr: OpaquePointer, printing: Bool) {
        (printing ? poppler.renderForPrinting : poppler.render)(page, cr)
    }
}
