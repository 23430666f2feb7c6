// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// Finds an object key given twice in a JSON text. Foundation's decoders keep the last of two
/// equal keys without a word, so `{"timeout": 5, "timeout": 3600}` would pass for one value.
/// Keys are compared after unescaping (`"a"` and `"\u0061"` are the same key) and as Swift
/// strings, as the decoder compares them.
enum JSONKeyCheck {
    enum Finding: Equatable {
        /// The repeated key's path: `prompt`, `outer.inner`, `list[2].key`.
        case duplicate(path: String)
        case tooDeep
    }

    /// Deeper nesting is refused rather than followed (the scan recurses once per level).
    static let deepest = 64

    /// The first repeated key, or `.tooDeep`; nil when every object's keys differ, and also
    /// when the text is not JSON at all (the decoder then says what is wrong with it).
    static func check(_ data: Data) -> Finding? {
        var scanner = Scanner(bytes: Array(data))
        do {
            try scanner.value(path: "", depth: 0)
            scanner.skipSpace()
            return nil
        } catch .found(let finding) {
            return finding
        } catch {
            return nil
        }
    }

    private enum Stop: Error { case found(Finding), malformed }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0

        mutating func skipSpace() {
            while i < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(Stop) {
            skipSpace()
            guard i < bytes.count, bytes[i] == byte else { throw .malformed }
            i += 1
        }

        /// Consumes `byte` if it comes next.
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
            return true
        }

        mutating func value(path: String, depth: Int) throws(Stop) {
            skipSpace()
            guard i < bytes.count else { throw .malformed }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                guard depth < JSONKeyCheck.deepest else { throw .found(.tooDeep) }
                i += 1
                if take(UInt8(ascii: "}")) { return }
                var keys = Set<String>()
                repeat {
                    skipSpace()
                    let key = try string()
                    let keyPath = path.isEmpty ? key : "\(path).\(key)"
                    guard keys.insert(key).inserted else { throw .found(.duplicate(path: keyPath)) }
                    try expect(UInt8(ascii: ":"))
                    try value(path: keyPath, depth: depth + 1)
                } while take(UInt8(ascii: ","))
                try expect(UInt8(ascii: "}"))
            case UInt8(ascii: "["):
                guard depth < JSONKeyCheck.deepest else { throw .found(.tooDeep) }
                i += 1
                if take(UInt8(ascii: "]")) { return }
                var index = 0
                repeat {
                    try value(path: "\(path)[\(index)]", depth: depth + 1)
                    index += 1
                } while take(UInt8(ascii: ","))
                try expect(UInt8(ascii: "]"))
            case UInt8(ascii: "\""):
                _ = try string()
            default:
                // A number, true, false or null: its exact form is the decoder's business.
                let start = i
                while i < bytes.count, !Set(",:]}\" \n\r\t".utf8).contains(bytes[i]) { i += 1 }
                guard i > start else { throw .malformed }
            }
        }

        /// A string at `i` (its opening quote), unescaped.
        mutating func string() throws(Stop) -> String {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw .malformed }
            i += 1
            var utf8: [UInt8] = []
            while i < bytes.count {
                let byte = bytes[i]
                i += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard i < bytes.count else { throw .malformed }
                    let escape = bytes[i]
                    i += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"): utf8 += try unicodeEscape()
                    default: throw .malformed
                    }
                default:
                    utf8.append(byte)
                }
            }
            throw .malformed
        }

        /// `\uXXXX` after its `\u`, with a following low surrogate when it is a high one.
        mutating func unicodeEscape() throws(Stop) -> [UInt8] {
            let unit = try hex4()
            var scalar = Unicode.Scalar(unit)
            if (0xD800...0xDBFF).contains(unit), i + 1 < bytes.count,
               bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                let mark = i
                i += 2
                let low = try hex4()
                if (0xDC00...0xDFFF).contains(low) {
                    scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                } else {
                    i = mark   // not a pair: the next escape is read on its own
                }
            }
            // A lone surrogate has no scalar; it stands as U+FFFD, as when decoding.
            return Array(String(Character(scalar ?? "\u{FFFD}")).utf8)
        }

        mutating func hex4() throws(Stop) -> UInt16 {
            guard i + 4 <= bytes.count, let value = UInt16(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
                throw .malformed
            }
            i += 4
            return value
        }
    }
}
