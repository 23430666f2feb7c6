// SPDX-License-Identifier: Apache-2.0
import Foundation
import InkCore
@testable import InkDocument

/// PDFs written by hand for the tests, byte by byte, so that each test knows exactly what is in
/// the file it reads.
enum TestPDFs {
    /// An object's body: plain text, or a stream (its dictionary's other keys, and its data).
    enum Body {
        case plain(String)
        case stream(String, [UInt8])
    }

    /// A classic PDF: these objects numbered from 1 (the first the catalog), a cross-reference
    /// table, a trailer with `trailer`'s keys.
    static func classic(_ objects: [Body], trailer: String = "", version: String = "1.4") -> [UInt8] {
        var pdf = Array("%PDF-\(version)\n%\u{e2}\u{e3}\u{cf}\u{d3}\n".utf8)
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(pdf.count)
            pdf += Array("\(i + 1) 0 obj\n".utf8) + bytes(body) + Array("\nendobj\n".utf8)
        }
        let xref = pdf.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets { table += String(format: "%010d 00000 n \n", o) }
        table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R \(trailer) >>\nstartxref\n\(xref)\n%%EOF\n"
        return pdf + Array(table.utf8)
    }

    static func bytes(_ body: Body) -> [UInt8] {
        switch body {
        case .plain(let text): return Array(text.utf8)
        case .stream(let keys, let data):
            return Array("<< \(keys) /Length \(data.count) >>\nstream\n".utf8) + data + Array("\nendstream".utf8)
        }
    }

    static func text(_ content: String) -> Body { .stream("", Array(content.utf8)) }

    /// The contract of the tests: two A4 pages of text; on page 2 (of 2) a field "sign" (/FT /Sig)
    /// with two signature widgets as its kids, "sign.customer" (its /Rect given corners
    /// swapped, its /P set) and "sign.witness" (a UTF-16 name, no /P: found through the page's
    /// /Annots), and a text field "remarks". `signedWitness` gives the witness a /V.
    static func contract(signedWitness: Bool = false) -> [UInt8] {
        var objects: [Body] = [
            .plain("<< /Type /Catalog /Pages 2 0 R /AcroForm 8 0 R >>"),
            .plain("<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 595 842] >>"),
            .plain("<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 7 0 R >> >> >>"),
            .plain("<< /Type /Page /Parent 2 0 R /Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> /Annots [10 0 R 11 0 R 12 0 R] >>"),
            text("BT /F1 24 Tf 72 760 Td (Contract of sale) Tj ET\nBT /F1 12 Tf 72 700 Td (The customer buys one pen tablet.) Tj ET"),
            text("BT /F1 18 Tf 72 760 Td (Signatures) Tj ET\nBT /F1 10 Tf 72 85 Td (Customer) Tj ET\nBT /F1 10 Tf 320 85 Td (Witness) Tj ET"),
            .plain("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
            .plain("<< /Fields [9 0 R 12 0 R] /DA (/Helv 0 Tf 0 g) >>"),
            .plain("<< /FT /Sig /T (sign) /Kids [10 0 R 11 0 R] >>"),
            .plain("<< /Type /Annot /Subtype /Widget /Parent 9 0 R /T (customer) /Rect [300 100 72 160] /P 4 0 R /F 4 >>"),
            .plain("<< /Type /Annot /Subtype /Widget /Parent 9 0 R /T <FEFF007700690074006E006500730073> /Rect [320 100 540 160]\(signedWitness ? " /V 13 0 R" : "") >>"),
            .plain("<< /Type /Annot /Subtype /Widget /FT /Tx /T (remarks) /Rect [72 200 540 230] /P 4 0 R >>"),
        ]
        if signedWitness {
            objects.append(.plain("<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 0 0 0] /Contents <0000> >>"))
        }
        let id = String(repeating: "1f", count: 16)
        return classic(objects, trailer: "/ID [<\(id)> <\(id)>]")
    }

    static let customerRect = PDFRect(72, 100, 300, 160)
    static let witnessRect = PDFRect(320, 100, 540, 160)

    /// The contract again, written with a cross-reference stream (PNG predictor `predictor`,
    /// rows filtered in turn by None, Sub, Up, Average and Paeth for 15) and every object but
    /// the content streams in one object stream; an /Info dictionary beside the catalog.
    /// `indexOf9`: the index the cross-reference stream gives object 9 in the object stream
    /// instead of its true one (6).
    static func contractWithXRefStream(predictor: Int = 12, indexOf9: Int? = nil) throws -> [UInt8] {
        let document = try PDFDocument(bytes: contract())
        var pdf = Array("%PDF-1.5\n%\u{e2}\u{e3}\u{cf}\u{d3}\n".utf8)
        var entries: [Int: (type: UInt8, a: Int, b: Int)] = [0: (0, 0, 65535)]
        var packed: [(Int, [UInt8])] = []
        for number in 1...12 {
            let object = try document.object(PDFReference(number))
            if case .stream = object {
                entries[number] = (1, pdf.count, 0)
                pdf += Array("\(number) 0 obj\n".utf8) + (try PDFSerializer.bytes(object)) + Array("\nendobj\n".utf8)
            } else {
                packed.append((number, try PDFSerializer.bytes(object)))
            }
        }
        packed.append((13, Array("<< /Title (A contract) /Producer (hand) >>".utf8)))
        // The object stream (14): pairs, then the objects.
        var header = "", body: [UInt8] = []
        for (i, (number, bytes)) in packed.enumerated() {
            header += "\(number) \(body.count) "
            body += bytes + [0x0A]
            entries[number] = (2, 14, number == 9 ? indexOf9 ?? i : i)
        }
        let objStm = try Zlib.deflate(Array(header.utf8) + body)
        entries[14] = (1, pdf.count, 0)
        pdf += Array("14 0 obj\n<< /Type /ObjStm /N \(packed.count) /First \(header.utf8.count) /Filter /FlateDecode /Length \(objStm.count) >>\nstream\n".utf8)
        pdf += objStm + Array("\nendstream\nendobj\n".utf8)
        // The cross-reference stream (15): type, offset (3 bytes), generation/index (2 bytes).
        entries[15] = (1, pdf.count, 0)
        var rows: [[UInt8]] = []
        for n in 0...15 {
            let e = entries[n] ?? (0, 0, 0)
            rows.append([e.type, UInt8(e.a >> 16 & 0xff), UInt8(e.a >> 8 & 0xff), UInt8(e.a & 0xff), UInt8(e.b >> 8 & 0xff), UInt8(e.b & 0xff)])
        }
        let data = try Zlib.deflate(pngPredicted(rows, predictor: predictor))
        let id = String(repeating: "2e", count: 16)
        pdf += Array(("15 0 obj\n<< /Type /XRef /Size 16 /W [1 3 2] /Root 1 0 R /Info 13 0 R /ID [<\(id)> <\(id)>] "
            + "/Filter /FlateDecode /DecodeParms << /Predictor \(predictor) /Columns 6 >> /Length \(data.count) >>\nstream\n").utf8)
        pdf += data + Array("\nendstream\nendobj\nstartxref\n\(entries[15]!.a)\n%%EOF\n".utf8)
        return pdf
    }

    /// The contract as a hybrid file (ISO 32000-1, 7.5.8.4): a classic table for the objects in
    /// the file, which leaves out the form's objects 9–12; they are in an object stream (13),
    /// listed by a cross-reference stream (14) that the trailer's /XRefStm points to.
    /// `conflicting`: object 10 is also written into the file, and the table lists it there
    /// while the stream still lists it in the object stream.
    static func contractHybrid(conflicting: Bool = false) throws -> [UInt8] {
        let document = try PDFDocument(bytes: contract())
        var pdf = Array("%PDF-1.5\n%\u{e2}\u{e3}\u{cf}\u{d3}\n".utf8)
        var offsets: [Int: Int] = [:]
        for number in conflicting ? Array(1...8) + [10] : Array(1...8) {
            offsets[number] = pdf.count
            pdf += Array("\(number) 0 obj\n".utf8) + (try PDFSerializer.bytes(document.object(PDFReference(number)))) + Array("\nendobj\n".utf8)
        }
        var header = "", body: [UInt8] = []
        for number in 9...12 {
            header += "\(number) \(body.count) "
            body += try PDFSerializer.bytes(document.object(PDFReference(number))) + [0x0A]
        }
        let objStm = try Zlib.deflate(Array(header.utf8) + body)
        offsets[13] = pdf.count
        pdf += Array("13 0 obj\n<< /Type /ObjStm /N 4 /First \(header.utf8.count) /Filter /FlateDecode /Length \(objStm.count) >>\nstream\n".utf8)
        pdf += objStm + Array("\nendstream\nendobj\n".utf8)
        offsets[14] = pdf.count
        var rows: [UInt8] = []
        for i in 0..<4 { rows += [2, 0, 13, UInt8(i)] }
        rows += [1, UInt8(offsets[13]! >> 8), UInt8(offsets[13]! & 0xff), 0, 1, UInt8(offsets[14]! >> 8), UInt8(offsets[14]! & 0xff), 0]
        let data = try Zlib.deflate(rows)
        pdf += Array("14 0 obj\n<< /Type /XRef /Size 15 /Index [9 6] /W [1 2 1] /Filter /FlateDecode /Length \(data.count) >>\nstream\n".utf8)
        pdf += data + Array("\nendstream\nendobj\n".utf8)
        let xref = pdf.count
        // Subsections around the compressed objects: the table leaves them out.
        var table = "xref\n"
        for run in CrossReferenceWriter.runs([0] + offsets.keys.sorted()) {
            table += "\(run.first) \(run.count)\n"
            for number in run.first..<(run.first + run.count) {
                table += number == 0 ? "0000000000 65535 f \n" : String(format: "%010d 00000 n \n", offsets[number] ?? 0)
            }
        }
        let id = String(repeating: "3c", count: 16)
        table += "trailer\n<< /Size 15 /Root 1 0 R /XRefStm \(offsets[14]!) /ID [<\(id)> <\(id)>] >>\nstartxref\n\(xref)\n%%EOF\n"
        return pdf + Array(table.utf8)
    }

    /// Rows with a PNG filter byte each: the predictor's own filter (10–14), or for 15 each
    /// filter in turn, as an encoder choosing per row would.
    static func pngPredicted(_ rows: [[UInt8]], predictor: Int) -> [UInt8] {
        var out: [UInt8] = []
        var previous = [UInt8](repeating: 0, count: rows.first?.count ?? 0)
        for (r, row) in rows.enumerated() {
            let filter = predictor == 15 ? UInt8(r % 5) : UInt8(predictor - 10)
            out.append(filter)
            for i in row.indices {
                let a = i > 0 ? row[i - 1] : 0, b = previous[i], c = i > 0 ? previous[i - 1] : 0
                let predicted: UInt8
                switch filter {
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = UInt8((Int(a) + Int(b)) / 2)
                case 4:
                    let p = Int(a) + Int(b) - Int(c)
                    let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: predicted = 0
                }
                out.append(row[i] &- predicted)
            }
            previous = row
        }
        return out
    }

    /// Ink that fills much of a field `width` × `height` points: a stroked signature-like
    /// curve, a line, and a half-transparent filled triangle, all at least 4 pt from the edges.
    static func ink(width w: Double, height h: Double) -> VectorInk {
        VectorInk([
            InkPath([.move(Point(0.08 * w, 0.3 * h)),
                     .cubic(Point(0.2 * w, 0.95 * h), Point(0.35 * w, 0.05 * h), Point(0.5 * w, 0.5 * h)),
                     .line(Point(0.9 * w, 0.62 * h))],
                    painting: .stroke(width: 2.5), color: .ink),
            InkPath([.move(Point(0.6 * w, 0.15 * h)), .line(Point(0.8 * w, 0.15 * h)), .line(Point(0.7 * w, 0.4 * h)), .close],
                    painting: .fill(), color: RGBA(0, 0, 0, 0.5)),
        ])
    }
}
