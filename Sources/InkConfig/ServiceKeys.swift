// SPDX-License-Identifier: Apache-2.0
/// The key combination a technician holds to stop a locked-down kiosk, written like
/// `"ctrl+alt+shift+s"`: at least one modifier (`ctrl`, `alt`, `shift`, `super`; the left or the
/// right key) and at least one other key. Keys are evdev key codes (linux/input-event-codes.h),
/// so a letter or digit names a key's position on a US layout, whatever layout the board uses.
/// The chord counts as held when all its keys are down and no other key is.
public struct ServiceKeys: Sendable, Equatable, CustomStringConvertible {
    /// One key of the chord: any of `codes` will do (a modifier's left and right key).
    public struct Key: Sendable, Equatable {
        public let name: String
        public let codes: Set<UInt32>
        public let isModifier: Bool
    }

    public let keys: [Key]

    public init(parsing text: String) throws(ServiceKeysError) {
        let names = text.lowercased().split(separator: "+", omittingEmptySubsequences: false)
            .map { String($0).trimmed(" \t") }
        guard !(names.count == 1 && names[0].isEmpty) else { throw .empty }
        var keys: [Key] = []
        for name in names {
            guard !name.isEmpty else { throw .missingKey(text) }
            guard let key = Self.key(named: name) else { throw .unknownKey(name) }
            guard !keys.contains(where: { !$0.codes.isDisjoint(with: key.codes) }) else { throw .repeated(name) }
            keys.append(key)
        }
        guard keys.contains(where: \.isModifier), keys.contains(where: { !$0.isModifier }) else {
            throw .needsModifierAndKey(text)
        }
        self.keys = keys
    }

    public var description: String { keys.map(\.name).joined(separator: "+") }

    /// Whether exactly this chord is held: every key of it down, and nothing else.
    public func isHeld(by down: Set<UInt32>) -> Bool {
        keys.allSatisfy { !$0.codes.isDisjoint(with: down) }
            && down.allSatisfy { code in keys.contains { $0.codes.contains(code) } }
    }

    private static func key(named name: String) -> Key? {
        if let codes = modifiers[name] { return Key(name: canonical[name] ?? name, codes: codes, isModifier: true) }
        guard let code = named[name] ?? function(name) else { return nil }
        return Key(name: canonical[name] ?? name, codes: [code], isModifier: false)
    }

    /// F1–F24: F11, F12 and F13–F24 sit apart from F1–F10 in the code table.
    private static func function(_ name: String) -> UInt32? {
        guard name.first == "f", let n = UInt32(name.dropFirst()), name.count <= 3, !name.hasPrefix("f0") else { return nil }
        switch n {
        case 1...10: return 58 + n        // KEY_F1 59 … KEY_F10 68
        case 11, 12: return 76 + n        // KEY_F11 87, KEY_F12 88
        case 13...24: return 170 + n      // KEY_F13 183 … KEY_F24 194
        default: return nil
        }
    }

    // KEY_LEFTCTRL 29 / KEY_RIGHTCTRL 97, KEY_LEFTALT 56 / KEY_RIGHTALT 100,
    // KEY_LEFTSHIFT 42 / KEY_RIGHTSHIFT 54, KEY_LEFTMETA 125 / KEY_RIGHTMETA 126.
    private static let modifiers: [String: Set<UInt32>] = [
        "ctrl": [29, 97], "control": [29, 97], "alt": [56, 100], "shift": [42, 54],
        "super": [125, 126], "meta": [125, 126], "win": [125, 126],
    ]
    private static let canonical = ["control": "ctrl", "meta": "super", "win": "super", "escape": "esc",
                                    "return": "enter", "del": "delete", "ins": "insert"]

    private static let named: [String: UInt32] = {
        var table: [String: UInt32] = [:]
        // Letters by row, as the code table orders them: KEY_Q 16 …, KEY_A 30 …, KEY_Z 44 ….
        for (row, start) in [("qwertyuiop", 16), ("asdfghjkl", 30), ("zxcvbnm", 44)] as [(String, UInt32)] {
            for (i, c) in row.enumerated() { table[String(c)] = start + UInt32(i) }
        }
        for d in 1...9 { table[String(d)] = UInt32(1 + d) }   // KEY_1 2 … KEY_9 10
        table["0"] = 11
        let others: [String: UInt32] = [
            "esc": 1, "escape": 1, "minus": 12, "equal": 13, "backspace": 14, "tab": 15,
            "leftbrace": 26, "rightbrace": 27, "enter": 28, "return": 28, "semicolon": 39,
            "apostrophe": 40, "grave": 41, "backslash": 43, "comma": 51, "dot": 52, "slash": 53,
            "space": 57, "home": 102, "up": 103, "pageup": 104, "left": 105, "right": 106,
            "end": 107, "down": 108, "pagedown": 109, "insert": 110, "ins": 110, "delete": 111,
            "del": 111, "pause": 119,
        ]
        table.merge(others) { a, _ in a }
        return table
    }()
}

/// Why a service key combination was refused.
public enum ServiceKeysError: Error, Equatable, CustomStringConvertible {
    case empty
    case missingKey(String)
    case unknownKey(String)
    case repeated(String)
    case needsModifierAndKey(String)

    public var description: String {
        switch self {
        case .empty: return "no keys given"
        case .missingKey(let text): return "\"\(text)\" has an empty key between two '+'"
        case .unknownKey(let name):
            return "\"\(name)\" is not a key name (modifiers: ctrl, alt, shift, super; keys: a–z, 0–9, f1–f24, esc, enter, space, tab, backspace, delete, insert, home, end, pageup, pagedown, up, down, left, right, pause, minus, equal, comma, dot, slash, semicolon, apostrophe, grave, backslash, leftbrace, rightbrace)"
        case .repeated(let name): return "\"\(name)\" is given twice"
        case .needsModifierAndKey(let text):
            return "\"\(text)\" must combine at least one modifier (ctrl, alt, shift, super) with another key, e.g. \"ctrl+alt+shift+s\""
        }
    }
}

/// Follows key presses and releases (seat-wide) and says when the service chord becomes held.
public struct ServiceKeyWatcher: Sendable {
    public let chord: ServiceKeys
    private var down: Set<UInt32> = []

    public init(_ chord: ServiceKeys) { self.chord = chord }

    /// True on the key event that completes the chord (once per hold).
    public mutating func key(_ code: UInt32, pressed: Bool) -> Bool {
        let before = chord.isHeld(by: down)
        if pressed { down.insert(code) } else { down.remove(code) }
        return !before && chord.isHeld(by: down)
    }
}
