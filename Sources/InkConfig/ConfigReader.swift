// SPDX-License-Identifier: Apache-2.0
import InkCore
import TOMLKit

/// Reads typed values out of a parsed TOML table and collects a problem, with its line, for
/// every unknown key, wrong type and out-of-range value.
struct ConfigReader {
    let file: String
    private let text: String
    /// Where each key is written: found at the first problem, the only thing that needs a line. A
    /// clean file (every start of the kiosk) is not scanned a second time; that scan took half
    /// of the config's reading.
    private var lines: TOMLLines?
    private(set) var problems: [ConfigProblem] = []

    init(file: String, text: String) {
        self.file = file
        self.text = text
    }

    mutating func problem(_ path: String, _ message: String) {
        let lines = self.lines ?? TOMLLines(text)
        self.lines = lines
        problems.append(ConfigProblem(file: file, line: lines.line(of: path), key: path, message: message))
    }

    private func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Reports keys of `table` that are not in `known` (typos must not be silently ignored).
    mutating func only(_ known: [String], in table: TOMLTable, at path: String) {
        for (key, _) in table where !known.contains(key) {
            problem(join(path, key), "unknown key (known here: \(known.joined(separator: ", ")))")
        }
    }

    mutating func table(_ key: String, in t: TOMLTable, at path: String) -> TOMLTable? {
        guard let v = t[key] else { return nil }
        guard let table = v.table else { problem(join(path, key), "must be a table, not \(Self.kind(v))"); return nil }
        return table
    }

    mutating func string(_ key: String, in t: TOMLTable, at path: String) -> String? {
        guard let v = t[key] else { return nil }
        guard let s = v.string else { problem(join(path, key), "must be a string, not \(Self.kind(v))"); return nil }
        return s
    }

    /// An absolute path (the kiosk runs from anywhere, under systemd from /).
    mutating func path(_ key: String, in t: TOMLTable, at path: String) -> String? {
        guard let v = string(key, in: t, at: path) else { return nil }
        guard v.hasPrefix("/") else { problem(join(path, key), "must be an absolute path (got \"\(v)\")"); return nil }
        return v
    }

    /// A list of numbers, each in `range`, with a length in `count`.
    mutating func numberList(_ key: String, in t: TOMLTable, at path: String, _ range: ClosedRange<Double>,
                             count: ClosedRange<Int>) -> [Double]? {
        guard let v = t[key] else { return nil }
        let values = v.array?.compactMap { Self.double($0) }
        guard let values, values.count == v.array?.count, count.contains(values.count), values.allSatisfy(range.contains) else {
            problem(join(path, key), "must be a list of \(count.lowerBound) to \(count.upperBound) numbers between \(Self.show(range.lowerBound)) and \(Self.show(range.upperBound))")
            return nil
        }
        return values
    }

    mutating func bool(_ key: String, in t: TOMLTable, at path: String) -> Bool? {
        guard let v = t[key] else { return nil }
        guard let b = v.bool else { problem(join(path, key), "must be true or false, not \(Self.kind(v))"); return nil }
        return b
    }

    mutating func number(_ key: String, in t: TOMLTable, at path: String, _ range: ClosedRange<Double>) -> Double? {
        guard let v = t[key] else { return nil }
        guard let d = Self.double(v) else { problem(join(path, key), "must be a number, not \(Self.kind(v))"); return nil }
        guard range.contains(d) else {
            problem(join(path, key), "must be between \(Self.show(range.lowerBound)) and \(Self.show(range.upperBound)) (got \(Self.show(d)))")
            return nil
        }
        return d
    }

    /// A whole number (a count: steps, files, megabytes) within `range`.
    mutating func integer(_ key: String, in t: TOMLTable, at path: String, _ range: ClosedRange<Int>) -> Int? {
        guard let v = t[key] else { return nil }
        guard let n = v.int else { problem(join(path, key), "must be a whole number, not \(v.tomlValue)"); return nil }
        guard range.contains(n) else {
            problem(join(path, key), "must be between \(range.lowerBound) and \(range.upperBound) (got \(n))")
            return nil
        }
        return n
    }

    mutating func rotation(_ key: String, in t: TOMLTable, at path: String) -> Rotation? {
        guard let v = t[key] else { return nil }
        guard let n = v.int, let r = Rotation(rawValue: n) else {
            problem(join(path, key), "must be 0, 90, 180 or 270 (got \(v.tomlValue))"); return nil
        }
        return r
    }

    mutating func color(_ key: String, in t: TOMLTable, at path: String) -> RGBA? {
        guard let s = string(key, in: t, at: path) else { return nil }
        guard let c = RGBA(hex: s) else { problem(join(path, key), "\"\(s)\" is not a colour like \"#1a237e\" or \"#ffd90066\""); return nil }
        return c
    }

    mutating func numbers(_ key: String, in t: TOMLTable, at path: String, count: Int) -> [Double]? {
        guard let v = t[key] else { return nil }
        guard let a = v.array else { problem(join(path, key), "must be an array of \(count) numbers"); return nil }
        let values = a.compactMap(Self.double)
        guard values.count == count, a.count == count, values.allSatisfy(\.isFinite) else {
            problem(join(path, key), "must be an array of \(count) numbers (got \(a.count) values)"); return nil
        }
        return values
    }

    mutating func pressureCurve(_ key: String, in t: TOMLTable, at path: String) -> PressureCurve? {
        guard let v = t[key] else { return nil }
        guard let a = v.array else { problem(join(path, key), "must be an array of [x, y] points, e.g. [[0, 0], [0.5, 0.3], [1, 1]]"); return nil }
        var points: [Point] = []
        for item in a {
            guard let xy = item.array, xy.count == 2, let x = Self.double(xy[0]), let y = Self.double(xy[1]) else {
                problem(join(path, key), "must be an array of [x, y] points, e.g. [[0, 0], [0.5, 0.3], [1, 1]]"); return nil
            }
            points.append(Point(x, y))
        }
        do { return try PressureCurve(points: points) } catch {
            problem(join(path, key), "\(error)"); return nil
        }
    }

    /// "an integer", "a string", … for messages.
    static func kind(_ v: TOMLValueConvertible) -> String {
        let name = "\(v.type)"
        return ("aeiou".contains(name.first ?? "x") ? "an " : "a ") + name
    }

    private static func double(_ v: TOMLValueConvertible) -> Double? { v.double ?? v.int.map(Double.init) }
    private static func show(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e12 ? String(Int(d)) : String(d) }
}

/// The same reads with what a key may hold taken from its definition (`ConfigSchema`): the
/// names `only` accepts, the ranges and choices checked, are the ones the reference prints.
/// `at` is the table's path when it is not the section's own (`device[2]`).
extension ConfigReader {
    mutating func only(_ section: ConfigSection, in table: TOMLTable, at path: String? = nil) {
        only(section.names, in: table, at: path ?? section.path)
    }

    mutating func string(_ name: String, in t: TOMLTable, of s: ConfigSection, at path: String? = nil) -> String? {
        _ = s[name]
        return string(name, in: t, at: path ?? s.path)
    }

    mutating func path(_ name: String, in t: TOMLTable, of s: ConfigSection) -> String? {
        _ = s[name]
        return self.path(name, in: t, at: s.path)
    }

    mutating func bool(_ name: String, in t: TOMLTable, of s: ConfigSection, at path: String? = nil) -> Bool? {
        _ = s[name]
        return bool(name, in: t, at: path ?? s.path)
    }

    mutating func number(_ name: String, in t: TOMLTable, of s: ConfigSection) -> Double? {
        number(name, in: t, at: s.path, s[name].kind.numberRange)
    }

    mutating func integer(_ name: String, in t: TOMLTable, of s: ConfigSection) -> Int? {
        integer(name, in: t, at: s.path, s[name].kind.integerRange)
    }

    /// One of the key's choices (the kind's list, which the enum's cases make).
    mutating func choice<T: RawRepresentable>(_ name: String, in t: TOMLTable, of s: ConfigSection) -> T? where T.RawValue == String {
        let all = s[name].kind.choices
        guard let text = string(name, in: t, at: s.path) else { return nil }
        guard all.contains(text), let value = T(rawValue: text) else {
            problem(s.path.isEmpty ? name : "\(s.path).\(name)",
                    "\"\(text)\" is not one of \(all.map { "\"\($0)\"" }.joined(separator: ", "))")
            return nil
        }
        return value
    }

    mutating func rotation(_ name: String, in t: TOMLTable, of s: ConfigSection, at path: String? = nil) -> Rotation? {
        _ = s[name]
        return rotation(name, in: t, at: path ?? s.path)
    }

    mutating func color(_ name: String, in t: TOMLTable, of s: ConfigSection) -> RGBA? {
        _ = s[name]
        return color(name, in: t, at: s.path)
    }

    mutating func numberList(_ name: String, in t: TOMLTable, of s: ConfigSection) -> [Double]? {
        guard case .numbers(let range, let count) = s[name].kind else { preconditionFailure("not a list of numbers: \(name)") }
        return numberList(name, in: t, at: s.path, range, count: count)
    }

    mutating func numbers(_ name: String, in t: TOMLTable, of s: ConfigSection, at path: String) -> [Double]? {
        guard case .matrix(let count) = s[name].kind else { preconditionFailure("not a matrix: \(name)") }
        return numbers(name, in: t, at: path, count: count)
    }

    mutating func pressureCurve(_ name: String, in t: TOMLTable, of s: ConfigSection, at path: String) -> PressureCurve? {
        _ = s[name]
        return pressureCurve(name, in: t, at: path)
    }
}
