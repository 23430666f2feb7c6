// SPDX-License-Identifier: Apache-2.0
import CCairo
import Foundation

/// Worksheets made here with cairo, as a teacher's PDF would come: A4 pages with text and a box.
public struct WorksheetMakingFailed: Error {
    public let what: String
    public init(what: String) { self.what = what }
}

public enum Worksheets {
    public static let a4 = (width: 595.0, height: 842.0)

    /// Page n says "Worksheet n" at (72, 100) (36 pt) and has a box to write in at (72, 300, 450 × 200).
    public static func make(_ path: String, pages: Int = 2, title: String? = "Fractions") throws {
        guard let surface = cairo_pdf_surface_create(path, a4.width, a4.height) else { throw WorksheetMakingFailed(what: "no PDF surface") }
        if let title { cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title) }
        let cr = cairo_create(surface)
        for n in 1...pages {
            if n > 1 { cairo_show_page(cr) }
            cairo_set_source_rgb(cr, 0, 0, 0)
            cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
            cairo_set_font_size(cr, 36)
            cairo_move_to(cr, 72, 100)
            cairo_show_text(cr, "Worksheet \(n)")
            cairo_set_line_width(cr, 3)
            cairo_rectangle(cr, 72, 300, 450, 200)
            cairo_stroke(cr)
        }
        cairo_destroy(cr)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        cairo_surface_destroy(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw WorksheetMakingFailed(what: "cannot write \(path)") }
    }

    /// A one-page PDF locked with a user password (the standard security handler, RC4 40-bit):
    /// its /U entry matches no password a kiosk could try, the empty one included.
    public static func locked(_ path: String) throws {
        let hex32 = String(repeating: "5a", count: 32), id = String(repeating: "0f", count: 16)
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
            "<< /Filter /Standard /V 1 /R 2 /O <\(hex32)> /U <\(hex32)> /P -4 >>",
        ]
        let pdf = raw(objects, trailer: "/Encrypt 4 0 R /ID [<\(id)> <\(id)>]")
        try write(path, Array(pdf.utf8))
    }

    /// A PDF of these objects (numbered from 1, the first the catalog), its cross-reference
    /// table and trailer (`trailer`: more of the trailer's keys).
    public static func raw(_ objects: [String], trailer: String = "") -> String {
        var pdf = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(pdf.utf8.count)
            pdf += "\(i + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = pdf.utf8.count
        pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets { pdf += String(repeating: "0", count: 10 - String(o).count) + "\(o) 00000 n \n" }
        pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R \(trailer) >>\nstartxref\n\(xref)\n%%EOF\n"
        return pdf
    }

    public static func write(_ path: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

