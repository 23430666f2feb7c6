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
