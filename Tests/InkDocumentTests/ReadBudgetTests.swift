// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
import InkTestSupport
@testable import InkDocument

/// Files built to make the reader work (Tests/e2e/hostile_pdf.py), each valid and small on disk:
/// the document's `PDFReadLimits` refuse them, and what the reader did is bounded by the file,
/// never by how often it looks things up.
@Suite struct ReadBudget {
    static func hostile(_ arguments: [String], _ name: String) throws -> [UInt8] {
        let dir = try Tools.directory("budget-\(name)")
        let script = Fixtures.packageDirectory.appendingPathComponent("Tests/e2e/hostile_pdf.py").path
        let made = try Tools.run(#require(Tools.which("python3")), [script] + arguments + ["\(dir)/\(name).pdf"])
        #expect(made.status == 0, "\(made.stderr)")
        return try Tools.read("\(dir)/\(name).pdf")
    }

    @Test func aFileBuiltToDefeatACacheInflatesEachObjectStreamOnce() throws {
        // 1000 pages round robin over 100 object streams of 512 KiB each (50 MiB inflated, 67 KB
        // on disk): a reader caching decoded streams up to a bound and looking pages up one by one
        // would inflate half a megabyte per page, 500 MiB.
        // (An eighth of it under emulation.)
        let streams = Emulation.cases(100), pages = 10 * streams
        let bytes = try Self.hostile(["cache-defeat", "--streams", "\(streams)", "--pages", "\(pages)", "--pad-kb", "512"], "cache-defeat")
        #expect(bytes.count < 200_000)
        let document = try PDFDocument(bytes: bytes, limits: PDFReadLimits(maxInflatedBytes: 64 << 20))
        #expect(try document.pages().count == pages)
        let onePass = streams * (512 << 10)
        #expect(document.work.inflated >= onePass && document.work.inflated < onePass + (1 << 20),
                "each object stream inflated once: \(document.work.inflated) bytes")
        // Under a budget below one pass, refused as such.
        let budget = (onePass / 3) >> 20
        let error = #expect(throws: PDFError.self) { try PDFDocument(bytes: bytes, limits: PDFReadLimits(maxInflatedBytes: budget << 20)) }
        #expect(error?.kind == .overBudget && error?.message.contains("more than \(budget) MiB to inflate") == true, "\(String(describing: error))")
    }

    @Test func aFileOfManyValuesIsRefusedOnceTheBudgetIsSpent() throws {
        let count = Emulation.cases(30) * 10_000   // whole arrays of 10 000
        let bytes = try Self.hostile(["values", "--count", "\(count)"], "values")
        let error = #expect(throws: PDFError.self) { try PDFDocument(bytes: bytes, limits: PDFReadLimits(maxValues: count / 3)) }
        #expect(error?.kind == .overBudget && error?.message.contains("more than \(count / 3) values") == true, "\(String(describing: error))")
        let document = try PDFDocument(bytes: bytes, limits: PDFReadLimits(maxValues: count * 2))
        #expect(document.work.values > count && document.work.values < count + 1000, "every value counted once: \(document.work.values)")
    }

    @Test func thePageCountIsCheckedBeforeTheTreeIsWalked() throws {
        // /Count says 100 000 and lies (the tree holds one page): the count is refused before the
        // walk that would find the lie.
        var lying = CraftedPDF(CraftedPDF.onePage("Page"))
        lying.pieces[1] = .object(2, 0, "<< /Type /Pages /Kids [3 0 R] /Count 100000 /MediaBox [0 0 595 842] >>")
        let document = try PDFDocument(bytes: lying.bytes, limits: PDFReadLimits(maxPages: 200))
        let error = #expect(throws: PDFError.self) { try document.pages() }
        #expect(error?.kind == .tooLarge && error?.message.contains("100000 pages, where at most 200 are taken") == true, "\(String(describing: error))")
        // A real tree of 50 000 pages under a limit of 200.
        let count = Emulation.cases(50_000)
        let many = try Self.hostile(["pages", "--count", "\(count)"], "pages")
        let big = try PDFDocument(bytes: many, limits: PDFReadLimits(maxPages: 200))
        #expect(throws: PDFError.self) { try big.pages() }
        #expect(try PDFDocument(bytes: many, limits: PDFReadLimits(maxPages: count)).pages().count == count)
    }

    @Test func aDeadlineEndsTheRead() throws {
        let error = #expect(throws: PDFError.self) { try PDFDocument(bytes: TestPDFs.contract(), limits: PDFReadLimits(maxSeconds: 0)) }
        #expect(error?.kind == .overBudget && error?.message.contains("still reading after 0 s") == true)
    }
}
