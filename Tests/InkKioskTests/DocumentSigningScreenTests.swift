// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkConfig
import InkCore
import InkAPI
import InkDocument
import InkDocumentSigning
import InkRender
@testable import InkKiosk
@testable import InkStorage
import InkTestSupport
import InkWorksheetTestSupport

/// A host's contract on the signature screen: read page by page with finger taps (the pen
/// draws nothing there), then signed in its field's enlarged view; Accept writes the signed PDF.
@Suite struct DocumentSigningScreenTests {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("document-screen-\(UUID().uuidString.prefix(8))") }

    /// The field on page 2, in points (y up): below the worksheet's box, right half.
    static let field = PDFRect(300, 100, 520, 170)

    /// A two-page contract (page n says "Worksheet n") with an unsigned signature field
    /// "customer" on page 2 (a new field with no ink is a field with no value).
    func contract() throws -> DocumentToSign {
        let plain = "\(dir)/contract-plain.pdf", path = "\(dir)/contract.pdf"
        try Worksheets.make(plain, pages: 2, title: "Rental contract")
        let withField = try InkSigning.sign(PDFDocument(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: plain)))), with: VectorInk([]),
                                            at: .newField(name: "customer", pageIndex: 1, rect: Self.field))
        try Data(withField.bytes).write(to: URL(fileURLWithPath: path))
        let signable = try PDFDocument(bytes: withField.bytes).signable()
        let target = SignatureTarget.field("customer")
        let place = try signable.place(of: target)
        return DocumentToSign(id: "doc1", path: path, sha256: SignatureCapture.sha256(Data(withField.bytes)), pageCount: 2,
                              target: target, pageIndex: place.pageIndex, rect: place.rect, pageBox: place.pageBox, review: .allPages)
    }

    func booth() throws -> (Booth, SignatureScreen) {
        var s = ScreenSettings()
        s.mode = .signature
        s.capture.outbox = "\(dir)/outbox"
        s.api.address = "127.0.0.1:0"
        s.pdfHelper.executable = Fixtures.inkkioskBinary
        s.pdfHelper.requiresSeccomp = !Fixtures.emulated
        let booth = try Booth(s)
        return (booth, try #require(booth.screen as? SignatureScreen))
    }

    @Test func aContractIsReadPageByPageThenSignedInItsFieldAndThePDFKeepsTheOriginal() throws {
        let document = try contract()
        let (booth, screen) = try booth()
        var outcomes: [SignatureScreen.Outcome] = []
        screen.onFinished = { outcomes.append($1) }
        screen.start(.init(id: "req1", prompt: "Please sign the rental contract", document: document), booth.context)
        try booth.frame()
        #expect(screen.session?.phase == .review(page: 1))
        try booth.png("document-review-page1")
        // The page is under the buttons' bar: "Worksheet 1" in the page's top-left quarter.
        let area = screen.documentLayout.area
        let fit = PageFit(pageWidth: Worksheets.a4.width, pageHeight: Worksheets.a4.height, into: area)
        let heading = fit.toScreen(Point(72, 90))
        #expect(booth.shown.inkNear(Int(heading.x) + 20, Int(heading.y), radius: 12), "the page's heading is shown")

        // The pen does not draw on a page being read.
        try booth.draw([Point(600, 300), Point(700, 350), Point(800, 300)])
        #expect(booth.pipeline.document.strokes.isEmpty, "no ink while reading")

        // Sign before page 2 was shown: refused, still reading.
        try booth.tap(.sign)
        #expect(screen.session?.phase == .review(page: 1))
        #expect(screen.message == Notice("Please read every page before signing", warning: true), "\(String(describing: screen.message))")
        try booth.tap(.nextPage)
        #expect(screen.session?.phase == .review(page: 2))
        try booth.png("document-review-page2")
        try booth.tap(.sign)
        #expect(screen.session?.phase == .signing)
        let box = try #require(screen.session?.box)
        // Enlarged, its aspect kept: 220 × 70 pt become most of the screen's width.
        #expect(box.width > 900 && abs(box.width / box.height - 220.0 / 70.0) < 0.02, "\(box)")
        try booth.png("document-signing-view")

        // A stroke begun outside the field is no ink; one inside is.
        try booth.draw([Point(box.minX + 20, box.maxY + 40), Point(box.minX + 200, box.maxY + 60)])
        #expect(booth.pipeline.document.strokes.isEmpty, "no ink starts outside the field")
        let y = box.minY + box.height / 2
        try booth.draw([Point(box.minX + 60, y), Point(box.minX + 200, y - 60), Point(box.minX + 350, y + 50),
                        Point(box.minX + 500, y - 40), Point(box.maxX - 80, y + 20)])
        #expect(booth.pipeline.document.strokes.count == 1)
        try booth.png("document-signed-on-screen")
        try booth.tap(.accept)
        guard case .accepted(let paths, _, _)? = outcomes.first else { Issue.record("not accepted: \(outcomes)"); return }
        let pdf = try #require(paths.first { $0.hasSuffix(".pdf") }, "\(paths)")

        let original = try Data(contentsOf: URL(fileURLWithPath: document.path))
        let signed = try Data(contentsOf: URL(fileURLWithPath: pdf))
        #expect(signed.count > original.count && signed.prefix(original.count) == original, "the original is a byte prefix")
        let json = try #require(paths.first { $0.hasSuffix(".json") })
        let meta = try JSONDecoder().decode(SignatureCapture.Metadata.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(meta.document?.place == document.place && meta.document?.place.page == 2 && meta.document?.pagesShown == [1, 2])

        // The ink, rasterised: inside the field's rectangle, and nowhere else on the page.
        let changed = try PDFPixels.changed(from: document.path, to: pdf, page: 2, dir: dir)
        let r = Self.field
        let inside = changed.filter { $0.x >= Int(r.x0) - 1 && $0.x <= Int(r.x1) + 1
            && $0.y >= Int(842 - r.y1) - 1 && $0.y <= Int(842 - r.y0) + 1 }
        #expect(inside.count > 150, "ink in the field: \(inside.count) pixels")
        #expect(changed.count == inside.count, "\(changed.count - inside.count) pixels changed outside the field")
    }

    /// Through the desk, as the API hands it over: the host hears "accepted" with the signed
    /// PDF among the files, and with the device's identity the update is a digital signature,
    /// with the request's lock (a certification here).
    @Test func theHostGetsTheSignedPDFDigitallySignedByTheDevice() throws {
        var document = try contract()
        document.review = .none
        document.lock = .certifyFormFilling
        let (desk, request, status, _) = try signedThroughTheDesk(document)
        let pdf = try #require(status.files?.pdf, "\(status)")
        #expect(status.state == .accepted && status.document?.sha256 == document.sha256 && status.document?.field == "customer")
        let pdfsig = try run(try #require(which("pdfsig"), "pdfsig (poppler-utils): run make deps"), [pdf])
        #expect(pdfsig.stdout.contains("Signature Validation: Signature is Valid."), "\(pdfsig.stdout)")
        #expect(pdfsig.stdout.contains("Kiosk 7"), "the device's certificate: \(pdfsig.stdout)")
        // The certification: the catalog's /Perms /DocMDP is the field's signature, with /P 2; the record says so.
        let signed = try PDFDocument(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: pdf))))
        let field = try #require(try signed.signable().signatureFields.first { $0.name == "customer" }?.reference)
        let value = try #require(try signed.dictionary(.reference(field))?["V"])
        #expect(try signed.dictionary(try signed.catalog()["Perms"])?["DocMDP"] == value)
        let reference = try signed.dictionary(try signed.array(try signed.dictionary(value)?["Reference"])?.first)
        #expect(try signed.dictionary(reference?["TransformParams"])?["P"] == .integer(2))
        let meta = try JSONDecoder().decode(SignatureCapture.Metadata.self, from: Data(contentsOf: URL(fileURLWithPath: status.files?.json ?? "")))
        #expect(meta.document?.place.lock == .certifyFormFilling && meta.document?.place.review == DocumentToSign.Review.none)
    }

    /// `[signature] keep_signed_pdf = false`: Accept writes no PDF to the outbox (its record
    /// names it by its SHA-256); the desk holds it for the host until the capture is acknowledged.
    @Test func aSignedPDFNotKeptIsHeldForTheHostUntilAcknowledged() throws {
        var document = try contract()
        document.review = .none
        let (desk, request, status, settings) = try signedThroughTheDesk(document, keepSignedPDF: false, archived: true)
        let files = try #require(status.files, "\(status)")
        #expect(status.state == .accepted && files.pdf == nil)
        let names = try FileManager.default.contentsOfDirectory(atPath: files.directory).sorted()
        #expect(names == ["\(request.id).inkml", "\(request.id).json", "\(request.id).png", "\(request.id).svg"], "no PDF on the disk: \(names)")
        let held = try #require(desk.heldPDF(id: request.id))
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: document.path)))
        #expect(held.count > original.count && held.starts(with: original), "the original, then the signature")
        let meta = try JSONDecoder().decode(SignatureCapture.Metadata.self, from: Data(contentsOf: URL(fileURLWithPath: files.json)))
        #expect(meta.document?.unkeptPDF == SignatureCapture.sha256(Data(held)) && meta.document?.pdfKept == false)
        #expect(meta.document?.digitallySigned == true && meta.sha256.keys.allSatisfy { !$0.hasSuffix(".pdf") })
        // After a restart the outbox's record still reads as an accepted capture, without a PDF.
        let stored = try #require(SignatureCapture.stored(outbox: settings.outbox).captures[request.id])
        #expect(stored.paths.count == 4 && !stored.paths.contains { $0.hasSuffix(".pdf") })
        // The host has it: the capture leaves the outbox, and the PDF the kiosk's memory.
        _ = try desk.acknowledge(id: request.id)
        #expect(desk.heldPDF(id: request.id) == nil)
    }

    /// `document` signed through a desk, as the API hands it over, by a screen with the device's
    /// identity: straight to the signing view (no review), a stroke, Accept.
    private func signedThroughTheDesk(_ document: DocumentToSign, keepSignedPDF: Bool = true, archived: Bool = false) throws
        -> (SignatureDesk, CaptureStatus, CaptureStatus, SignatureScreen.Settings) {
        let (booth, screen) = try booth()
        var settings = screen.settings
        settings.keepSignedPDF = keepSignedPDF
        settings.digitalSigner = try SigningIdentity.create(at: "\(dir)/device.pem", subject: "CN=Kiosk 7,O=Shop", days: 30)
        let signing = SignatureScreen(settings: settings, metrics: ScreenMetrics(size: screenSize, pixelsPerMM: 4))
        let archive: (any CaptureArchive)? = archived ? OutboxArchive(outbox: settings.outbox, retention: Retention(keep: 10, maxAgeDays: 30)) : nil
        let desk = try SignatureDesk(defaultTimeout: nil, archive: archive)
        signing.serve(desk)
        let signer = try Booth(screen: signing, like: booth)
        let request = try desk.start(prompt: "Sign here", timeout: nil, document: document)
        try signer.frame()
        let box = try #require(signing.session?.box, "straight to the signing view")
        try signer.draw([Point(box.minX + 80, box.maxY - 60), Point(box.minX + 400, box.minY + 50), Point(box.maxX - 100, box.maxY - 80)])
        try signer.tap(.accept)
        return (desk, request, try #require(desk.status(id: request.id)), settings)
    }

    /// The sealed InkML goes into the PDF with its first signature only: a second signature that
    /// embedded one too would change the catalog's /Names and the widget's /AF, which validators
    /// judging the first signature do not allow. The second signer's record says nothing is embedded.
    @Test func aSecondSignatureEmbedsNoFile() throws {
        let signer = try SigningIdentity.create(at: "\(dir)/device.pem", subject: "CN=Kiosk 7,O=Shop", days: 30)
        let strokes = try replay("pressure").pipeline.document.strokes
        let shownIn = Rect(x: 0, y: 0, width: Double(screenSize.width), height: Double(screenSize.height))
        let evidence = (name: "sig.inkml.hpke", bytes: Data("sealed pen samples".utf8))
        func sign(_ document: DocumentToSign) throws -> (bytes: [UInt8], record: SignatureCapture.Metadata.SignedDocument) {
            try DocumentSignature(signed: SignedOnScreen(document: document, shownIn: shownIn, pagesShown: [1, 2]), strokes: strokes,
                                  signedAt: Date(timeIntervalSince1970: 1_790_000_000), evidence: evidence, signer: signer).make()
        }
        let first = try sign(try contract())
        #expect(first.record.embedded == "sig.inkml.hpke")
        let once = try PDFDocument(bytes: first.bytes)
        #expect(try once.dictionary(try once.catalog()["Names"])?["EmbeddedFiles"] != nil, "the first signature carries the InkML")

        // The signed PDF, posted again for a second signer at a new place on page 1.
        let path = "\(dir)/signed-once.pdf"
        try Data(first.bytes).write(to: URL(fileURLWithPath: path))
        let target = SignatureTarget.newField(name: "witness", pageIndex: 0, rect: PDFRect(72, 72, 272, 132))
        let place = try once.signable().place(of: target)
        let second = try sign(DocumentToSign(id: "doc2", path: path, sha256: SignatureCapture.sha256(Data(first.bytes)), pageCount: 2,
                                             target: target, pageIndex: place.pageIndex, rect: place.rect, pageBox: place.pageBox,
                                             review: .none, lock: .fields))
        #expect(second.record.embedded == nil && second.record.digitallySigned)
        let twice = try PDFDocument(bytes: second.bytes)
        #expect(try twice.catalog()["Names"] == (try once.catalog()["Names"]), "the catalog's /Names as the first signature left it")
        let witness = try #require(try twice.signable().signatureFields.first { $0.name == "witness" }?.reference)
        #expect(try twice.dictionary(.reference(witness))?["AF"] == nil)
    }

    @Test func aDocumentThatCannotBeReadEndsTheRequestWithWhy() throws {
        var document = try contract()
        try Data("%PDF-1.4\nnot really\n".utf8).write(to: URL(fileURLWithPath: document.path))
        document.review = .firstPage
        let (booth, screen) = try booth()
        var outcomes: [SignatureScreen.Outcome] = []
        screen.onFinished = { outcomes.append($1) }
        screen.start(.init(id: "req2", prompt: nil, document: document), booth.context)
        try booth.frame()
        guard case .cancelled(let reason)? = outcomes.first else { Issue.record("\(outcomes)"); return }
        #expect(reason.contains("could not be shown"), "\(reason)")
        #expect(screen.request == nil && screen.session == nil)
    }

    /// The signer's reader and poppler, which shows the pages, must read one document: a page
    /// count or a page size poppler reads otherwise ends the request before a page is shown.
    @Test(arguments: ["pages", "size"])
    func aDocumentPopplerReadsOtherwiseIsNeitherShownNorSigned(_ what: String) throws {
        var document = try contract()
        if what == "pages" { document.pageCount = 3 } else { document.pageBox = PDFRect(0, 0, 612, 792) }
        let (booth, screen) = try booth()
        var outcomes: [SignatureScreen.Outcome] = []
        screen.onFinished = { outcomes.append($1) }
        screen.start(.init(id: "req3", prompt: nil, document: document), booth.context)
        try booth.frame()
        guard case .cancelled(let reason)? = outcomes.first else { Issue.record("\(outcomes)"); return }
        #expect(reason.contains("two readings") && reason.contains(what == "pages" ? "2 pages where the document has 3" : "595"), "\(reason)")
        #expect(screen.session == nil && booth.pipeline.document.strokes.isEmpty)
    }
}

/// Where two renderings of a PDF page differ (pdftoppm at 72 dpi: a pixel is a point).
enum PDFPixels {
    static func changed(from a: String, to b: String, page: Int, dir: String) throws -> [(x: Int, y: Int)] {
        let pdftoppm = try #require(which("pdftoppm"), "pdftoppm (poppler-utils) is needed: run make deps")
        var images: [ImageSurface] = []
        for (i, file) in [a, b].enumerated() {
            let out = "\(dir)/page-\(i)"
            let ran = try run(pdftoppm, ["-png", "-r", "72", "-f", "\(page)", "-l", "\(page)", "-singlefile", file, out])
            #expect(ran.status == 0, "pdftoppm: \(ran.stderr)")
            images.append(try ImageSurface.readPNG(out + ".png"))
        }
        var changed: [(x: Int, y: Int)] = []
        for y in 0..<images[0].size.height {
            for x in 0..<images[0].size.width {
                let p = images[0].pixel(x: x, y: y), q = images[1].pixel(x: x, y: y)
                if abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b)) > 24 { changed.append((x, y)) }
            }
        }
        return changed
    }
}
