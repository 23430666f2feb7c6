// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// What the kiosk asks of its PDF helper: one JSON message on the helper's socket, the
/// descriptors it needs beside it (the PDF, the page buffer, the ink, the file to write).
public struct HelperRequest: Codable, Equatable, Sendable {
    public enum Op: String, Codable, Sendable {
        /// Open the PDF passed (descriptor 0): its page count and title.
        case open
        /// A page's size in points.
        case page
        /// Draw a page into the shared page buffer (descriptor 0) through `matrix`.
        case render
        /// Write the annotated PDF or SVG (descriptors: the ink, the output file).
        case write
        /// Forget a document.
        case close
        /// The helper's peak memory (for the benchmark).
        case memory
    }
    public var op: Op
    public var document: Int?
    /// 1 for the first page.
    public var page: Int?
    public var maxPages: Int?
    /// `open`: read the file as a signed copy of it reads (its bytes and one end of line more),
    /// so that poppler walks the page tree, never a linearized file's hint tables, which are void
    /// in any file with an update appended: the signer sees the pages every reader of the signed
    /// file sees (the hints could name other page objects, their /N another page count).
    public var asSigned: Bool?
    /// cairo's matrix from page points to the buffer's pixels: xx, yx, xy, yy, x0, y0.
    public var matrix: [Double]?
    public var width: Int?
    public var height: Int?
    /// For a file (what the page shows when printed), else for the screen.
    public var printing: Bool?
    /// `write`: "pdf" or "svg", and its pages.
    public var format: String?
    public var sheets: [ExportSheet]?

    public init(_ op: Op) { self.op = op }
}

/// A page of a file the helper writes: the worksheet's page under it (or none), and the
/// screen it was drawn on (size, page area, background), as `Exporter` takes them.
public struct ExportSheet: Codable, Equatable, Sendable {
    public var page: Int?
    public var width: Int
    public var height: Int
    /// x, y, width, height.
    public var area: [Double]?
    /// r, g, b, a; nil: transparent.
    public var background: [Double]?
    public init(page: Int?, width: Int, height: Int, area: [Double]?, background: [Double]?) {
        self.page = page; self.width = width; self.height = height; self.area = area; self.background = background
    }
}

/// Why the helper could not do what was asked (the PDF's fault, or a bad request).
public enum PDFProblem: String, Codable, Sendable {
    case damaged, passwordProtected, empty, tooManyPages, noSuchPage, noPoppler, badRequest, cannotWrite
    /// The helper would not run: no Landlock, and it would have the kiosk's own file access.
    case uncaged
}

/// The helper's answer. The kiosk trusts none of it: `checked` bounds every field.
public struct HelperReply: Codable, Equatable, Sendable {
    public var problem: PDFProblem?
    public var detail: String?
    public var document: Int?
    public var pages: Int?
    public var title: String?
    public var width: Double?
    public var height: Double?
    public var peakKiB: Int?

    public init() {}
    public static func failed(_ problem: PDFProblem, _ detail: String) -> HelperReply {
        var r = HelperReply(); r.problem = problem; r.detail = detail; return r
    }

    /// Longest title kept (bytes); a longer one is cut between characters.
    static let maxTitleBytes = 4096
    /// Largest page side believed, in points (PDF's own limit is 14,400 units at a user unit of up to 75000).
    static let maxPageSide = 1_000_000.0

    /// The reply with its fields bounded: a helper taken over by a crafted PDF can say anything.
    func checked(maxPages: Int) -> HelperReply? {
        var r = self
        if let p = pages, !(0...max(maxPages, 0)).contains(p) { return nil }
        if let w = width, !(w.isFinite && w > 0 && w <= Self.maxPageSide) { return nil }
        if let h = height, !(h.isFinite && h > 0 && h <= Self.maxPageSide) { return nil }
        if let t = title, t.utf8.count > Self.maxTitleBytes {
            var kept = "", bytes = 0
            for c in t { bytes += c.utf8.count; if bytes > Self.maxTitleBytes { break }; kept.append(c) }
            r.title = kept
        }
        if let d = detail, d.utf8.count > 1024 { r.detail = String(decoding: Array(d.utf8.prefix(1024)), as: UTF8.self) }
        return r
    }
}

/// Messages as bytes: JSON, at most `maxBytes` (a SEQPACKET message).
enum HelperWire {
    static let maxBytes = 64 * 1024

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let bytes = Array(try JSONEncoder().encode(value))
        guard bytes.count <= maxBytes else { throw HelperChannel.Failure.protocolError("a message of \(bytes.count) bytes") }
        return bytes
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        do { return try JSONDecoder().decode(type, from: Data(bytes)) } catch {
            throw HelperChannel.Failure.protocolError("an unreadable message (\(bytes.count) bytes)")
        }
    }
}
