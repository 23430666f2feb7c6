// SPDX-License-Identifier: Apache-2.0
/// Objects as PDF syntax: what the update writes. A rewritten object keeps what the reader
/// found (names and strings byte for byte, reals at full precision, its entries' order).
enum PDFSerializer {
    static func bytes(_ object: PDFObject) throws -> [UInt8] {
        var out: [UInt8] = []
        try append(object, to: &out, depth: 0)
        return out
    }

    static func append(_ object: PDFObject, to out: inout [UInt8], depth: Int) throws {
        guard depth < PDFLimits.maxNesting else { throw PDFError.tooLarge("an object nested more than \(PDFLimits.maxNesting) deep to write") }
        switch object {
        case .null: out += Array("null".utf8)
        case .bool(let v): out += Array((v ? "true" : "false").utf8)
        case .integer(let v): out += Array(String(v).utf8)
        case .real(let v):
            guard v.isFinite else { throw PDFError.refused("a number that is not finite (\(v)) cannot be written") }
            out += Array(number(v).utf8)
        case .string(let s): appendString(s, to: &out)
        case .name(let n): appendName(n, to: &out)
        case .reference(let r): out += Array("\(r.number) \(r.generation) R".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x20) }
                try append(item, to: &out, depth: depth + 1)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let d):
            try appendDictionary(d, to: &out, depth: depth)
        case .stream(let s):
            var dictionary = s.dictionary
            dictionary["Length"] = .integer(Int64(s.data.count))
            try appendDictionary(dictionary, to: &out, depth: depth)
            out += Array("\nstream\n".utf8)
            out += s.data
            out += Array("\nendstream".utf8)
        }
    }

    private static func appendDictionary(_ d: PDFDictionary, to out: inout [UInt8], depth: Int) throws {
        out += Array("<<".utf8)
        for entry in d.entries {
            out.append(0x20)
            appendName(entry.key, to: &out)
            out.append(0x20)
            try append(entry.value, to: &out, depth: depth + 1)
        }
        out += Array(" >>".utf8)
    }

    /// `(text)` with `\ ( )` escaped when the bytes are printable ASCII; else `<hex>` (a UTF-16
    /// name, an /ID), which no reader can misread.
    static func appendString(_ s: [UInt8], to out: inout [UInt8]) {
        let digits = Array("0123456789ABCDEF".utf8)
        guard s.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
            out.append(UInt8(ascii: "<"))
            for b in s { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
            out.append(UInt8(ascii: ">"))
            return
        }
        out.append(UInt8(ascii: "("))
        for b in s {
            if b == UInt8(ascii: "\\") || b == UInt8(ascii: "(") || b == UInt8(ascii: ")") { out.append(UInt8(ascii: "\\")) }
            out.append(b)
        }
        out.append(UInt8(ascii: ")"))
    }

    /// `/Name`, with `#xx` for bytes that are not regular printable characters (and `#` itself).
    static func appendName(_ n: PDFName, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "/"))
        let digits = Array("0123456789ABCDEF".utf8)
        for b in n.bytes {
            if b > 0x20 && b < 0x7F && b != UInt8(ascii: "#") && PDFLexer.isRegular(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "#")); out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)])
            }
        }
    }

    /// A real without an exponent (PDF has none): Swift's shortest exact form when it has no
    /// exponent, else fixed with up to 10 decimals.
    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        let shortest = "\(v)"
        if !shortest.contains("e") { return shortest }
        return fixed(v, decimals: 10)
    }

    /// `v` with at most `decimals` decimals, trailing zeros dropped (`0.5`, `-12.25`, `3`).
    static func fixed(_ v: Double, decimals: Int) -> String {
        let scale = (0..<decimals).reduce(1.0) { r, _ in r * 10 }
        // Beyond ±1e15 a PDF number means nothing anyway: clamped, so that Int64 cannot overflow.
        let clamped = min(max(v, -1e15), 1e15)
        let whole = clamped.rounded(.towardZero)
        var fraction = Int64(((abs(clamped - whole)) * scale).rounded())
        var integer = Int64(abs(whole))
        if Double(fraction) >= scale { integer += 1; fraction = 0 }
        var text = String(fraction)
        text = String(repeating: "0", count: max(0, decimals - text.count)) + text
        while text.hasSuffix("0") { text.removeLast() }
        let negative = clamped < 0 && (integer != 0 || !text.isEmpty)
        return (negative ? "-" : "") + String(integer) + (text.isEmpty ? "" : "." + text)
    }
}
