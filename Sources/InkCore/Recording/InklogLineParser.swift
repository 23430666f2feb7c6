// SPDX-License-Identifier: Apache-2.0
/// Reads one `.inklog` event line straight from its bytes into an `InklogLine`: strict JSON (one
/// object; strings, numbers, true, false, null; nothing after it), with the line format's own
/// fields and types. A recording has one such line per event, so this is most of a read; it
/// never builds a dictionary, a `Data` or an intermediate JSON value.
///
/// What it accepts is what `JSONDecoder` accepts for `InklogLine` (tests compare the two on
/// random valid lines and on randomly broken ones), except two things JSON does not allow and
/// JSONDecoder lets through: a field given twice (it keeps the first) and a comma before the
/// closing brace. `null` means the field is absent, as with `decodeIfPresent`. Errors are
/// sentences a person can act on, with the column where the line went wrong.
struct InklogLineParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The line's first byte and length (`bytes` without its checks, for the hot loops).
    private let p: UnsafePointer<UInt8>
    private let n: Int
    private var i = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>) {
        self.bytes = bytes
        n = bytes.count
        p = base
    }

    /// The fields of one event line. The header (line 1) has nested device objects and is read
    /// by `JSONDecoder`; its fields in an event line are an error here.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> InklogLine {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw LineProblem(text: "empty line") }
        var parser = InklogLineParser(bytes, base: base)
        return try parser.line()
    }

    /// Why `bytes` are not one JSON value (with the column), or nil when they are: the detail
    /// for a line `JSONDecoder` rejects as "not valid JSON" (the header), which says no more.
    static func syntaxProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return "empty line" }
        var parser = InklogLineParser(bytes, base: base)
        do {
            parser.skipSpace()
            try parser.skipValue(depth: 0)
            parser.skipSpace()
            if parser.i < parser.n { throw parser.syntax("unexpected text after the value") }
        } catch let problem as LineProblem {
            return problem.text
        } catch {
            return "\(error)"
        }
        return nil
    }

    // MARK: the object

    private mutating func line() throws -> InklogLine {
        var line = InklogLine()
        var seen: UInt32 = 0
        var unknown: String?
        skipSpace()
        guard peek == UInt8(ascii: "{") else { throw syntax("expected '{'") }
        i += 1
        skipSpace()
        if peek == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw syntax("expected a field name in double quotes") }
                let name = try fieldName()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw syntax("expected ':' after the field name") }
                i += 1
                skipSpace()
                switch name {
                case .known(let key):
                    let bit: UInt32 = 1 << key.bit
                    guard seen & bit == 0 else { throw LineProblem(text: "field '\(key.rawValue)' appears twice") }
                    seen |= bit
                    try value(for: key, into: &line)
                case .unknown(let text):
                    // Reported once the line is known to be JSON, the first in sorted order (as before).
                    if unknown.map({ text < $0 }) ?? true { unknown = text }
                    try skipValue(depth: 0)
                }
                skipSpace()
                if peek == UInt8(ascii: ",") { i += 1; continue }
                if peek == UInt8(ascii: "}") { i += 1; break }
                throw syntax("expected ',' or '}' after a value")
            }
        }
        skipSpace()
        guard i == bytes.count else { throw syntax("unexpected text after the object") }
        if let unknown { throw LineProblem(text: "unknown field '\(unknown)'") }
        return line
    }

    private mutating func value(for key: InklogLine.Key, into line: inout InklogLine) throws {
        if try null() { return }
        switch key {
        case .inklog, .devices: throw LineProblem(text: "a header field in an event line")
        case .t: line.t = try number(key)
        case .dev: line.dev = try integer(key)
        case .ev: line.ev = try string(key)
        case .isIn: line.isIn = try bool(key)
        case .down: line.down = try bool(key)
        case .tool: line.tool = try string(key)
        case .serial: line.serial = try integer(key)
        case .button: line.button = try integer(key)
        case .pressed: line.pressed = try bool(key)
        case .slot: line.slot = try integer(key)
        case .x: line.x = try number(key)
        case .y: line.y = try number(key)
        case .pressure: line.pressure = try number(key)
        case .distance: line.distance = try number(key)
        case .tiltX: line.tiltX = try number(key)
        case .tiltY: line.tiltY = try number(key)
        case .rotation: line.rotation = try number(key)
        case .slider: line.slider = try number(key)
        }
    }

    // MARK: field names

    private enum FieldName { case known(InklogLine.Key), unknown(String) }

    /// A field name (at its opening quote). Every known name is at most 8 ASCII bytes: packed
    /// into a UInt64 (first byte lowest) while it is scanned, it is found by one integer switch.
    /// Names with escapes take the slow way.
    private mutating func fieldName() throws -> FieldName {
        let start = i + 1
        var j = start
        var packed: UInt64 = 0
        while j < n {
            let b = p[j]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            if j - start < 8 { packed |= UInt64(b) << (8 * UInt64(j - start)) }
            j += 1
        }
        if j < n, p[j] == UInt8(ascii: "\"") {
            i = j + 1
            if j - start <= 8, let key = Self.key(packed: packed) { return .known(key) }
            return .unknown(String(decoding: UnsafeBufferPointer(start: p + start, count: j - start), as: UTF8.self))
        }
        let text = try rawString(field: nil)
        if let key = InklogLine.Key(rawValue: text) { return .known(key) }
        return .unknown(text)
    }

    /// The field whose name packs to `packed` (its bytes, the first lowest). A test checks
    /// every name against this table.
    static func key(packed: UInt64) -> InklogLine.Key? {
        switch packed {
        case 0x74: .t                          // "t"
        case 0x766564: .dev                    // "dev"
        case 0x7665: .ev                       // "ev"
        case 0x78: .x                          // "x"
        case 0x79: .y                          // "y"
        case 0x6572757373657270: .pressure     // "pressure"
        case 0x65636E6174736964: .distance     // "distance"
        case 0x58746C6974: .tiltX              // "tiltX"
        case 0x59746C6974: .tiltY              // "tiltY"
        case 0x6E6F697461746F72: .rotation     // "rotation"
        case 0x726564696C73: .slider           // "slider"
        case 0x6E69: .isIn                     // "in"
        case 0x6E776F64: .down                 // "down"
        case 0x6C6F6F74: .tool                 // "tool"
        case 0x6C6169726573: .serial           // "serial"
        case 0x6E6F74747562: .button           // "button"
        case 0x64657373657270: .pressed        // "pressed"
        case 0x746F6C73: .slot                 // "slot"
        case 0x676F6C6B6E69: .inklog           // "inklog"
        case 0x73656369766564: .devices        // "devices"
        default: nil
        }
    }

    // MARK: values

    private mutating func null() throws -> Bool {
        guard peek == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func bool(_ key: InklogLine.Key) throws -> Bool {
        switch peek {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw try mismatch(key, "true or false")
        }
    }

    private mutating func string(_ key: InklogLine.Key) throws -> String {
        guard peek == UInt8(ascii: "\"") else { throw try mismatch(key, "a string") }
        return try rawString(field: key.rawValue)
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard i + count <= bytes.count else { i = bytes.count; throw syntax("") }
        for n in 0..<count where bytes[i + n] != word.utf8Start[n] {
            i += n
            throw syntax("expected '\(word)'")
        }
        i += count
    }

    /// A value of the wrong type is a type error if it is a JSON value, else a syntax error.
    private mutating func mismatch(_ key: InklogLine.Key, _ expected: String) throws -> LineProblem {
        let at = i
        try skipValue(depth: 0)
        i = at
        return LineProblem(text: "field '\(key.rawValue)': expected \(expected)")
    }

    // MARK: numbers

    /// The parts of a JSON number: its digits as an integer (while they fit), the power of ten,
    /// whether it had a fraction or exponent, and its text.
    private struct NumberText {
        var negative = false
        var mantissa: UInt64 = 0
        var digits = 0            // significant digits kept in mantissa
        var dropped = false       // digits beyond 19 (or a mantissa overflow)
        var exponent = 0          // value = mantissa × 10^exponent (when !dropped)
        var integral = true       // no fraction and no exponent
        var range: Range<Int> = 0..<0

        /// One more digit; past 19 significant digits the exact path gives up (`dropped`).
        mutating func take(_ b: UInt8) {
            guard digits < 19 else { dropped = true; return }
            mantissa = mantissa * 10 + UInt64(b - UInt8(ascii: "0"))
            if mantissa != 0 { digits += 1 }
        }
    }

    private mutating func numberText(_ key: InklogLine.Key, _ expected: String) throws -> NumberText {
        var t = NumberText()
        let start = i
        var j = i
        if j < n, p[j] == UInt8(ascii: "-") { t.negative = true; j += 1 }
        guard j < n, isDigit(p[j]) else {
            i = j
            if t.negative { throw syntax("expected a digit after '-'") }
            throw try mismatch(key, expected)
        }
        if p[j] == UInt8(ascii: "0") {
            j += 1
            if j < n, isDigit(p[j]) { i = j; throw syntax("a number may not start with 0") }
        } else {
            while j < n, isDigit(p[j]) { t.take(p[j]); j += 1 }
        }
        if j < n, p[j] == UInt8(ascii: ".") {
            j += 1
            t.integral = false
            guard j < n, isDigit(p[j]) else { i = j; throw syntax("expected a digit after '.'") }
            while j < n, isDigit(p[j]) { t.take(p[j]); t.exponent -= 1; j += 1 }
        }
        if j < n, p[j] == UInt8(ascii: "e") || p[j] == UInt8(ascii: "E") {
            j += 1
            t.integral = false
            var negativeExponent = false
            if j < n, p[j] == UInt8(ascii: "+") || p[j] == UInt8(ascii: "-") { negativeExponent = p[j] == UInt8(ascii: "-"); j += 1 }
            guard j < n, isDigit(p[j]) else { i = j; throw syntax("expected a digit in the exponent") }
            var e = 0
            while j < n, isDigit(p[j]) { e = min(e * 10 + Int(p[j] - UInt8(ascii: "0")), 100_000); j += 1 }
            t.exponent += negativeExponent ? -e : e
        }
        i = j
        t.range = start..<j
        return t
    }

    private static let powersOfTen: [Double] = (0...22).map { p in (0..<p).reduce(1.0) { acc, _ in acc * 10 } }

    private mutating func number(_ key: InklogLine.Key) throws -> Double {
        let n = try numberText(key, "a number")
        let value: Double
        // Exact mantissa and power of ten: one correctly rounded multiply or divide, the same
        // double as a full parse (both operands are exact). Anything else takes the full parse.
        if !n.dropped, n.mantissa <= 1 << 53, abs(n.exponent) <= 22 {
            let m = Double(n.mantissa)
            value = n.exponent < 0 ? m / Self.powersOfTen[-n.exponent] : m * Self.powersOfTen[n.exponent]
        } else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[n.range]), as: UTF8.self)
            guard let parsed = Double(text) else { throw LineProblem(text: "field '\(key.rawValue)': cannot read the number \(text)") }
            // Too large or too small for a double (1e999, 1e-999): say so, as JSONDecoder refuses them.
            if !parsed.isFinite || (parsed == 0 && n.mantissa != 0) {
                throw LineProblem(text: "field '\(key.rawValue)': the number \(text) is not representable as a double")
            }
            return parsed
        }
        return n.negative ? -value : value
    }

    private mutating func integer(_ key: InklogLine.Key) throws -> Int {
        let n = try numberText(key, "an integer")
        if n.integral, !n.dropped, n.mantissa <= UInt64(Int.max) {
            return n.negative ? -Int(n.mantissa) : Int(n.mantissa)
        }
        // 1.0 and 1e2 are integers to JSONDecoder too; 1.5 and 1e30 are not.
        i = n.range.lowerBound
        let v = try number(key)
        guard v == v.rounded(), abs(v) < 9.2e18 else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[n.range]), as: UTF8.self)
            throw LineProblem(text: "field '\(key.rawValue)': expected an integer, found \(text)")
        }
        return Int(v)
    }

    // MARK: strings

    /// A string value (at its opening quote), escapes decoded; not valid UTF-8 is an error.
    private mutating func rawString(field: String?) throws -> String {
        i += 1
        let start = i
        var plain = true
        var ascii = true
        while true {
            guard i < n else { throw syntax("") }
            let b = p[i]
            if b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "\\") { plain = false; break }
            if b < 0x20 { throw syntax("a control character in a string (write it as an escape)") }
            if b >= 0x80 { ascii = false }
            i += 1
        }
        if plain {
            let slice = UnsafeBufferPointer(start: p + start, count: i - start)
            i += 1
            if ascii { return String(decoding: slice, as: UTF8.self) }
            if let s = String(validating: slice, as: UTF8.self) { return s }
            throw notUTF8(field, column: start + 1)
        }
        var out: [UInt8] = Array(bytes[start..<i])
        while true {
            guard i < bytes.count else { throw syntax("") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw syntax("a control character in a string (write it as an escape)") }
            guard b == UInt8(ascii: "\\") else { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw syntax("") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate needs its low half: \uD83D\uDE00.
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw syntax("a lone surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw syntax("a lone surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw syntax("a lone surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw syntax("not a Unicode scalar in \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                i -= 1
                throw syntax("an unknown escape in a string")
            }
        }
        if let s = String(validating: out, as: UTF8.self) { return s }
        throw notUTF8(field, column: start + 1)
    }

    private mutating func hex4() throws -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < bytes.count else { throw syntax("") }
            let b = bytes[i]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw syntax("expected four hex digits after \\u")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    // MARK: skipping (unknown fields, and telling a wrong type from a syntax error)

    private mutating func skipValue(depth: Int) throws {
        guard depth < 32 else { throw LineProblem(text: "values nested too deeply") }
        switch peek {
        case UInt8(ascii: "\""): _ = try rawString(field: nil)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try numberText(.x, "a number")
        case UInt8(ascii: "["):
            i += 1
            skipSpace()
            if peek == UInt8(ascii: "]") { i += 1; return }
            while true {
                skipSpace()
                try skipValue(depth: depth + 1)
                skipSpace()
                if peek == UInt8(ascii: ",") { i += 1; continue }
                if peek == UInt8(ascii: "]") { i += 1; return }
                throw syntax("expected ',' or ']' in a list")
            }
        case UInt8(ascii: "{"):
            i += 1
            skipSpace()
            if peek == UInt8(ascii: "}") { i += 1; return }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw syntax("expected a field name in double quotes") }
                _ = try rawString(field: nil)
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw syntax("expected ':' after the field name") }
                i += 1
                skipSpace()
                try skipValue(depth: depth + 1)
                skipSpace()
                if peek == UInt8(ascii: ",") { i += 1; continue }
                if peek == UInt8(ascii: "}") { i += 1; return }
                throw syntax("expected ',' or '}' after a value")
            }
        default:
            throw syntax("expected a value")
        }
    }

    // MARK: bytes

    /// The byte at the cursor, or 0 at the end of the line (never valid where a token is expected).
    private var peek: UInt8 { i < n ? p[i] : 0 }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private mutating func skipSpace() {
        while i < n {
            switch p[i] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): i += 1
            default: return
            }
        }
    }

    /// A syntax error at the cursor: what was expected, what was found, and the column. A byte
    /// that is not UTF-8 is named as such: the line is not text.
    private func syntax(_ expected: String) -> LineProblem {
        guard i < bytes.count else { return LineProblem(text: "not valid JSON: Unexpected end of the line (column \(i + 1))") }
        let b = bytes[i]
        if b >= 0x80 {
            if String(validating: bytes, as: UTF8.self) == nil {
                return LineProblem(text: "the line is not valid UTF-8 (byte 0x\(String(b, radix: 16)) at column \(i + 1))")
            }
            return LineProblem(text: "not valid JSON: \(expected) at column \(i + 1), found a non-ASCII character")
        }
        let found = b < 0x20 ? "a control character" : "'\(Character(Unicode.Scalar(b)))'"
        return LineProblem(text: "not valid JSON: \(expected.isEmpty ? "unexpected" : expected) at column \(i + 1), found \(found)")
    }

    private func notUTF8(_ field: String?, column: Int) -> LineProblem {
        LineProblem(text: "\(field.map { "field '\($0)': " } ?? "")the string at column \(column) is not valid UTF-8")
    }
}

extension InklogLine.Key {
    /// A bit per field, for noticing one given twice.
    var bit: Int {
        switch self {
        case .inklog: 0
        case .devices: 1
        case .t: 2
        case .dev: 3
        case .ev: 4
        case .isIn: 5
        case .down: 6
        case .tool: 7
        case .serial: 8
        case .button: 9
        case .pressed: 10
        case .slot: 11
        case .x: 12
        case .y: 13
        case .pressure: 14
        case .distance: 15
        case .tiltX: 16
        case .tiltY: 17
        case .rotation: 18
        case .slider: 19
        }
    }
}
