// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkConfig
import InkTestSupport

/// docs/CONFIGURATION.md is printed from the definitions the reader checks files against, so it
/// cannot drift from the code; these tests fail when it was not printed again after a change.
@Suite struct ConfigReferenceDocument {
    static let documentPath = Fixtures.packageDirectory.appendingPathComponent("docs/CONFIGURATION.md").path
    static let shippedPath = Fixtures.packageDirectory.appendingPathComponent("config/inkkiosk.toml").path

    @Test func theDocumentIsTheGeneratedReference() throws {
        let document = try String(contentsOfFile: Self.documentPath, encoding: .utf8)
        let written = document.split(separator: "\n", omittingEmptySubsequences: false)
        let printed = ConfigReference.markdown().split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference = zip(written, printed).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(written.count, printed.count)
        let same = written == printed
        #expect(same, """
            docs/CONFIGURATION.md:\(firstDifference + 1) differs from the definitions \
            (printed: \(firstDifference < printed.count ? String(printed[firstDifference]) : "the end")): \
            swift run inkkiosk config --reference > docs/CONFIGURATION.md
            """)
    }

    @Test func theCommandPrintsTheReference() throws {
        let printed = try run(Fixtures.inkkioskBinary, ["config", "--reference"])
        #expect(printed.status == 0)
        #expect(printed.stdout == ConfigReference.markdown())
        let bare = try run(Fixtures.inkkioskBinary, ["config"])
        #expect(bare.status != 0 && bare.stderr.contains("--reference"))
    }

    @Test func everyKeyOfTheShippedFileIsInTheReference() throws {
        let keys = try ShippedKey.all(in: String(contentsOfFile: Self.shippedPath, encoding: .utf8))
        #expect(keys.count > 130, "the shipped file's keys were found: \(keys.count)")
        for key in keys {
            guard let section = ConfigSchema.sections.first(where: { $0.path == key.section }) else {
                Issue.record("config/inkkiosk.toml:\(key.line): [\(key.section)] is not in the reference"); continue
            }
            #expect(ConfigReference.markdown(section).contains("| `\(key.name)` |"),
                    "config/inkkiosk.toml:\(key.line): \(key.section).\(key.name) is not in the reference")
        }
    }

    /// The defaults the reference prints are the values the shipped file writes (which are the
    /// built-in ones: Config.theDocumentedDefaultsAreTheBuiltInDefaults).
    @Test func theReferenceDefaultsAreTheShippedValues() throws {
        let keys = try ShippedKey.all(in: String(contentsOfFile: Self.shippedPath, encoding: .utf8))
        var compared = 0
        for key in keys where !key.commented {
            guard let section = ConfigSchema.sections.first(where: { $0.path == key.section }),
                  let defined = section.keys.first(where: { $0.name == key.name }) else { continue }
            guard case .value(let shown) = defined.defaultValue else {
                Issue.record("config/inkkiosk.toml:\(key.line): \(key.name) has a value, the reference says it has none"); continue
            }
            compared += 1
            if let a = Double(shown), let b = Double(key.value) {
                #expect(a == b, "config/inkkiosk.toml:\(key.line): \(key.name) = \(key.value), the reference says \(shown)")
            } else {
                #expect(shown == key.value, "config/inkkiosk.toml:\(key.line): \(key.name) = \(key.value), the reference says \(shown)")
            }
        }
        #expect(compared > 120)
    }

    @Test func aSectionWithAnUnknownKeyNamesTheKnownOnesInTheirOrder() throws {
        do {
            _ = try KioskConfig.parse("[tools.pen]\nwidht = 3\n", file: "k.toml")
            Issue.record("an unknown key was accepted")
        } catch let e as ConfigError {
            #expect(e.description == "k.toml:2: tools.pen.widht: unknown key (known here: width, color)")
        }
    }
}

/// A key of the shipped config file, read line by line: `key = value` under the last
/// `[table]` header, also when commented out (`# encrypt_to = …`, `# [[device]]`).
struct ShippedKey {
    var section: String
    var name: String
    var value: String
    var commented: Bool
    var line: Int

    static func all(in text: String) throws -> [ShippedKey] {
        let header = try Regex(#"^#? ?\[\[?([a-z_.]+)\]\]?"#)
        let assignment = try Regex(#"^(#? ?)([a-z][a-z0-9_]*) = (.*)$"#)
        var section = ""
        var keys: [ShippedKey] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let m = line.firstMatch(of: header), let name = m.output[1].substring {
                section = String(name)
            } else if let m = line.firstMatch(of: assignment), let name = m.output[2].substring, let rest = m.output[3].substring {
                let commented = !(m.output[1].substring ?? "").isEmpty
                keys.append(ShippedKey(section: section, name: String(name), value: value(String(rest)), commented: commented, line: index + 1))
            }
        }
        return keys
    }

    /// The value without its comment: a string up to its closing quote, a list up to its bracket.
    static func value(_ text: String) -> String {
        var end = text.endIndex
        if text.hasPrefix("\"") {
            var escaped = false
            for i in text.indices.dropFirst() {
                if escaped { escaped = false; continue }
                if text[i] == "\\" { escaped = true } else if text[i] == "\"" { end = text.index(after: i); break }
            }
        } else if text.hasPrefix("[") {
            var depth = 0
            for i in text.indices {
                if text[i] == "[" { depth += 1 }
                if text[i] == "]" { depth -= 1; if depth == 0 { end = text.index(after: i); break } }
            }
        } else if let hash = text.firstIndex(of: "#") {
            end = hash
        }
        return String(text[..<end]).trimmingCharacters(in: .whitespaces)
    }
}
