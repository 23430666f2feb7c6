// SPDX-License-Identifier: Apache-2.0
/// Text strings (a field's /T, ISO 32000-1, 7.9.2.2): UTF-16BE after the bytes FE FF, UTF-8
/// after EF BB BF (PDF 2.0), else PDFDocEncoding (Latin-1 but for a few bytes).
public enum PDFText {
    public static func decode(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xFE, 0xFF]) {
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var i = 2
            while i + 1 < bytes.count {
                units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
                i += 2
            }
            return String(decoding: units, as: UTF16.self)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return String(decoding: bytes.dropFirst(3), as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        for b in bytes { scalars.append(docEncoding(b)) }
        return String(scalars)
    }

    /// PDFDocEncoding when the text can be written in it (ASCII, printable), else UTF-16BE with its mark.
    public static func encode(_ text: String) -> [UInt8] {
        if text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { return Array(text.utf8) }
        var out: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 { out.append(UInt8(unit >> 8)); out.append(UInt8(unit & 0xFF)) }
        return out
    }

    /// The bytes PDFDocEncoding gives other characters than Latin-1 (Annex D.2); 0x7F, 0x9F and 0xAD are undefined.
    private static let special: [UInt8: UInt32] = [
        0x18: 0x02D8, 0x19: 0x02C7, 0x1A: 0x02C6, 0x1B: 0x02D9, 0x1C: 0x02DD, 0x1D: 0x02DB, 0x1E: 0x02DA, 0x1F: 0x02DC,
        0x80: 0x2022, 0x81: 0x2020, 0x82: 0x2021, 0x83: 0x2026, 0x84: 0x2014, 0x85: 0x2013, 0x86: 0x0192, 0x87: 0x2044,
        0x88: 0x2039, 0x89: 0x203A, 0x8A: 0x2212, 0x8B: 0x2030, 0x8C: 0x201E, 0x8D: 0x201C, 0x8E: 0x201D, 0x8F: 0x2018,
        0x90: 0x2019, 0x91: 0x201A, 0x92: 0x2122, 0x93: 0xFB01, 0x94: 0xFB02, 0x95: 0x0141, 0x96: 0x0152, 0x97: 0x0160,
        0x98: 0x0178, 0x99: 0x017D, 0x9A: 0x0131, 0x9B: 0x0142, 0x9C: 0x0153, 0x9D: 0x0161, 0x9E: 0x017E, 0xA0: 0x20AC,
        0x7F: 0xFFFD, 0x9F: 0xFFFD, 0xAD: 0xFFFD,
    ]

    private static func docEncoding(_ b: UInt8) -> Unicode.Scalar {
        if let code = special[b], let scalar = Unicode.Scalar(code) { return scalar }
        return Unicode.Scalar(b)
    }
}
