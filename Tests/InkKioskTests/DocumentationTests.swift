// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkTestSupport

/// README.md and docs/ stay usable: what CI runs is the command the README gives, and every
/// relative link leads to a file of the repository.
@Suite struct Documentation {
    static let package = Fixtures.packageDirectory

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: package.appendingPathComponent(path).path, encoding: .utf8)
    }

    @Test func ciRunsTheTestCommandTheReadmeGives() throws {
        let commands = try Self.text(".ci/run").split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix("set ") && !$0.hasPrefix("cd ") }
        #expect(commands == ["make test"], ".ci/run runs \(commands)")
        let readme = try Self.text("README.md")
        for command in commands {
            #expect(readme.split(separator: "\n").contains { $0.hasPrefix("\(command) ") || $0 == command },
                    "README.md does not give the command CI runs: \(command)")
        }
    }

    @Test func everyRelativeLinkLeadsToAFile() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.package.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        #expect(docs.count >= 8)
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var checked = 0
        for file in ["README.md"] + docs {
            let folder = Self.package.appendingPathComponent(file).deletingLastPathComponent()
            for match in try Self.prose(Self.text(file)).matches(of: link) {
                guard let target = match.output[1].substring.map(String.init), !target.contains(":") else { continue }
                let path = String(target.prefix { $0 != "#" })
                guard !path.isEmpty else { continue }
                checked += 1
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path),
                        "\(file): the link \(target) leads to no file")
            }
        }
        #expect(checked > 50, "links checked: \(checked)")
    }

    /// docs/ARCHITECTURE.md's table of modules says what each may import: exactly its dependencies
    /// in Package.swift (which the build holds to its imports), in the same order.
    @Test func theArchitecturesModuleTableIsThePackagesDependencies() throws {
        let manifest = try Self.text("Package.swift")
        let target = try Regex(#"\.(?:target|executableTarget)\(name: "([\w-]+)", dependencies: \[([^\]]*)\]"#)
        let item = try Regex(#"\.product\(name: "(\w+)", package: "[^"]+"\)|"([\w-]+)"|\blogging\b"#)
        var declared: [String: [String]] = [:]
        for match in manifest.matches(of: target) {
            // The C shims (CLibInput, COpenSSL, …) are not boxes of the flow: the table leaves them out.
            guard let name = match.output[1].substring.map(String.init), !name.hasSuffix("TestSupport"),
                  !(name.first == "C" && name.dropFirst().first?.isUppercase == true),
                  let list = match.output[2].substring else { continue }
            declared[name] = list.matches(of: item).map { found in
                (found.output[1].substring ?? found.output[2].substring).map(String.init) ?? "Logging"
            }
        }
        #expect(declared.count >= 15, "targets found in Package.swift: \(declared.keys.sorted())")
        var documented: [String: [String]] = [:]
        for line in try Self.text("docs/ARCHITECTURE.md").split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, cells[0].hasPrefix("`Ink") || cells[0].hasPrefix("`inkkiosk") else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            documented[name] = cells[2].hasPrefix("nothing") ? [] : cells[2].components(separatedBy: ", ")
        }
        documented.removeValue(forKey: "InkCore")
        #expect(documented == declared)
    }

    /// The text outside fenced code blocks (a `](x)` in code is not a link).
    static func prose(_ text: String) -> String {
        var inCode = false
        var out: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            if !inCode { out.append(line) }
        }
        return out.joined(separator: "\n")
    }
}
