// SPDX-License-Identifier: Apache-2.0
import InkCore
/// One token of PDF syntax.
enum PDFToken: Equatable {
    case integer(Int64)
    case real(Double)
    case string([UInt8])
    case name(PDFName)
    case arrayOpen, arrayClose, dictionaryOpen, dictionaryClose
    /// A bare word: true, false, null, obj, endobj, stream, R, xref, trailer, n, f, …
    case keyword([UInt8])

    func isKeyword(_ word: String) -> Bool {
        if case .keyword(let bytes) = self { return bytes.elementsEqual(word.utf8) }
        return false
    }

    var text: String {
        switch self {
        case .integer(let v): "\(v)"
        case .real(let v): "\(v)"
        case .string: "a string"
        case .name(let n): "\(n)"
        case .arrayOpen: "'['"
        case .arrayClose: "']'"
        case .dictionaryOpen: "'<<'"
        case .dictionaryClose: "'>>'"
        case .keyword(let bytes): "'\(String(decoding: bytes.prefix(32), as: UTF8.self))'"
        }
    }
}

/// Splits bytes into tokens (ISO 32000-1, 7.2–7.3), from `position` up to `end`. Every read is
/// checked against `end`, every token's size against `PDFLimits`; errors name the offset.
struct PDFLexer {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    init(_ bytes: [UInt8], at position: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.end = min(end ?? bytes.count, bytes.count)
        self.position = max(0, min(position, self.end))
    }

    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 || b == 0x0C || b == 0x00 }
    static func isDelimiter(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "["),
             UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "/"), UInt8(ascii: "%"): true
        default: false
        }
    }
    static func isRegular(_ b: UInt8) -> Bool { !isWhitespace(b) && !isDelimiter(b) }

    var atEnd: Bool { position >= end }
    func byte(at i: Int) -> UInt8? { i >= 0 && i < end ? bytes[i] : nil }
    var peek: UInt8? { byte(at: position) }

    /// Skips white space and comments.
    mutating func skipSpace() {
        while let b = peek {
            if Self.isWhitespace(b) {
                position += 1
            } else if b == UInt8(ascii: "%") {
                while let c = peek, c != 0x0A, c != 0x0D { position += 1 }
            } else {
                return
            }
        }
    }

    /// The next token, or nil at the end of the bytes.
    mutating func next() throws -> PDFToken? {
        skipSpace()
        guard let b = peek else { return nil }
        let start = position
        switch b {
        case UInt8(ascii: "["): position += 1; return .arrayOpen
        case UInt8(ascii: "]"): position += 1; return .arrayClose
        case UInt8(ascii: "<"):
            if byte(at: position + 1) == UInt8(ascii: "<") { position += 2; return .dictionaryOpen }
            return .string(try hexString())
        case UInt8(ascii: ">"):
            if byte(at: position + 1) == UInt8(ascii: ">") { position += 2; return .dictionaryClose }
            throw PDFError.malformed("a lone '>'", at: start)
        case UInt8(ascii: "("): return .string(try literalString())
        case UInt8(ascii: "/"): return .name(try name())
        case UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            position += 1
            throw PDFError.malformed("unexpected '\(Character(Unicode.Scalar(b)))'", at: start)
        default:
            if b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || (0x30...0x39).contains(b) {
                return try number()
            }
            while let c = peek, Self.isRegular(c), position - start < PDFLimits.maxNameBytes { position += 1 }
            return .keyword(Array(bytes[start..<position]))
        }
    }

    /// `[+-]digits[.digits]`; an integer too large for 64 bits is read as a real, as readers do.
    private mutating func number() throws -> PDFToken {
        let start = position
        while let c = peek, Self.isRegular(c) { position += 1 }
        let token = bytes[start..<position]
        guard token.count <= PDFLimits.maxNumberCharacters else {
            throw PDFError.tooLarge("a number of \(token.count) characters", at: start)
        }
        var digits = token[...]
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        let dots = digits.filter { $0 == UInt8(ascii: ".") }.count
        let valid = !digits.isEmpty && dots <= 1 && digits.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
            && digits.contains { (0x30...0x39).contains($0) }
        guard valid else {
            throw PDFError.malformed("'\(String(decoding: token, as: UTF8.self))' is not a number", at: start)
        }
        if dots == 0 {
            var value: Int64 = 0
            var overflow = false
            for d in digits {
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int64(d - 0x30))
                overflow = overflow || o1 || o2
                value = sum
            }
            if !overflow { return .integer(negative ? -value : value) }
        }
        // Only digits, a sign and one dot get here: what Double's parser reads as written.
        let text = String(decoding: token, as: UTF8.self)
        guard let value = Double(text.hasSuffix(".") ? text + "0" : text), value.isFinite else {
            throw PDFError.malformed("'\(text)' is not a number", at: start)
        }
        return .real(value)
    }

    /// `/Name`, with `#xx` escapes decoded. A `#` not followed by two hex digits, or `#00`, is
    /// refused: readers keep it, drop it or cut the name there.
    private mutating func name() throws -> PDFName {
        let start = position
        position += 1
        var out: [UInt8] = []
        while let c = peek, Self.isRegular(c) {
            if c == UInt8(ascii: "#") {
                guard let h = byte(at: position + 1).flatMap(hexDigitValue), let l = byte(at: position + 2).flatMap(hexDigitValue),
                      h << 4 | l != 0 else {
                    throw PDFError.ambiguous("a name with a '#' that is not an escape ('#' and two hex digits, not #00)", at: position)
                }
                out.append(h << 4 | l)
                position += 3
            } else {
                // A control character in a name ends it for some readers.
                guard c > 0x20, c != 0x7F else {
                    throw PDFError.ambiguous("a name with the control character \(c) in it (readers end the name there or not)", at: position)
                }
                out.append(c)
                position += 1
            }
            // The format's limit: poppler warns past it, other readers cut the name there.
            guard out.count <= PDFLimits.maxNameBytes else {
                throw PDFError.ambiguous("a name longer than the format's \(PDFLimits.maxNameBytes) bytes (readers cut it or not)", at: start)
            }
        }
        return PDFName(bytes: out)
    }

    /// `<48656C6C6F>`: white space ignored, an odd last digit taken as followed by 0.
    private mutating func hexString() throws -> [UInt8] {
        let start = position
        position += 1
        var out: [UInt8] = []
        var high: UInt8?
        while true {
            guard let c = peek else { throw PDFError.malformed("a hex string that never ends", at: start) }
            position += 1
            if c == UInt8(ascii: ">") { break }
            if Self.isWhitespace(c) { continue }
            guard let v = hexDigitValue(c) else { throw PDFError.malformed("a hex string with the byte \(c) in it", at: position - 1) }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
            guard out.count <= PDFLimits.maxStringBytes else { throw PDFError.tooLarge("a string longer than \(PDFLimits.maxStringBytes) bytes", at: start) }
        }
        if let h = high { out.append(h << 4) }
        return out
    }

    /// `(text)`: balanced parentheses, backslash escapes, end-of-line in the string made LF.
    private mutating func literalString() throws -> [UInt8] {
        let start = position
        position += 1
        var out: [UInt8] = []
        var depth = 1
        while true {
            guard let c = peek else { throw PDFError.malformed("a string that never ends", at: start) }
            position += 1
            guard out.count <= PDFLimits.maxStringBytes else { throw PDFError.tooLarge("a string longer than \(PDFLimits.maxStringBytes) bytes", at: start) }
            switch c {
            case UInt8(ascii: "("):
                depth += 1
                out.append(c)
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return out }
                out.append(c)
            case 0x0D:
                if peek == 0x0A { position += 1 }
                out.append(0x0A)
            case UInt8(ascii: "\\"):
                guard let e = peek else { continue }
                position += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case 0x0D: if peek == 0x0A { position += 1 }   // a line continued
                case 0x0A: break
                case 0x30...0x37:
                    var value = UInt32(e - 0x30)
                    for _ in 0..<2 {
                        guard let d = peek, (0x30...0x37).contains(d) else { break }
                        value = value * 8 + UInt32(d - 0x30)
                        position += 1
                    }
                    out.append(UInt8(truncatingIfNeeded: value))   // \777 overflows: the low byte, as readers do
                default: out.append(e)   // \( \) \\ and any other: the byte itself
                }
            default:
                out.append(c)
            }
        }
    }

    /// After the keyword `stream`: its end of line (CRLF or LF; a lone CR is taken too).
    mutating func skipStreamEndOfLine() {
        if peek == 0x0D { position += 1 }
        if peek == 0x0A { position += 1 }
    }

    /// Whether `word` is at `position`, followed by a delimiter, white space or the end.
    func hasKeyword(_ word: String, at i: Int) -> Bool {
        var j = i
        for w in word.utf8 {
            guard byte(at: j) == w else { return false }
            j += 1
        }
        return byte(at: j).map { !Self.isRegular($0) } ?? true
    }
}
