// SPDX-License-Identifier: Apache-2.0
// Every seed of every fuzz target (Tests/Fuzz/corpus/TARGET, among them each input a fuzzer or a
// damaged copy once crashed a parser with: regress-*) through the target's own entry function, in
// the ordinary test build: what `make test` runs instead of a sanitized fuzz build, which costs
// it more than ten minutes. A trap, a precondition or the differential target's disagreement
// ends the test process with its message; `scripts/fuzz.sh --runs 1 TARGET` reruns the seeds
// under AddressSanitizer, and `make fuzz` fuzzes.
import Foundation
import InkTestSupport
import Testing

@Suite struct FuzzSeedReplay {
    /// The targets that read their input in this process.
    static let inProcess = ["http", "json", "inklog", "journal", "config", "pdf"]

    /// A target's entry function: the one libFuzzer calls in the fuzz build.
    static func entry(_ target: String) -> (UnsafePointer<UInt8>, Int) -> CInt {
        switch target {
        case "http": fuzzHTTP
        case "json": fuzzJSON
        case "inklog": fuzzInklog
        case "journal": fuzzJournal
        case "config": fuzzConfig
        case "pdf": fuzzPDF
        default: fatalError("no fuzz target \(target)")
        }
    }

    @Test(arguments: inProcess)
    func everySeedIsReadWithoutATrap(target: String) throws {
        try replaySeeds(of: target, through: Self.entry(target))
    }

    /// The differential target starts qpdf and pdfinfo for each PDF our reader takes: a spawn
    /// from a process under qemu-user forks the whole emulator (scripts/arm64/test.sh), and the
    /// other readers are x86 programs anyway (the arm64 run has the "pdf" target's seeds, read by
    /// our reader alone).
    @Test(.disabled(if: Fixtures.emulated, "under emulation: it runs qpdf and pdfinfo for each seed"))
    func everyPDFSeedReadsAsQpdfAndPopplerReadIt() throws {
        try replaySeeds(of: "pdf-reading", through: fuzzPDFReading)
    }

    private func replaySeeds(of target: String, through entry: (UnsafePointer<UInt8>, Int) -> CInt) throws {
        let dir = Fixtures.testsDirectory.appendingPathComponent("Fuzz/corpus/\(target)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(!names.isEmpty, "Tests/Fuzz/corpus/\(target) has no seeds")
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent(name)))
            // libFuzzer never passes a null pointer, even for an empty input.
            let status = (bytes.isEmpty ? [0] : bytes).withUnsafeBufferPointer { entry($0.baseAddress!, bytes.count) }
            #expect(status == 0, "\(target)/\(name): the target returned \(status)")
        }
    }
}
