// SPDX-License-Identifier: Apache-2.0
import Glibc

/// poppler-glib (Debian's libpoppler-glib8), loaded by the PDF helper (never by the kiosk): a
/// kiosk that never shows one (a signature kiosk, an appliance built without worksheets)
/// neither loads nor ships its dozen libraries (11 MB: poppler, NSS, glib's gio, image codecs).
/// Immutable: only `let`s, C function pointers looked up once in init (`shared`).
final class Poppler: @unchecked Sendable {
    static let library = "libpoppler-glib.so.8"

    typealias NewFromFile = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> OpaquePointer?
    /// poppler_document_new_from_fd (poppler 21.12 and later): it takes the descriptor, and closes it.
    typealias NewFromFd = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> OpaquePointer?
    typealias PageCount = @convention(c) (OpaquePointer?) -> Int32
    typealias GetPage = @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    typealias GetTitle = @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    typealias PageSize = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?) -> Void
    typealias Render = @convention(c) (OpaquePointer?, OpaquePointer?) -> Void
    typealias Quark = @convention(c) () -> UInt32
    typealias FilenameToURI = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> UnsafeMutablePointer<CChar>?
    typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// poppler_document_new_from_bytes (poppler 0.82 and later) over g_bytes_new's copy.
    typealias NewFromBytes = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> OpaquePointer?
    typealias BytesNew = @convention(c) (UnsafeRawPointer?, Int) -> OpaquePointer?
    typealias BytesUnref = @convention(c) (OpaquePointer?) -> Void

    let newFromFile: NewFromFile
    let newFromBytes: NewFromBytes
    let bytesNew: BytesNew
    let bytesUnref: BytesUnref
    /// nil: an older poppler (the file is then named by its descriptor in /proc).
    let newFromFd: NewFromFd?
    let pageCount: PageCount
    let getPage: GetPage
    let getTitle: GetTitle
    let pageSize: PageSize
    let render: Render
    let renderForPrinting: Render
    let errorQuark: Quark
    let filenameToURI: FilenameToURI
    let free: Free
    let unref: Free
    let errorFree: Free

    /// The library once loaded, or why it could not be.
    static let shared: Result<Poppler, LoadError> = {
        do { return .success(try Poppler()) } catch let e as LoadError { return .failure(e) } catch {
            return .failure(LoadError(text: "\(error)"))
        }
    }()

    private init() throws {
        guard let handle = dlopen(Self.library, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            throw LoadError(text: "cannot load \(Self.library) (\(why)); install libpoppler-glib8")
        }
        func symbol<T>(_ name: String, as: T.Type) throws -> T {
            guard let p = dlsym(handle, name) else { throw LoadError(text: "\(Self.library) has no \(name)") }
            return unsafeBitCast(p, to: T.self)
        }
        newFromFile = try symbol("poppler_document_new_from_file", as: NewFromFile.self)
        newFromFd = dlsym(handle, "poppler_document_new_from_fd").map { unsafeBitCast($0, to: NewFromFd.self) }
        newFromBytes = try symbol("poppler_document_new_from_bytes", as: NewFromBytes.self)
        bytesNew = try symbol("g_bytes_new", as: BytesNew.self)
        bytesUnref = try symbol("g_bytes_unref", as: BytesUnref.self)
        pageCount = try symbol("poppler_document_get_n_pages", as: PageCount.self)
        getPage = try symbol("poppler_document_get_page", as: GetPage.self)
        getTitle = try symbol("poppler_document_get_title", as: GetTitle.self)
        pageSize = try symbol("poppler_page_get_size", as: PageSize.self)
        render = try symbol("poppler_page_render", as: Render.self)
        renderForPrinting = try symbol("poppler_page_render_for_printing", as: Render.self)
        errorQuark = try symbol("poppler_error_quark", as: Quark.self)
        filenameToURI = try symbol("g_filename_to_uri", as: FilenameToURI.self)
        free = try symbol("g_free", as: Free.self)
        unref = try symbol("g_object_unref", as: Free.self)
        errorFree = try symbol("g_error_free", as: Free.self)
    }

    struct LoadError: Error, CustomStringConvertible { let text: String; var description: String { text } }

    /// A document over a copy of `bytes` (poppler keeps its own reference to the copy).
    func document(_ bytes: [UInt8], _ error: inout UnsafeMutableRawPointer?) -> OpaquePointer? {
        let copy = bytes.withUnsafeBytes { bytesNew($0.baseAddress, $0.count) }
        defer { bytesUnref(copy) }
        return newFromBytes(copy, nil, &error)
    }

    /// A GError's domain, code and message (GLib's struct: guint32, gint, gchar *), then freed.
    func take(_ error: UnsafeMutableRawPointer?) -> (domain: UInt32, code: Int32, message: String)? {
        guard let error else { return nil }
        defer { errorFree(error) }
        let domain = error.load(as: UInt32.self)
        let code = error.load(fromByteOffset: 4, as: Int32.self)
        let message = error.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? ""
        return (domain, code, message)
    }
}
