// SPDX-License-Identifier: Apache-2.0
import InkConfig
import Foundation
import Testing

/// evdev codes from linux/input-event-codes.h, written out so the tests check the table.
private enum Code {
    static let leftCtrl: UInt32 = 29, rightCtrl: UInt32 = 97
    static let leftAlt: UInt32 = 56, rightAlt: UInt32 = 100
    static let leftShift: UInt32 = 42, rightShift: UInt32 = 54
    static let leftMeta: UInt32 = 125
    static let s: UInt32 = 31, c: UInt32 = 46, q: UInt32 = 16, m: UInt32 = 50, one: UInt32 = 2, zero: UInt32 = 11
    static let f1: UInt32 = 59, f2: UInt32 = 60, f10: UInt32 = 68, f11: UInt32 = 87, f12: UInt32 = 88
    static let f13: UInt32 = 183, f24: UInt32 = 194, esc: UInt32 = 1, delete: UInt32 = 111, sysrq: UInt32 = 99
}

@Suite struct ServiceKeysParsing {
    @Test func keysAreNamedByTheirEvdevCodes() throws {
        let chord = try ServiceKeys(parsing: "ctrl+alt+shift+s")
        #expect(chord.keys.map(\.codes) == [[Code.leftCtrl, Code.rightCtrl], [Code.leftAlt, Code.rightAlt],
                                            [Code.leftShift, Code.rightShift], [Code.s]])
        #expect(chord.description == "ctrl+alt+shift+s")
        let codes: [(String, UInt32)] = [("q", Code.q), ("m", Code.m), ("1", Code.one), ("0", Code.zero),
                                         ("f1", Code.f1), ("f2", Code.f2), ("f10", Code.f10), ("f11", Code.f11),
                                         ("f12", Code.f12), ("f13", Code.f13), ("f24", Code.f24),
                                         ("esc", Code.esc), ("escape", Code.esc), ("delete", Code.delete)]
        for (name, code) in codes {
            #expect(try ServiceKeys(parsing: "alt+\(name)").keys.last?.codes == [code], "\(name)")
        }
    }

    @Test func spellingIsForgiving() throws {
        let chord = try ServiceKeys(parsing: " Control + ALT+ Escape ")
        #expect(chord.description == "ctrl+alt+esc")
        #expect(try ServiceKeys(parsing: "meta+f1").keys.first?.codes.contains(Code.leftMeta) == true)
    }

    @Test func badCombinationsSayWhy() {
        let cases: [(String, ServiceKeysError)] = [
            ("", .empty),
            ("ctrl++s", .missingKey("ctrl++s")),
            ("ctrl+alt+", .missingKey("ctrl+alt+")),
            ("ctrl+alt+foo", .unknownKey("foo")),
            ("ctrl+f25", .unknownKey("f25")),
            ("ctrl+f0", .unknownKey("f0")),
            ("ctrl+sysrq", .unknownKey("sysrq")),
            ("ctrl+control+s", .repeated("control")),
            ("ctrl+s+s", .repeated("s")),
            ("s", .needsModifierAndKey("s")),
            ("f12", .needsModifierAndKey("f12")),
            ("ctrl+alt", .needsModifierAndKey("ctrl+alt")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try ServiceKeys(parsing: text) }
        }
    }
}

@Suite struct ServiceKeysHeld {
    @Test func eitherSideOfAModifierCounts() throws {
        let chord = try ServiceKeys(parsing: "ctrl+alt+shift+s")
        #expect(chord.isHeld(by: [Code.leftCtrl, Code.leftAlt, Code.leftShift, Code.s]))
        #expect(chord.isHeld(by: [Code.rightCtrl, Code.rightAlt, Code.rightShift, Code.s]))
        #expect(chord.isHeld(by: [Code.leftCtrl, Code.rightCtrl, Code.leftAlt, Code.leftShift, Code.s]))
    }

    @Test func onlyExactlyTheChord() throws {
        let chord = try ServiceKeys(parsing: "ctrl+alt+shift+s")
        #expect(!chord.isHeld(by: [Code.leftCtrl, Code.leftAlt, Code.s]))                          // shift missing
        #expect(!chord.isHeld(by: [Code.leftCtrl, Code.leftAlt, Code.leftShift, Code.s, Code.c]))  // one key more
        #expect(!chord.isHeld(by: []))
    }

    @Test func theWatcherFiresOnceWhenTheChordCompletes() throws {
        var watcher = ServiceKeyWatcher(try ServiceKeys(parsing: "ctrl+alt+shift+s"))
        let fired = feed(&watcher, [(Code.leftCtrl, true), (Code.rightAlt, true), (Code.leftShift, true),
                                    (Code.s, true),                   // complete: fires
                                    (Code.s, false), (Code.s, true),  // held again: fires again
                                    (Code.leftShift, false)])
        #expect(fired == [false, false, false, true, false, true, false])
    }

    @Test func ctrlAltFnAndCtrlCAreNotTheChord() throws {
        var watcher = ServiceKeyWatcher(try ServiceKeys(parsing: "ctrl+alt+shift+s"))
        for keys in [[Code.leftCtrl, Code.leftAlt, Code.f2], [Code.leftCtrl, Code.c], [Code.leftAlt, Code.sysrq]] {
            let fired = feed(&watcher, keys.map { ($0, true) } + keys.reversed().map { ($0, false) })
            #expect(!fired.contains(true))
        }
    }

    @Test func anExtraKeyHeldFirstBlocksTheChord() throws {
        var watcher = ServiceKeyWatcher(try ServiceKeys(parsing: "ctrl+alt+s"))
        let fired = feed(&watcher, [(Code.c, true), (Code.leftCtrl, true), (Code.leftAlt, true), (Code.s, true),
                                    (Code.c, false)])        // the stray key let go: exactly the chord
        #expect(fired == [false, false, false, false, true])
    }

    /// Feeds key events (code, pressed) in order; says on which of them the watcher fired.
    private func feed(_ watcher: inout ServiceKeyWatcher, _ events: [(UInt32, Bool)]) -> [Bool] {
        events.map { watcher.key($0.0, pressed: $0.1) }
    }
}
