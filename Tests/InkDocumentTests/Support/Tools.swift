// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkDocument
import InkTestSupport

/// The real tools the tests judge the files with: qpdf (structure), poppler's pdftotext and
/// pdftoppm (text and pixels), pdftocairo (PDFs made by cairo).
enum Tools {
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try InkTestSupport.run(executable, arguments)
    }

    static func which(_ tool: String) -> String? { InkTestSupport.which(tool) }

    static let qpdf = which("qpdf")
    static let pdftotext = which("pdftotext")
    static let pdftoppm = which("pdftoppm")
    static let pdftocairo = which("pdftocairo")

    /// A fresh directory for a test's files, kept for a person to look at.
    static func directory(_ name: String) throws -> String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let dir = package.appendingPathComponent(".build/test-output/InkDocument/\(name)").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `qpdf --check`'s verdict: nil when it found nothing wrong (exit 0, no warning), else what it said.
    static func qpdfProblems(_ path: String) throws -> String? {
        guard let qpdf else { return nil }
        let result = try run(qpdf, ["--check", path])
        if result.status == 0, !result.stdout.contains("WARNING"), !result.stderr.contains("WARNING") { return nil }
        return "qpdf --check \(path): exit \(result.status)\n\(result.stdout)\n\(result.stderr)"
    }

    static func text(_ path: String) throws -> String {
        try run(#require(pdftotext, "pdftotext (poppler-utils) is needed"), ["-layout", path, "-"]).stdout
    }

    /// Page `index` (0-based) drawn by poppler at 72 dpi in grey: one pixel a point.
    static func render(_ path: String, page index: Int) throws -> GrayImage {
        let prefix = path + ".page\(index + 1)"
        let result = try run(#require(pdftoppm, "pdftoppm (poppler-utils) is needed"),
                             ["-r", "72", "-gray", "-f", "\(index + 1)", "-l", "\(index + 1)", "-singlefile", path, prefix])
        #expect(result.status == 0, "pdftoppm \(path): \(result.stderr)")
        return try GrayImage(pgm: read(prefix + ".pgm"))
    }
}

/// A binary PGM (P5, 8-bit), as pdftoppm -gray writes it.
struct GrayImage {
    var width: Int, height: Int
    var pixels: [UInt8]

    init(pgm: [UInt8]) throws {
        var fields: [String] = [], i = 0, current = ""
        while fields.count < 4, i < pgm.count {
            let c = pgm[i]
            i += 1
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                if !current.isEmpty { fields.append(current); current = "" }
            } else {
                current.append(Character(Unicode.Scalar(c)))
            }
        }
        guard fields.count == 4, fields[0] == "P5", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255",
              pgm.count - i >= w * h else { throw CocoaError(.fileReadCorruptFile) }
        width = w; height = h
        pixels = Array(pgm[i..<(i + w * h)])
    }

    subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }
}

/// A page's pixels before and after an update, compared inside and outside a field.
struct RenderComparison {
    /// Pixels inside the field that the update made clearly darker.
    var inked = 0
    /// Pixels outside the field (a pixel's margin left for antialiasing) that were paper
    /// before and are not after.
    var strayOutside = 0
    var firstStray: (x: Int, y: Int)?

    /// `rects` in points on a page whose crop box is `crop` (rotation 0), at 72 dpi.
    init(before: GrayImage, after: GrayImage, crop: PDFRect, rects: [PDFRect]) {
        let boxes = rects.map { r in
            (x0: Int((r.x0 - crop.x0).rounded(.down)), x1: Int((r.x1 - crop.x0).rounded(.up)),
             y0: Int((crop.y1 - r.y1).rounded(.down)), y1: Int((crop.y1 - r.y0).rounded(.up)))
        }
        for y in 0..<min(before.height, after.height) {
            for x in 0..<min(before.width, after.width) {
                let was = before[x, y], now = after[x, y]
                if boxes.contains(where: { x >= $0.x0 && x < $0.x1 && y >= $0.y0 && y < $0.y1 }) {
                    if Int(now) < Int(was) - 64 { inked += 1 }
                } else if !boxes.contains(where: { x >= $0.x0 - 1 && x <= $0.x1 && y >= $0.y0 - 1 && y <= $0.y1 }) {
                    if was >= 250 && now < 250 {
                        strayOutside += 1
                        if firstStray == nil { firstStray = (x, y) }
                    }
                }
            }
        }
    }
}
