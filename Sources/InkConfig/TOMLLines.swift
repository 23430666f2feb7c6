// SPDX-License-Identifier: Apache-2.0
/// Where each key of a TOML file is written: key path → 1-based line. The parser tells the
/// values, not their lines; a person fixing a config needs the line.
/// Paths look like `display.rotation`, `tools.pen.width`, `device[1].match`; a table's own
/// path gives its header line.
struct TOMLLines {
    private(set) var lines: [String: Int] = [:]

    init(_ text: String) {
        var table: [String] = []
        var arrayCounts: [String: Int] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = Self.stripComment(String(raw)).trimmed(" \t\r")
            guard !line.isEmpty else { continue }
            if line.hasPrefix("[[") && line.hasSuffix("]]") {
                let name = Self.keyPath(String(line.dropFirst(2).dropLast(2)))
                let index = arrayCounts[name.joined(separator: "."), default: -1] + 1
                arrayCounts[name.joined(separator: ".")] = index
                table = Array(name.dropLast()) + ["\(name.last ?? "")[\(index)]"]
                record(table, number)
            } else if line.hasPrefix("[") && line.hasSuffix("]") {
                table = Self.keyPath(String(line.dropFirst().dropLast()))
                record(table, number)
            } else if let eq = Self.equalsOutsideQuotes(line) {
                record(table + Self.keyPath(String(line[..<eq])), number)
            }
        }
    }

    private mutating func record(_ path: [String], _ index: Int) {
        let key = path.joined(separator: ".")
        if lines[key] == nil { lines[key] = index + 1 }
    }

    /// The line of `path`, or of the nearest enclosing table written in the file.
    func line(of path: String) -> Int? {
        var p = path
        while true {
            if let l = lines[p] { return l }
            guard let dot = p.lastIndex(of: ".") else { return nil }
            p = String(p[..<dot])
        }
    }

    private static func keyPath(_ s: String) -> [String] {
        s.split(separator: ".").map { String($0).trimmed(" \t\"'") }
    }

    private static func equalsOutsideQuotes(_ s: String) -> String.Index? {
        var quote: Character?
        for i in s.indices {
            let c = s[i]
            if let q = quote { if c == q { quote = nil } } else if c == "\"" || c == "'" { quote = c } else if c == "=" { return i }
        }
        return nil
    }

    private static func stripComment(_ s: String) -> String {
        var quote: Character?
        for i in s.indices {
            let c = s[i]
            if let q = quote { if c == q { quote = nil } } else if c == "\"" || c == "'" { quote = c } else if c == "#" { return String(s[..<i]) }
        }
        return s
    }
}

extension String {
    func trimmed(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
