// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import InkDocument

/// PDFs put together piece by piece, so that a test can make exactly one thing about a file
/// wrong: an object the cross-reference does not list, an entry that points at another object,
/// bytes after `%%EOF`. Offsets are counted as the pieces are laid down.
struct CraftedPDF {
    enum Piece {
        /// `number generation obj … endobj`; `listed`: whether the cross-reference gives its place.
        case object(Int, Int = 0, String, listed: Bool = true)
        /// A stream object: its dictionary's other keys, its data, and the /Length written (nil: the true one).
        case stream(Int, String, [UInt8], length: Int? = nil, listed: Bool = true)
        /// Bytes as they are.
        case raw(String)
    }

    var pieces: [Piece]
    var trailer = ""
    /// Cross-reference entries written instead of the computed ones: number → (offset, generation).
    var overrides: [Int: (Int, Int)] = [:]
    /// Numbers given a second entry in a subsection of their own.
    var listedTwice: [Int] = []
    /// /Size, if not the computed one.
    var size: Int?
    /// After `%%EOF`.
    var tail = ""
    /// Before `%PDF-`.
    var head = ""

    init(_ pieces: [Piece]) { self.pieces = pieces }

    var bytes: [UInt8] {
        var pdf = Array((head + "%PDF-1.7\n%\u{e2}\u{e3}\u{cf}\u{d3}\n").utf8)
        var places: [Int: (Int, Int)] = [:]
        for piece in pieces {
            switch piece {
            case .object(let n, let g, let body, let listed):
                if listed { places[n] = (pdf.count, g) }
                pdf += Array("\(n) \(g) obj\n\(body)\nendobj\n".utf8)
            case .stream(let n, let keys, let data, let length, let listed):
                if listed { places[n] = (pdf.count, 0) }
                pdf += Array("\(n) 0 obj\n<< \(keys) /Length \(length ?? data.count) >>\nstream\n".utf8) + data + Array("\nendstream\nendobj\n".utf8)
            case .raw(let text):
                pdf += Array(text.utf8)
            }
        }
        for (n, place) in overrides { places[n] = place }
        let highest = places.keys.max() ?? 0
        let xref = pdf.count
        var table = "xref\n0 \(highest + 1)\n0000000000 65535 f \n"
        for n in 1...max(highest, 1) {
            table += places[n].map { String(format: "%010d %05d n \n", $0.0, $0.1) } ?? "0000000000 00000 f \n"
        }
        for n in listedTwice {
            table += "\(n) 1\n" + (places[n].map { String(format: "%010d %05d n \n", $0.0, $0.1) } ?? "")
        }
        table += "trailer\n<< /Size \(size ?? highest + 1) /Root 1 0 R \(trailer) >>\nstartxref\n\(xref)\n%%EOF\n" + tail
        return pdf + Array(table.utf8)
    }

    /// A one-page document whose page says `text` (Helvetica, large), on an A4 page.
    static func onePage(_ text: String, page extra: String = "", catalog: String = "") -> [Piece] {
        [.object(1, 0, "<< /Type /Catalog /Pages 2 0 R \(catalog) >>"),
         .object(2, 0, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 595 842] >>"),
         .object(3, 0, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> \(extra) >>"),
         .stream(4, "", content(text)),
         .object(5, 0, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")]
    }

    static func content(_ text: String) -> [UInt8] { Array("BT /F1 36 Tf 72 700 Td (\(text)) Tj ET".utf8) }
}
