// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkTestSupport
import InkCore
@testable import InkDocument

/// Randomly damaged copies of the test PDFs (a fixed seed: the same copies every run): none
/// may trap; each either reads (and then signs) or throws a `PDFError`.
@Suite struct DamagedFiles {
    /// Tokens that make a parser's life hard when dropped into a file.
    static let tokens = ["<<", ">>", "[", "]", "(", ")", "<", ">", "R", " 0 obj ", "endobj", "stream\n", "endstream",
                         "/Prev 0", "/Length 999999999", "/Size 8388608", "/N 100000", "/W [8 8 8]", "%", "\\", "#",
                         "9999999999999999999999", "-1", "0 0 R", "1 0 R", "xref\n0 1\n", "trailer", "startxref\n0\n",
                         "/Kids [2 0 R 2 0 R]", "/Type /Pages", "/FT /Sig", "/Filter /FlateDecode", "/Predictor 15"]

    static func damaged(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        // Half of the damage near the end, where the cross-reference and trailer are.
        func place() -> Int {
            rng.below(2) == 0 ? rng.below(out.count + 1) : max(0, out.count - 1 - rng.below(min(out.count, 600)))
        }
        for _ in 0...rng.below(3) {
            switch rng.below(6) {
            case 0:   // bytes changed
                for _ in 0...rng.below(8) where !out.isEmpty { out[min(place(), out.count - 1)] = UInt8(truncatingIfNeeded: rng.next()) }
            case 1:   // cut short
                out.removeLast(min(out.count, rng.below(out.count / 4 + 2)))
            case 2:   // a run taken out
                let at = place(), n = min(out.count - at, 1 + rng.below(200))
                out.removeSubrange(at..<(at + n))
            case 3:   // a run repeated
                let at = place(), n = min(out.count - at, 1 + rng.below(400))
                out.insert(contentsOf: out[at..<(at + n)], at: place())
            case 4:   // a token dropped in
                out.insert(contentsOf: Array(tokens[rng.below(tokens.count)].utf8), at: place())
            default:  // a digit made another (offsets, lengths, counts, numbers)
                let digits = out.indices.filter { (0x30...0x39).contains(out[$0]) }
                if !digits.isEmpty { out[digits[rng.below(digits.count)]] = UInt8(0x30 + rng.below(10)) }
            }
        }
        return out
    }

    @Test func thousandsOfDamagedCopiesNeverTrap() throws {
        let dir = try Tools.directory("damaged")
        var sources: [(name: String, bytes: [UInt8], copies: Int)] = [
            ("contract", TestPDFs.contract(), 1200),
            ("contract-signed", TestPDFs.contract(signedWitness: true), 300),
            ("contract-xrefstream", try TestPDFs.contractWithXRefStream(predictor: 15), 1200),
        ]
        if let cairo = try RealDocuments.cairoWorksheet(into: dir, pages: 1) { sources.append(("cairo", cairo, 500)) }
        if let qpdf = Tools.qpdf {
            try Tools.write(TestPDFs.contract(), to: "\(dir)/in.pdf")
            if try Tools.run(qpdf, ["--object-streams=generate", "--deterministic-id", "\(dir)/in.pdf", "\(dir)/objstm.pdf"]).status == 0 {
                sources.append(("qpdf-objstm", try Tools.read("\(dir)/objstm.pdf"), 800))
            }
        }
        if let smallest = try RealDocuments.debianDocumentation(into: dir).first {
            sources.append((smallest.name, try Tools.read(smallest.path), 300))
        }

        var rng = SplitMix64(seed: 0x1d0c_5eed)
        var total = 0, read = 0, signed = 0
        var kinds: [String: Int] = [:], reasons: [String: Int] = [:]
        for source in sources {
            #expect(try PDFDocument(bytes: source.bytes).pages().count > 0, "\(source.name) reads undamaged")
            for _ in 0..<Emulation.cases(source.copies) {
                let copy = Self.damaged(source.bytes, &rng)
                total += 1
                do {
                    let document = try PDFDocument(bytes: copy)
                    let signable = try document.signable()
                    read += 1
                    guard let page = signable.pages.first else { continue }
                    let rect = PDFRect(page.cropBox.x0 + 10, page.cropBox.y0 + 10, page.cropBox.x0 + 110, page.cropBox.y0 + 50)
                    let updated = try InkSigning.sign(document, with: TestPDFs.ink(width: 100, height: 40),
                                                      at: .newField(name: "mutant", pageIndex: 0, rect: rect))
                    #expect(updated.bytes.starts(with: copy))
                    _ = try PDFDocument(bytes: updated.bytes).signable()
                    signed += 1
                } catch let error as PDFError {
                    kinds["\(error.kind)", default: 0] += 1
                    // The reason without its numbers: which checks refuse damaged files most.
                    reasons[String(error.message.filter { !$0.isNumber }.prefix(70)), default: 0] += 1
                } catch {
                    Issue.record("\(source.name): an error that is not a PDFError: \(error)")
                }
            }
        }
        print("damaged copies: \(total), read \(read), signed \(signed), refused \(kinds.sorted { $0.key < $1.key })")
        for (reason, count) in reasons.sorted(by: { $0.value > $1.value }).prefix(12) { print("  \(count)× \(reason)") }
        #expect(total >= Emulation.cases(3000))
        #expect(read > 0 && read < total, "some copies still read, some not")
    }
}
