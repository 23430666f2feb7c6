// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// A file carried inside the signed PDF (the ink's capture as InkML, a receipt as XML…): an
/// embedded file stream with its file specification, listed in the document's
/// /EmbeddedFiles and, as a PDF 2.0 associated file, in the signature widget's /AF.
public struct EmbeddedFile: Sendable {
    /// The file's name, as PDF readers offer it for saving (no path).
    public var name: String
    public var bytes: [UInt8]
    /// `application/xml`, `image/png`: the stream's /Subtype.
    public var mimeType: String
    /// What the file is, for a person (/Desc).
    public var description: String?
    public var modified: Date?

    public init(name: String, bytes: [UInt8], mimeType: String, description: String? = nil, modified: Date? = nil) {
        self.name = name; self.bytes = bytes; self.mimeType = mimeType
        self.description = description; self.modified = modified
    }
}

extension EmbeddedFile {
    /// Refuses what would make a broken or dangerous attachment (a reader saves it under its
    /// name: no directories in it).
    func check() throws {
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0 != "/" && $0 != "\\" && $0.value != 0x7F }),
              name != ".", name != ".." else {
            throw PDFError.refused("the attachment name '\(name)' is not a file name (empty, a path, or with control characters)")
        }
        let parts = mimeType.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty }),
              mimeType.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw PDFError.refused("the attachment '\(name)' has the MIME type '\(mimeType)', not type/subtype in ASCII")
        }
        guard bytes.count <= PDFLimits.maxFileBytes else {
            throw PDFError.tooLarge("the attachment '\(name)' has \(bytes.count) bytes (at most \(PDFLimits.maxFileBytes))")
        }
    }

    /// The embedded file stream (ISO 32000-2, 7.11.4): deflated, its size and time in /Params.
    func stream() throws -> PDFStream {
        var parameters = PDFDictionary([("Size", .integer(Int64(bytes.count)))])
        if let modified { parameters["ModDate"] = .string(Array(Self.pdfDate(modified).utf8)) }
        let dictionary = PDFDictionary([
            // The name's bytes are the MIME type; the writer makes its '/' #2F.
            ("Type", .name("EmbeddedFile")), ("Subtype", .name(PDFName(mimeType))),
            ("Params", .dictionary(parameters)), ("Filter", .name("FlateDecode")),
        ])
        return PDFStream(dictionary: dictionary, data: try Zlib.deflate(bytes)[...])
    }

    /// The file specification under `key` (the name it is listed by), its stream `embedded`.
    func fileSpecification(key: String, embedded: PDFReference) -> PDFDictionary {
        var spec = PDFDictionary([
            ("Type", .name("Filespec")),
            // /F is a byte string readers of PDF 1.x take as it is: ASCII, others made '_'.
            ("F", .string(key.unicodeScalars.map { $0.isASCII ? UInt8($0.value) : UInt8(ascii: "_") })),
            ("UF", .string(PDFText.encode(key))),
        ])
        if let description { spec["Desc"] = .string(PDFText.encode(description)) }
        spec["AFRelationship"] = .name("Data")
        spec["EF"] = .dictionary(PDFDictionary([("F", .reference(embedded)), ("UF", .reference(embedded))]))
        return spec
    }

    /// `D:YYYYMMDDHHmmSSZ`, in UTC.
    static func pdfDate(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = civil(daysSince1970: days)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "D:\(yearText)\(two(month))\(two(day))\(two(time / 3600))\(two(time / 60 % 60))\(two(time % 60))Z"
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (H. Hinnant's civil_from_days).
    static func civil(daysSince1970 z: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
