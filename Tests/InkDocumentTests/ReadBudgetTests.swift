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
        let bytes = try Self.hostile(["cache-defeat", "--streams", "100", "--pages", "1000", "--pad-kb", "512"], "cache-defeat")
        #expect(bytes.count < 200_000)
        let document = try PDFDocument(bytes: bytes, limits: PDFReadLimits(maxInflatedBytes: 64 << 20))
        #expect(try document.pages().count == 1000)
        let onePass = 100 * (512 << 10)
        #expect(document.work.inflated >= onePass && document.work.inflated < onePass + (1 << 20),
                "each object stream inflated once: \(document.work.inflated) bytes")
        // Under a budget below one pass, refused as such.
        let error = #expect(throws: PDFError.self) { try PDFDocument(bytes: bytes, limits: PDFReadLimits(maxInflatedBytes: 16 << 20)) }
        #expect(error?.kind == .overBudget && error?.message.contains("more than 16 MiB to inflate") == true, "\(String(describing: error))")
    }

    @Test func aFileOfManyValuesIsRefusedOnceTheBudgetIsSpent() throws {
        let bytes = try Self.hostile(["values", "--count", "300000"], "values")
        let error = #expect(throws: PDFError.self) { try PDFDocument(bytes: bytes, limits: PDFReadLimits(maxValues: 100_000)) }
        #expect(error?.kind == .overBudget && error?.message.contains("more than 100000 values") == true, "\(String(describing: error))")
        let document = try PDFDocument(bytes: bytes, limits: PDFReadLimits(maxValues: 400_000))
        #expect(document.work.values > 300_000 && document.work.values < 301_000, "every value counted once: \(document.work.values)")
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
        let many = try Self.hostile(["pages", "--count", "50000"], "pages")
        let big = try PDFDocument(bytes: many, limits: PDFReadLimits(maxPages: 200))
        #expect(throws: PDFError.self) { try big.pages() }
        #expect(try PDFDocument(bytes: many, limits: PDFReadLimits(maxPages: 50_000)).pages().count == 50_000)
    }

    @Test func aDeadlineEndsTheRead() throws {
        let error = #expect(throws: PDFError.self) { try PDFDocument(bytes: TestPDFs.contract(), limits: PDFReadLimits(maxSeconds: 0)) }
        #expect(error?.kind == .overBudget && error?.message.contains("still reading after 0 s") == true)
    }
}
