// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkCommandLine
import FoundationEssentials
import Glibc
import InkStorage

/// On the host: encrypted signature files (`[signature] encrypt_to`) back to PNG, SVG, InkML.
struct DecryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Decrypt a signature capture's encrypted files (ID.png.hpke, …) with the private key.",
        discussion: """
            Each FILE may also be a capture's directory (every .hpke file in it). The plain file is \
            written under the name sealed inside it (ID.png), mode 0600, beside the encrypted one or \
            into --out; an existing file is never overwritten. A file encrypted to another key, or \
            changed after it was encrypted, is refused and nothing is written for it.
            """)

    @Option(help: "The X25519 private key (PEM, as `openssl genpkey -algorithm X25519` writes it).")
    var key: String

    @Option(help: "Write the plain files here (created if missing, mode 0700) instead of beside each encrypted file.")
    var out: String?

    @Argument(help: "Encrypted files (ID.png.hpke, ID.svg.hpke, ID.inkml.hpke) or capture directories.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one encrypted file or capture directory") }
    }

    func run() throws {
        try forbidCoreDumps()   // the private key and the plain signatures are in memory
        let opening: OpeningKey
        do { opening = try OpeningKey.load(path: key) } catch { throw CleanExit.message("\(error)", code: 1) }
        if let out {
            do { try DurableFile.prepareDirectory(out) } catch { throw CleanExit.message("\(error)", code: 1) }
        }
        var failures: [String] = []
        for file in try expand(files) {
            do {
                let written = try SealedFile.decrypt(file: file, with: opening, into: out)
                // A capture that signed a document says which (its hash was authenticated with the ink).
                let sealed = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                let bound = (try? SealedFile.header(of: sealed, file: file))?.document
                print(written + (bound.map { "  (signed the document with SHA-256 \($0))" } ?? ""))
            } catch {
                failures.append("\(error)")
            }
        }
        guard failures.isEmpty else {
            throw CleanExit.message(failures.joined(separator: "\n"), code: 1)
        }
    }

    /// Files as given; a directory becomes its `.hpke` files (none is an error).
    private func expand(_ names: [String]) throws -> [String] {
        try names.flatMap { name -> [String] in
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: name, isDirectory: &isDirectory), isDirectory else { return [name] }
            let sealed = ((try? FileManager.default.contentsOfDirectory(atPath: name)) ?? [])
                .filter { $0.hasSuffix(SealedFile.suffix) }.sorted()
            guard !sealed.isEmpty else { throw CleanExit.message("\(name): no encrypted (.hpke) files in this directory", code: 1) }
            return sealed.map { "\(name)/\($0)" }
        }
    }
}
