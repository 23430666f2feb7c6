// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkDocument

/// A PDF value as two readers can both state it: what the differential tests compare. Names as
/// qpdf writes them in JSON (`/Type`), references
/// as `12 0 R`, strings as bytes on our side and as qpdf's `u:`/`b:` text on its side (compared
/// by `same`), numbers as doubles.
public indirect enum ReadValue: Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    /// Our side: the string's bytes.
    case bytes([UInt8])
    /// qpdf's side: `u:` and the text, or `b:` and hex.
    case text(String)
    case name(String)
    case reference(String)
    case array([ReadValue])
    case dictionary([String: ReadValue])
    /// A stream: its dictionary, and its bytes as the file holds them.
    case stream([String: ReadValue], [UInt8])

    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let d): d == d.rounded() && abs(d) < 1e15 ? "\(Int64(d))" : "\(d)"
        case .bytes(let b): "<\(b.map { String($0, radix: 16) }.joined())>"
        case .text(let t): "(\(t))"
        case .name(let n): n
        case .reference(let r): r
        case .array(let items): "[" + items.map(\.description).joined(separator: " ") + "]"
        case .dictionary(let d): "<<" + d.keys.sorted().map { "\($0) \(d[$0]!)" }.joined(separator: " ") + ">>"
        case .stream(let d, let data): "stream<<" + d.keys.sorted().map { "\($0) \(d[$0]!)" }.joined(separator: " ") + ">> \(data.count) bytes"
        }
    }

    /// Whether two readings of a value are the same: equal numbers (to a millionth), the same
    /// string read as bytes or as qpdf's text, the same keys with the same values.
    public static func same(_ a: ReadValue, _ b: ReadValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return abs(x - y) <= 1e-6 * max(1, abs(x), abs(y))
        case (.name(let x), .name(let y)), (.reference(let x), .reference(let y)), (.text(let x), .text(let y)): return x == y
        case (.bytes(let x), .bytes(let y)): return x == y
        case (.bytes(let x), .text(let t)), (.text(let t), .bytes(let x)): return QPDFStrings.matches(x, t)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.dictionary(let x), .dictionary(let y)): return sameKeys(x, y)
        case (.stream(let x, let dx), .stream(let y, let dy)): return dx == dy && sameKeys(x, y)
        default: return false
        }
    }

    private static func sameKeys(_ x: [String: ReadValue], _ y: [String: ReadValue]) -> Bool {
        Set(x.keys) == Set(y.keys) && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
    }

    public var numberValue: Double? { if case .number(let d) = self { d } else { nil } }
    public var referenceValue: String? { if case .reference(let r) = self { r } else { nil } }
    public var dictionaryValue: [String: ReadValue]? {
        switch self {
        case .dictionary(let d), .stream(let d, _): d
        default: nil
        }
    }
    public var arrayValue: [ReadValue]? { if case .array(let a) = self { a } else { nil } }
}

/// How qpdf writes names and strings in its JSON (version 2).
enum QPDFStrings {
    /// `/Name` and the name's bytes as they are (qpdf writes them so, valid UTF-8 or not; bytes
    /// that are not UTF-8 are compared as U+FFFD on both sides).
    static func name(_ bytes: [UInt8]) -> String { "/" + String(decoding: bytes, as: UTF8.self) }

    /// Whether qpdf's `u:text` or `b:hex` is the string `bytes`.
    static func matches(_ bytes: [UInt8], _ written: String) -> Bool {
        if written.hasPrefix("b:") {
            return written.dropFirst(2).lowercased() == bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        guard written.hasPrefix("u:") else { return false }
        return String(written.dropFirst(2)) == PDFText.decode(bytes)
    }
}
