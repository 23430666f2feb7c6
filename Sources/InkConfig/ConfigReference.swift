// SPDX-License-Identifier: Apache-2.0
/// The config file's reference in Markdown, printed from `ConfigSchema`, the definitions the
/// reader checks a file against: `inkkiosk config --reference` prints it, docs/CONFIGURATION.md
/// is it (a test fails when the two differ).
public enum ConfigReference {
    public static func markdown() -> String {
        var out = """
        # Configuration reference

        <!-- Printed by `inkkiosk config --reference` from Sources/InkConfig/ConfigSchema.swift; do not edit:
             change the definitions and run `swift run inkkiosk config --reference > docs/CONFIGURATION.md`. -->

        The kiosk reads one TOML file: `inkkiosk run --config FILE` (the systemd unit: `/etc/inkkiosk/inkkiosk.toml`).
        Every key is optional; a missing one keeps its default. Command-line flags override the file
        (`inkkiosk run --help`). `config/inkkiosk.toml` is every key with its default and
        `config/signature.toml` and `config/classroom.toml` are ready profiles.

        Checking is strict: an unknown key, a wrong type or a value out of range is an error naming the
        file, line and key, and the kiosk does not start on a broken file. `inkkiosk check-config FILE`
        says the same without starting anything:

        ```
        $ inkkiosk check-config kiosk.toml
        inkkiosk: error: 3 problems:
        kiosk.toml:2: display.rotation: must be 0, 90, 180 or 270 (got 45)
        kiosk.toml:6: tools.pen.widht: unknown key (known here: width, color)
        kiosk.toml:17: buttons.stylus: "double-tap" is not one of "switch-previous", "switch-eraser", "show-palette", "toggle-debug", "ignore"
        ```

        Files a key names (keys, tokens) are read and checked when the config is, so a missing or wrong
        file is reported the same way.

        """
        for section in ConfigSchema.sections {
            out += "\n" + markdown(section)
        }
        return out
    }

    static func markdown(_ section: ConfigSection) -> String {
        let title = section.path.isEmpty ? "Top level" : section.isArray ? "`[[\(section.path)]]`" : "`[\(section.path)]`"
        var out = "## \(title)\n\n\(section.summary)\n"
        let tables = section.keys.filter(\.kind.isTable)
        if !tables.isEmpty {
            let names = tables.map { key -> String in
                let path = section.path.isEmpty ? key.name : "\(section.path).\(key.name)"
                if case .table(array: true) = key.kind { return "`[[\(path)]]`" }
                return "`[\(path)]`"
            }
            out += "\nTables: " + names.joined(separator: ", ") + ".\n"
        }
        let keys = section.keys.filter { !$0.kind.isTable }
        guard !keys.isEmpty else { return out }
        out += "\n| key | type | allowed | default | what |\n| --- | --- | --- | --- | --- |\n"
        for key in keys {
            let cells = ["`\(key.name)`", type(key.kind), allowed(key.kind), shown(key.defaultValue), key.summary]
            out += "| " + cells.map(cell).joined(separator: " | ") + " |\n"
        }
        return out
    }

    static func type(_ kind: ConfigKind) -> String {
        switch kind {
        case .string, .path, .choice, .color, .keyChord, .address: return "string"
        case .bool: return "boolean"
        case .number: return "number"
        case .integer, .rotation: return "integer"
        case .colors, .strings: return "list of strings"
        case .numbers, .matrix: return "list of numbers"
        case .pressureCurve: return "list of [x, y]"
        case .accounts: return "list of strings or integers"
        case .group: return "string or integer"
        case .table(let array): return array ? "array of tables" : "table"
        }
    }

    static func allowed(_ kind: ConfigKind) -> String {
        switch kind {
        case .string: return "any"
        case .path: return "an absolute path"
        case .bool: return "`true`, `false`"
        case .number(let range): return "\(ConfigDefault.show(range.lowerBound)) – \(ConfigDefault.show(range.upperBound))"
        case .integer(let range): return "\(range.lowerBound) – \(range.upperBound)"
        case .choice(let all): return all.map { "`\"\($0)\"`" }.joined(separator: ", ")
        case .rotation: return "`0`, `90`, `180`, `270`"
        case .color: return "`\"#rrggbb\"`, `\"#rrggbbaa\"`"
        case .colors(let count): return "\(count.lowerBound) – \(count.upperBound) colours `\"#rrggbb\"` or `\"#rrggbbaa\"`"
        case .numbers(let range, let count):
            return "\(count.lowerBound) – \(count.upperBound) numbers, each \(ConfigDefault.show(range.lowerBound)) – \(ConfigDefault.show(range.upperBound))"
        case .matrix(let count): return "\(count) numbers"
        case .pressureCurve: return "at least 2 points in 0 – 1, x rising strictly from 0 to 1"
        case .strings(let what): return "at most 64 \(what)"
        case .accounts(let what): return "at most 64 \(what) of this system, by name or number"
        case .group: return "a group of this system, by name or number"
        case .keyChord: return "modifiers `ctrl`, `alt`, `shift`, `super` with at least one other key: `a`–`z`, `0`–`9`, "
            + "`f1`–`f24`, `esc`, `enter`, `space`, `tab`, `backspace`, `delete`, `insert`, `home`, `end`, `pageup`, "
            + "`pagedown`, `up`, `down`, `left`, `right`, `pause`, `minus`, `equal`, `comma`, `dot`, `slash`, "
            + "`semicolon`, `apostrophe`, `grave`, `backslash`, `leftbrace`, `rightbrace`, joined by `+`; `\"\"`"
        case .address: return "`\"HOST:PORT\"`, `\"[IPv6]:PORT\"`, `\"unix:/PATH\"`"
        case .table: return ""
        }
    }

    static func shown(_ value: ConfigDefault) -> String {
        switch value {
        case .value(let toml): return "`\(toml)`"
        case .unset(let meaning): return meaning
        }
    }

    /// A table cell: no line breaks, and a '|' does not end the cell.
    static func cell(_ text: String) -> String {
        text.replacing("|", with: "\\|").replacing("\n", with: " ")
    }
}
