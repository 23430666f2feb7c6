// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
import InkDocumentTestSupport
import InkTestSupport
@testable import InkDocument

/// Our reader against qpdf and poppler: a document our reader takes must read the same in both
/// (pages, their content streams and resources, boxes, rotation, signature fields), and qpdf must
/// have found nothing to repair in it.
enum Differential {
    enum Outcome {
        case agreed(DocumentReading)
        case refused(PDFError)

        var error: PDFError? { if case .refused(let e) = self { e } else { nil } }
    }

    /// Reads `bytes` with our reader; when it takes them, writes them to `DIR/NAME.pdf` and checks
    /// that qpdf and poppler read the same document (each difference an issue of the test).
    @discardableResult
    static func check(_ bytes: [UInt8], _ name: String, in dir: String, limits: PDFReadLimits = .generous) throws -> Outcome {
        let ours: DocumentReading
        do {
            ours = try DocumentReading.ours(PDFDocument(bytes: bytes, limits: limits))
        } catch let error as PDFError {
            return .refused(error)
        }
        let path = "\(dir)/\(name).pdf"
        try Tools.write(bytes, to: path)
        for problem in try differences(ours, path) { Issue.record("\(name): \(problem)") }
        return .agreed(ours)
    }

    /// What qpdf and poppler read differently from `ours` in the file at `path`.
    static func differences(_ ours: DocumentReading, _ path: String) throws -> [String] {
        let qpdf = try #require(Tools.qpdf, "qpdf is needed (scripts/install-deps.sh installs it)")
        let pdfinfo = try #require(Tools.which("pdfinfo"), "pdfinfo (poppler-utils) is needed")
        var out: [String] = []
        let q = try Tools.run(qpdf, QPDFReading.arguments + [path])
        if q.status != 0 || !q.stderr.isEmpty {
            out.append("qpdf (exit \(q.status)) had to repair what our reader took: \(q.stderr.prefix(400))")
        }
        if q.status == 0 || q.status == 3 {
            out += DocumentReading.differences(ours, try QPDFReading.reading(json: Array(q.stdout.utf8)))
        }
        // poppler reads the file as the kiosk shows it: as its signed copy will read (an end of line
        // appended: a linearized file's hints, void after an update, are not used).
        let asSigned = path + ".as-signed.pdf"
        try Tools.write(try Tools.read(path) + [0x0A], to: asSigned)
        let p = try Tools.run(pdfinfo, PopplerPages.arguments(last: ours.pages.count) + [asSigned])
        if !p.stderr.isEmpty { out.append("poppler had to repair what our reader took: \(p.stderr.prefix(400))") }
        if let poppler = PopplerPages(pdfinfo: p.stdout) {
            out += poppler.differences(from: ours)
        } else {
            out.append("pdfinfo could not read it (exit \(p.status)): \(p.stderr.prefix(200))")
        }
        return out
    }
}

/// Documents with one reading: every writer we meet, and every way qpdf can write them again,
/// are taken, and read as qpdf and poppler read them.
@Suite struct OneReadingAgreement {
    @Test func everyWriterAndEveryLayoutReadsAsQpdfAndPopplerReadIt() throws {
        let dir = try Tools.directory("one-reading-corpus")
        var corpus: [(String, [UInt8])] = [
            ("contract", TestPDFs.contract()), ("contract-signed-witness", TestPDFs.contract(signedWitness: true)),
            ("hybrid", try TestPDFs.contractHybrid()),
        ]
        for predictor in [10, 12, 15] { corpus.append(("xref-stream-\(predictor)", try TestPDFs.contractWithXRefStream(predictor: predictor))) }
        corpus.append(("inherited", CraftedPDF(FieldInheritance.pieces).bytes))
        if let cairo = try RealDocuments.cairoWorksheet(into: dir) { corpus.append(("cairo", cairo)) }
        for document in try RealDocuments.debianDocumentation(into: dir).prefix(3) {
            corpus.append((document.name, try Tools.read(document.path)))
        }
        // qpdf writes each of them again: object streams, linearized, QDF, none of either.
        let qpdf = try #require(Tools.qpdf)
        for (name, bytes) in Array(corpus.prefix(7)) {
            try Tools.write(bytes, to: "\(dir)/in-\(name).pdf")
            for (tag, options) in [("objstm", ["--object-streams=generate"]), ("linear", ["--linearize"]),
                                   ("qdf", ["--qdf", "--object-streams=disable"]), ("plain", ["--object-streams=disable", "--compress-streams=n"])] {
                let out = "\(dir)/\(name)-\(tag)-written.pdf"
                let result = try Tools.run(qpdf, options + ["--deterministic-id", "\(dir)/in-\(name).pdf", out])
                #expect(result.status == 0, "qpdf \(options) \(name): \(result.stderr)")
                corpus.append(("\(name)-\(tag)", try Tools.read(out)))
            }
        }
        // And our own updates: a signed contract, signed again.
        let first = try InkSigning.sign(PDFDocument(bytes: TestPDFs.contract()), with: TestPDFs.ink(width: 228, height: 60),
                                        at: .field("sign.customer"))
        let second = try InkSigning.sign(PDFDocument(bytes: first.bytes), with: TestPDFs.ink(width: 220, height: 60), at: .field("sign.witness"))
        corpus += [("signed-once", first.bytes), ("signed-twice", second.bytes)]
        let streamSigned = try InkSigning.sign(PDFDocument(bytes: TestPDFs.contractWithXRefStream(predictor: 12)),
                                               with: TestPDFs.ink(width: 100, height: 40), at: .newField(name: "n", pageIndex: 0, rect: PDFRect(72, 72, 172, 112)))
        corpus.append(("xref-stream-signed", streamSigned.bytes))

        var pages = 0
        for (name, bytes) in corpus {
            switch try Differential.check(bytes, name, in: dir) {
            case .agreed(let reading): pages += reading.pages.count
            case .refused(let error): Issue.record("\(name) is refused: \(error)")
            }
        }
        print("one reading: \(corpus.count) documents, \(pages) pages, each read alike by our reader, qpdf and poppler")
        #expect(corpus.count >= 40)
    }

    /// Damaged copies (a fixed seed: the same every run): most are refused; every one our reader
    /// still takes reads as qpdf and poppler read it, and qpdf found nothing to repair in it.
    @Test func damagedCopiesOurReaderTakesReadAsQpdfAndPopplerReadThem() throws {
        let dir = try Tools.directory("one-reading-damaged")
        let sources: [(String, [UInt8])] = [("contract", TestPDFs.contract()), ("xref-stream", try TestPDFs.contractWithXRefStream(predictor: 12)),
                                            ("hybrid", try TestPDFs.contractHybrid())]
        var rng = SplitMix64(seed: 0x1ead_0ead)
        var total = 0, taken = 0
        var reasons: [PDFError.Kind: Int] = [:]
        for (name, bytes) in sources {
            for i in 0..<Emulation.cases(300) {
                // Half the copies damaged as `DamagedFiles` does (offsets moved: nearly all refused),
                // half with bytes changed in place (offsets kept: many still have one reading).
                let copy = i % 2 == 0 ? DamagedFiles.damaged(bytes, &rng) : Self.changedInPlace(bytes, &rng)
                total += 1
                switch try Differential.check(copy, "\(name)-\(i)", in: dir) {
                case .agreed: taken += 1
                case .refused(let error): reasons[error.kind, default: 0] += 1
                }
            }
        }
        print("damaged copies: \(total); \(taken) taken, each read alike by qpdf and poppler; refused: \(reasons.sorted { "\($0.key)" < "\($1.key)" })")
        #expect(taken >= total / 20, "bytes changed in place often leave one reading (a letter of a text, say)")
        #expect(reasons[.ambiguous, default: 0] > 0)
    }

    /// 1–3 bytes replaced where they are, by a letter, a digit or a PDF delimiter.
    static func changedInPlace(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /[]<>()%\n".utf8)
        for _ in 0...rng.below(3) { out[rng.below(out.count)] = alphabet[rng.below(alphabet.count)] }
        return out
    }
}

/// The families of attacks on what a signer sees (Mladenov et al., CCS 2019; Mainka, Mladenov,
/// Rohlmann, NDSS 2021), as a signature kiosk meets them: a host's file that shows one document
/// and is signed as another. Each file is made twice, without the trick (taken, and read alike by
/// qpdf and poppler) and with it (refused, saying why and at which byte).
@Suite struct OneReadingRefusals {
    /// One directory for the suite's files (its tests run at once: none may empty it for another).
    static let directory = Result { try Tools.directory("one-reading-attacks") }
    var dir: String { (try? Self.directory.get()) ?? "/tmp" }

    /// The plain file is taken; the tricked one refused as `kind`, its message holding `words`.
    @discardableResult
    func refused(_ name: String, plain: CraftedPDF, tricked: CraftedPDF, _ kind: PDFError.Kind = .ambiguous, saying words: String,
                 at place: Int? = nil) throws -> PDFError? {
        guard case .agreed = try Differential.check(plain.bytes, "\(name)-plain", in: dir) else {
            Issue.record("\(name): the file without the trick is refused too: the test proves nothing")
            return nil
        }
        let bytes = tricked.bytes
        try Tools.write(bytes, to: "\(dir)/\(name)-tricked.pdf")
        guard let error = try Differential.check(bytes, "\(name)-tricked", in: dir).error else {
            Issue.record("\(name): the tricked file is taken")
            return nil
        }
        #expect(error.kind == kind, "\(name): \(error)")
        #expect(error.description.contains(words), "\(name): \(error)")
        if let place { #expect(error.offset == place, "\(name): \(error)") }
        return error
    }

    /// poppler's text of page 1.
    func popplerText(_ name: String) throws -> String {
        try Tools.run(#require(Tools.pdftotext), ["-f", "1", "-l", "1", "\(dir)/\(name)-tricked.pdf", "-"]).stdout
    }

    // MARK: hide and replace, in the objects (shadow attacks)

    @Test func aCatalogWithTwoPageTrees() throws {
        // The reader that keeps a key's first value signs the 10 EUR tree; poppler shows 10000 EUR.
        var pieces = CraftedPDF.onePage("Total 10 EUR")
        pieces += [.object(6, 0, "<< /Type /Pages /Kids [7 0 R] /Count 1 /MediaBox [0 0 595 842] >>"),
                   .object(7, 0, "<< /Type /Page /Parent 6 0 R /Contents 8 0 R /Resources << /Font << /F1 5 0 R >> >> >>"),
                   .stream(8, "", CraftedPDF.content("Total 10000 EUR"))]
        var tricked = CraftedPDF(pieces)
        tricked.pieces[0] = .object(1, 0, "<< /Type /Catalog /Pages 2 0 R /Pages 6 0 R >>")
        let error = try refused("two-pages", plain: CraftedPDF(pieces), tricked: tricked, saying: "the key /Pages is given twice")
        let text = String(decoding: tricked.bytes, as: UTF8.self)
        let second = try #require(text.range(of: "/Pages 6 0 R"))
        #expect(error?.offset == text.utf8.distance(from: text.utf8.startIndex, to: second.lowerBound), "the byte of the second /Pages")
        #expect(try popplerText("two-pages").contains("10000 EUR"), "poppler reads the second tree: the file has two readings")
    }

    @Test func aPageWithTwoContents() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("I agree to pay 10 EUR") + [.stream(6, "", CraftedPDF.content("I agree to pay 10000 EUR"))])
        var tricked = plain
        tricked.pieces[2] = .object(3, 0, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>")
        try refused("two-contents", plain: plain, tricked: tricked, saying: "the key /Contents is given twice")
        #expect(try popplerText("two-contents").contains("10000 EUR"))
    }

    @Test func aKeyGivenTwiceAnywhereInTheFile() throws {
        // Even in an object nothing of the signature reads (a font): poppler draws with it.
        let plain = CraftedPDF(CraftedPDF.onePage("Terms"))
        var tricked = plain
        tricked.pieces[4] = .object(5, 0, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /BaseFont /Courier >>")
        try refused("font-key-twice", plain: plain, tricked: tricked, saying: "the key /BaseFont is given twice")
    }

    @Test func anObjectTheCrossReferenceDoesNotList() throws {
        // A second `4 0 obj` after the first: invisible to a reader that follows the table, found
        // by one that rebuilds the file (which takes the last).
        let plain = CraftedPDF(CraftedPDF.onePage("Total 10 EUR"))
        var tricked = plain
        tricked.pieces.append(.stream(4, "", CraftedPDF.content("Total 10000 EUR"), listed: false))
        try refused("shadowed-object", plain: plain, tricked: tricked, saying: "object 4 0 is listed by no cross-reference section")
    }

    @Test func anEntryThatPointsAtAnotherObjectOrGeneration() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Total"))
        let offsets = try Self.offsets(plain.bytes)
        var other = plain
        other.overrides[4] = (offsets[5] ?? 0, 0)   // object 4's entry at object 5
        try refused("entry-at-another", plain: plain, tricked: other, saying: "where object 5 0 is")
        var generation = plain
        generation.pieces[3] = .raw("4 1 obj\n<< /Length 3 >>\nstream\nabc\nendstream\nendobj\n")
        generation.overrides[4] = (offsets[4] ?? 0, 0)
        try refused("entry-generation", plain: plain, tricked: generation, saying: "where object 4 1 is")
    }

    @Test func anEntryThatPointsAtNoObject() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Total"))
        var tricked = plain
        tricked.overrides[5] = (((try Self.offsets(plain.bytes))[5] ?? 0) + 3, 0)
        try refused("entry-nowhere", plain: plain, tricked: tricked, saying: "where no object starts")
    }

    @Test func aSectionThatListsANumberTwice() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Total"))
        var tricked = plain
        tricked.listedTwice = [4]
        try refused("listed-twice", plain: plain, tricked: tricked, saying: "lists object 4 twice")
    }

    @Test func aReferenceToNothing() throws {
        // poppler rebuilds the cross-reference when a reference leads nowhere; others read null.
        let plain = CraftedPDF(CraftedPDF.onePage("Total"))
        var tricked = plain
        tricked.pieces[2] = .object(3, 0, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 9 0 R >> >> >>")
        try refused("dangling-reference", plain: plain, tricked: tricked, saying: "refers to 9 0 R, which is no object in use")
        var generation = plain
        generation.pieces[2] = .object(3, 0, "<< /Type /Page /Parent 2 0 R /Contents 4 1 R /Resources << /Font << /F1 5 0 R >> >> >>")
        try refused("reference-generation", plain: plain, tricked: generation, saying: "refers to 4 1 R")
    }

    @Test func aSizeThatHidesObjects() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Total"))
        var tricked = plain
        tricked.size = 4
        try refused("size-too-small", plain: plain, tricked: tricked, saying: "the trailer's /Size is 4")
    }

    // MARK: the file's end (incremental saving)

    @Test func bytesAfterTheLastEOF() throws {
        // An update after %%EOF without its own: some readers take it, others stop at %%EOF.
        let plain = CraftedPDF(CraftedPDF.onePage("Total 10 EUR"))
        var tricked = plain
        tricked.tail = "4 0 obj\n<< /Length 3 >>\nstream\nabc\nendstream\nendobj\n"
        try refused("after-eof", plain: plain, tricked: tricked, saying: "does not end with 'startxref'", at: plain.bytes.count)
        var comment = plain
        comment.tail = "%garbage\n"
        try refused("comment-after-eof", plain: plain, tricked: comment, saying: "does not end with 'startxref'")
        var spaces = plain
        spaces.tail = "\r\n\n  \u{0}\n"
        #expect(try Differential.check(spaces.bytes, "spaces-after-eof", in: dir).error == nil, "white space after %%EOF is nothing")
    }

    @Test func anUpdateTheStartxrefDoesNotReach() throws {
        // An update appended with its own table, but the file's last startxref still names the
        // original's: a reader that rebuilds reads the update, one that follows startxref does not.
        let plain = CraftedPDF(CraftedPDF.onePage("Total 10 EUR"))
        let original = plain.bytes
        let text = String(decoding: original, as: UTF8.self)
        let xref = try #require(text.range(of: "startxref\n")).upperBound
        let newest = Int(text[xref...].prefix { $0.isNumber }) ?? 0
        let data = String(decoding: CraftedPDF.content("Total 10000 EUR"), as: UTF8.self)
        var update = "4 0 obj\n<< /Length \(data.utf8.count) >>\nstream\n\(data)\nendstream\nendobj\n"
        let objectAt = original.count
        let tableAt = original.count + update.utf8.count
        update += String(format: "xref\n4 1\n%010d 00000 n \ntrailer\n<< /Size 6 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", objectAt, newest, newest)
        let bytes = original + Array(update.utf8)
        try Tools.write(bytes, to: "\(dir)/stale-startxref-tricked.pdf")
        let error = try #require(try Differential.check(bytes, "stale-startxref-tricked", in: dir).error, "taken")
        #expect(error.kind == .ambiguous && error.offset == tableAt, "\(error)")
        #expect(error.message.contains("the file's /Prev chain does not reach"), "\(error)")
    }

    @Test func bytesBeforeTheHeaderOrBetweenObjects() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Total"))
        var junk = plain
        junk.head = "Content-Type: application/pdf\r\n\r\n"
        try refused("junk-before-header", plain: plain, tricked: junk, saying: "before '%PDF-'", at: 0)
        var between = plain
        between.pieces.insert(.raw("4 0 R endobj trailer << >>\n"), at: 3)
        try refused("junk-between-objects", plain: plain, tricked: between, saying: "bytes that are no object")
    }

    @Test func aStreamWhoseLengthIsWrong() throws {
        // Readers that look for `endstream` instead find the one inside the data.
        let data = Array("BT /F1 36 Tf 72 700 Td (Total 10 EUR) Tj ET\nendstream\nBT /F1 36 Tf 72 600 Td (and 10000 more) Tj ET".utf8)
        let plain = CraftedPDF(Array(CraftedPDF.onePage("x").prefix(3)) + [.stream(4, "", data), CraftedPDF.onePage("x")[4]])
        // A /Length that ends at the `endstream` inside the data: what follows is no object.
        var tricked = plain
        tricked.pieces[3] = .stream(4, "", data, length: 44)
        try refused("short-length", plain: plain, tricked: tricked, saying: "is not closed by 'endobj'")
        // One that ends at no `endstream`.
        tricked.pieces[3] = .stream(4, "", data, length: 40)
        try refused("wrong-length", plain: plain, tricked: tricked, saying: "does not end at 'endstream'")
    }

    @Test func aHybridFileWhoseTableAndStreamDisagree() throws {
        // The table puts object 10 in the file; its /XRefStm stream puts it in the object stream:
        // readers that know hybrid files and those that do not read different widgets.
        #expect(try Differential.check(TestPDFs.contractHybrid(), "hybrid-plain", in: dir).error == nil)
        let tricked = try TestPDFs.contractHybrid(conflicting: true)
        try Tools.write(tricked, to: "\(dir)/hybrid-conflict-tricked.pdf")
        let error = try #require(try Differential.check(tricked, "hybrid-conflict-tricked", in: dir).error, "taken")
        #expect(error.kind == .ambiguous && error.message.contains("in its /XRefStm stream"), "\(error)")
    }

    @Test func anObjectStreamWhoseIndexIsWrong() throws {
        // The stream's entry says object 9 is the stream's 7th; it is the 6th (a reader that
        // searches by number finds it, one that trusts the index finds another).
        let plain = try TestPDFs.contractWithXRefStream(predictor: 12)
        let document = try PDFDocument(bytes: plain)
        guard case .inObjectStream(let stream, let index)? = document.crossReference.entries[9] else { Issue.record("9 not compressed"); return }
        #expect(stream == 14 && index == 6)
        let tricked = try TestPDFs.contractWithXRefStream(predictor: 12, indexOf9: 5)
        try Tools.write(tricked, to: "\(dir)/objstm-index-tricked.pdf")
        let error = try #require(try Differential.check(tricked, "objstm-index-tricked", in: dir).error, "taken")
        #expect(error.kind == .ambiguous && error.description.contains("object stream 14"), "\(error)")
    }

    // MARK: the page tree and what pages inherit

    @Test func aPageTreeThatSharesOrLoops() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Page"))
        var shared = plain
        shared.pieces[1] = .object(2, 0, "<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 /MediaBox [0 0 595 842] >>")
        try refused("shared-kid", plain: plain, tricked: shared, saying: "appears twice in the page tree")
    }

    @Test func aCountThatLies() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Page"))
        var tricked = plain
        tricked.pieces[1] = .object(2, 0, "<< /Type /Pages /Kids [3 0 R] /Count 2 /MediaBox [0 0 595 842] >>")
        try refused("count-lies", plain: plain, tricked: tricked, saying: "/Count is 2 but it holds 1 pages")
    }

    @Test func aParentThatLiesAboutWhatIsInherited() throws {
        // The page is listed under node 2 (portrait, no turn) but names node 6 (turned, landscape):
        // poppler walks down (portrait), pdf.js goes up /Parent (landscape, turned).
        var pieces = CraftedPDF.onePage("Page")
        pieces.append(.object(6, 0, "<< /Type /Pages /Kids [] /Count 0 /MediaBox [0 0 842 595] /Rotate 90 >>"))
        let plain = CraftedPDF(pieces)
        var tricked = plain
        tricked.pieces[2] = .object(3, 0, "<< /Type /Page /Parent 6 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>")
        try refused("parent-lies", plain: plain, tricked: tricked, saying: "/Parent is 6 0 R, but 2 0 R lists it")
    }

    @Test func inheritedAttributesReadersFallBackOnDifferently() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Page", page: "/Rotate 90"))
        for (name, attribute, words) in [("rotate-real", "/Rotate 90.0", "/Rotate is not a whole quarter turn"),
                                         ("rotate-odd", "/Rotate 45", "/Rotate is not a whole quarter turn"),
                                         ("mediabox-broken", "/MediaBox [0 0 (a) 842]", "/MediaBox is not a box"),
                                         ("mediabox-flat", "/MediaBox [0 0 595 0]", "/MediaBox is not a box"),
                                         ("cropbox-outside", "/CropBox [700 0 900 842]", "reaches outside its /MediaBox"),
                                         ("cropbox-wider", "/CropBox [-10 0 600 842]", "reaches outside its /MediaBox"),
                                         ("resources-name", "/Resources /None", "/Resources is not a dictionary")] {
            var tricked = plain
            tricked.pieces[2] = .object(3, 0, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R \(attribute.hasPrefix("/Resources") ? "" : "/Resources << /Font << /F1 5 0 R >> >>") \(attribute) >>")
            try refused(name, plain: plain, tricked: tricked, saying: words)
        }
        var noBox = CraftedPDF(CraftedPDF.onePage("Page"))
        noBox.pieces[1] = .object(2, 0, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        try refused("no-mediabox", plain: plain, tricked: noBox, saying: "has no /MediaBox")
    }

    @Test func aNodeThatDoesNotSayWhatItIs() throws {
        let plain = CraftedPDF(CraftedPDF.onePage("Page"))
        var tricked = plain
        tricked.pieces[2] = .object(3, 0, "<< /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>")
        try refused("untyped-node", plain: plain, tricked: tricked, saying: "neither /Type /Page nor /Type /Pages")
    }

    // MARK: the form

    @Test func aSignatureWidgetOnTwoPagesOrAgainstItsP() throws {
        func form(_ annots: (String, String), p: String) -> CraftedPDF {
            CraftedPDF([
                .object(1, 0, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R] >> >>"),
                .object(2, 0, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 595 842] >>"),
                .object(3, 0, "<< /Type /Page /Parent 2 0 R \(annots.0) >>"),
                .object(4, 0, "<< /Type /Page /Parent 2 0 R \(annots.1) >>"),
                .object(5, 0, "(unused)"),
                .object(6, 0, "<< /FT /Sig /T (customer) /Type /Annot /Subtype /Widget /Rect [72 72 272 132] \(p) >>"),
            ])
        }
        let plain = form(("", "/Annots [6 0 R]"), p: "/P 4 0 R")
        try refused("widget-two-pages", plain: plain, tricked: form(("/Annots [6 0 R]", "/Annots [6 0 R]"), p: ""), saying: "is listed on pages 1 and 2")
        try refused("widget-against-p", plain: plain, tricked: form(("/Annots [6 0 R]", ""), p: "/P 4 0 R"), saying: "but its /P names page 2")
    }

    @Test func aFieldWhoseParentIsAnotherField() throws {
        // The kid named `sign.customer` by the walk down is `other.customer` by its /Parent.
        func form(_ parent: String) -> CraftedPDF {
            CraftedPDF([
                .object(1, 0, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 6 0 R] >> >>"),
                .object(2, 0, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 595 842] >>"),
                .object(3, 0, "<< /Type /Page /Parent 2 0 R /Annots [5 0 R] >>"),
                .object(4, 0, "<< /FT /Sig /T (sign) /Kids [5 0 R] >>"),
                .object(5, 0, "<< /Type /Annot /Subtype /Widget /T (customer) /Parent \(parent) /Rect [72 72 272 132] /P 3 0 R >>"),
                .object(6, 0, "<< /FT /Sig /T (other) >>"),
            ])
        }
        try refused("field-parent", plain: form("4 0 R"), tricked: form("6 0 R"), saying: "has /Parent 6 0 R but is listed by 4 0 R")
    }

    static func offsets(_ bytes: [UInt8]) throws -> [Int: Int] {
        let document = try PDFDocument(bytes: bytes)
        var out: [Int: Int] = [:]
        for (n, entry) in document.crossReference.entries { if case .inFile(let o, _) = entry { out[n] = o } }
        return out
    }
}

/// The document of `boxesAndRotationAreInheritedThroughThePageTree`: boxes and a turn inherited
/// down two levels, a crop box, a field merged with its widget.
enum FieldInheritance {
    static let pieces: [CraftedPDF.Piece] = [
        .object(1, 0, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R] >> >>"),
        .object(2, 0, "<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 3 /MediaBox [0 0 612 792] >>"),
        .object(3, 0, "<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 7 0 R] /Count 2 /CropBox [10 10 600 780] /Rotate 90 >>"),
        .object(4, 0, "<< /Type /Page /Parent 3 0 R >>"),
        .object(5, 0, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 842 595] /Rotate -180 /Annots [6 0 R] >>"),
        .object(6, 0, "<< /FT /Sig /T (only) /Type /Annot /Subtype /Widget /Rect [10 20 110 70] >>"),
        .object(7, 0, "<< /Type /Page /Parent 3 0 R /MediaBox [0 0 100 100] /CropBox [0 0 50 50] >>"),
    ]
}

/// A linearized file's hint tables and /N are a second reading of its pages, which poppler uses
/// (its page count is /N) and which an update makes void. The kiosk has poppler read a document
/// as its signed copy will read (`HelperRequest.asSigned`: an end of line appended), so the
/// signer sees the page tree every reader of the signed file sees.
@Suite struct LinearizedHints {
    @Test func aLinearizedFileWhosePageCountLiesShowsItsTreeAsSigned() throws {
        let dir = try Tools.directory("linearized-hints")
        try Tools.write(TestPDFs.contract(), to: "\(dir)/contract.pdf")
        let qpdf = try #require(Tools.qpdf), pdfinfo = try #require(Tools.which("pdfinfo"))
        #expect(try Tools.run(qpdf, ["--linearize", "--deterministic-id", "\(dir)/contract.pdf", "\(dir)/linear.pdf"]).status == 0)
        // /N 2 made /N 1, in place.
        var lying = try Tools.read("\(dir)/linear.pdf")
        let n = try #require(PDFParser.find(Array("/N 2".utf8), in: lying, from: 0, to: 1024))
        lying[n + 3] = UInt8(ascii: "1")
        try Tools.write(lying, to: "\(dir)/lying.pdf")
        func pages(_ path: String) throws -> Int? { PopplerPages(pdfinfo: try Tools.run(pdfinfo, [path]).stdout)?.count }
        #expect(try pages("\(dir)/lying.pdf") == 1, "poppler trusts the linearization's /N: a second reading")
        try Tools.write(lying + [0x0A], to: "\(dir)/lying-as-signed.pdf")
        #expect(try pages("\(dir)/lying-as-signed.pdf") == 2, "read as signed: the page tree")
        #expect(try PDFDocument(bytes: lying).pages().count == 2)
        let signed = try InkSigning.sign(PDFDocument(bytes: lying), with: TestPDFs.ink(width: 228, height: 60), at: .field("sign.customer"))
        try Tools.write(signed.bytes, to: "\(dir)/lying-signed.pdf")
        #expect(try pages("\(dir)/lying-signed.pdf") == 2, "the signed file: every reader reads the tree")
    }
}
