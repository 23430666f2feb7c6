// SPDX-License-Identifier: Apache-2.0
import InkCore

/// What a config key holds and which values it may take. The reader checks a value against it
/// and the reference (`inkkiosk config --reference`) prints it, so the two cannot disagree.
public enum ConfigKind: Sendable {
    case string
    /// A string that must be an absolute path (the kiosk runs from anywhere, under systemd from /).
    case path
    case bool
    case number(ClosedRange<Double>)
    case integer(ClosedRange<Int>)
    /// One of these strings.
    case choice([String])
    /// 0, 90, 180 or 270.
    case rotation
    /// "#rrggbb" or "#rrggbbaa".
    case color
    /// A list of colours, with a length in the range.
    case colors(ClosedRange<Int>)
    /// A list of numbers, each in the first range, with a length in `count`.
    case numbers(ClosedRange<Double>, count: ClosedRange<Int>)
    /// Exactly this many numbers (a matrix).
    case matrix(Int)
    /// A list of [x, y] points.
    case pressureCurve
    /// A list of at most 64 strings; the text says what each must be.
    case strings(String)
    /// A list of at most 64 users or groups of this system, by name or number.
    case accounts(String)
    /// One group of this system, by name or number.
    case group
    /// A key combination such as "ctrl+alt+shift+s".
    case keyChord
    /// Where the API listens: "HOST:PORT" or "unix:PATH".
    case address
    /// A table of its own (a section), or an array of tables when `array`.
    case table(array: Bool)

    /// The range of a `.number` key; any other kind is a mistake in the definitions.
    var numberRange: ClosedRange<Double> {
        guard case .number(let range) = self else { preconditionFailure("not a number key: \(self)") }
        return range
    }

    var integerRange: ClosedRange<Int> {
        guard case .integer(let range) = self else { preconditionFailure("not an integer key: \(self)") }
        return range
    }

    var choices: [String] {
        guard case .choice(let all) = self else { preconditionFailure("not a choice key: \(self)") }
        return all
    }

    var isTable: Bool {
        if case .table = self { return true }
        return false
    }
}

/// What a key is when the file leaves it out.
public enum ConfigDefault: Sendable {
    /// The value, as TOML writes it (`300`, `"seat0"`, `["#0d1759"]`).
    case value(String)
    /// No value: what the kiosk does then.
    case unset(String)
}

/// One key of the config file: its name in its table, what it holds, its default and what it is for.
public struct ConfigKey: Sendable {
    public let name: String
    public let kind: ConfigKind
    public let summary: String
    /// Made when asked for (the reference): reading a config never needs the defaults, and
    /// making them (the built-in settings, their TOML text) was a fifth of the read's instructions.
    private let makeDefault: @Sendable () -> ConfigDefault
    public var defaultValue: ConfigDefault { makeDefault() }

    public init(_ name: String, _ kind: ConfigKind, _ defaultValue: @autoclosure @escaping @Sendable () -> ConfigDefault,
                _ summary: String) {
        self.name = name
        self.kind = kind
        makeDefault = defaultValue
        self.summary = summary
    }

    /// A sub-table (`[tools.pen]`) or an array of tables (`[[device]]`): listed by its parent's
    /// `only`, described as a section of its own.
    static func table(_ name: String, array: Bool = false, _ summary: String) -> ConfigKey {
        ConfigKey(name, .table(array: array), .unset("none"), summary)
    }
}

/// One table of the config file (`[display]`; "" is the top level) and the keys it may hold.
public struct ConfigSection: Sendable {
    /// The table's path as the file writes it: "display", "tools.pen", "ui.text"; "" for the top level.
    public let path: String
    public let summary: String
    public let keys: [ConfigKey]
    /// `[[device]]`: an array of tables, each holding these keys.
    public let isArray: Bool

    public init(_ path: String, array: Bool = false, _ summary: String, _ keys: [ConfigKey]) {
        self.path = path
        self.summary = summary
        self.keys = keys
        isArray = array
    }

    public var names: [String] { keys.map(\.name) }

    /// The key of this name; asking for one that is not defined is a mistake in the reader.
    public subscript(name: String) -> ConfigKey {
        guard let key = keys.first(where: { $0.name == name }) else { preconditionFailure("[\(path)] defines no key \(name)") }
        return key
    }
}

/// Defaults as TOML writes them, made from the built-in values so that the reference shows what
/// the code does.
extension ConfigDefault {
    public static func number(_ d: Double) -> ConfigDefault { .value(show(d)) }
    public static func integer(_ n: Int) -> ConfigDefault { .value(String(n)) }
    public static func bool(_ b: Bool) -> ConfigDefault { .value(b ? "true" : "false") }
    public static func string(_ s: String) -> ConfigDefault { .value(quoted(s)) }
    public static func color(_ c: RGBA) -> ConfigDefault { .value(quoted(hex(c))) }
    public static func colors(_ cs: [RGBA]) -> ConfigDefault { .value("[" + cs.map { quoted(hex($0)) }.joined(separator: ", ") + "]") }
    public static func numbers(_ ds: [Double]) -> ConfigDefault { .value("[" + ds.map(show).joined(separator: ", ") + "]") }

    /// 300, 0.25, -45: whole numbers without a fraction, as the shipped file writes them.
    static func show(_ d: Double) -> String {
        let rounded = (d * 1e9).rounded() / 1e9
        if rounded == rounded.rounded() && abs(rounded) < 1e12 { return String(Int(rounded)) }
        return String(rounded)
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    /// "#rrggbb", or "#rrggbbaa" when not opaque.
    static func hex(_ c: RGBA) -> String {
        let bytes = [c.r, c.g, c.b, c.a].map { UInt8(max(0, min(255, ($0 * 255).rounded()))) }
        return "#" + hexString(bytes[3] == 255 ? Array(bytes.prefix(3)) : bytes)
    }
}
