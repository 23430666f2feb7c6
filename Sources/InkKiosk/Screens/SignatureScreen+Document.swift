// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkConfig
import InkCore
import Logging
import InkDocument
import InkPipeline
import InkRender
import InkWorksheet

/// A host's document on the signature screen: its pages read first (fitted as worksheets are,
/// turned with buttons; the pen does not draw), then the signing view, the field's part of
/// the page enlarged, where the signature is written. Pages are drawn by the PDF helper on the
/// sheets' thread; the screen goes on meanwhile.
extension SignatureScreen {
    /// Between the banner row and the button bar.
    var documentLayout: DocumentLayout {
        let top = style.gap * 3 + style.target, bottom = buttonBar.minY - style.gap
        let margin = style.gap * 2
        return DocumentLayout(area: Rect(x: margin, y: top, width: Double(style.metrics.size.width) - 2 * margin,
                                         height: max(1, bottom - top)))
    }

    /// The request's document is opened in the PDF helper; its first page (or, with no review,
    /// the signing view) shown when drawn.
    func open(_ document: DocumentToSign, _ context: ScreenContext) {
        guard settings.documentReader != nil else {
            context.log.warning("signature \(request?.id ?? "?"): documents cannot be shown on this kiosk (no PDF reader)")
            finish(.cancelled(reason: "this kiosk cannot show documents (its PDF reader is not set up)"))
            return
        }
        let session = DocumentSession(document)
        self.session = session
        message = Notice(settings.text.openingDocument)
        if document.review == .none { enterSigning(session, context) } else { showPage(1, of: session, context) }
    }

    /// A press on the document's buttons: a page turned, or on to the signing view.
    func turn(_ action: ScreenAction, _ context: ScreenContext) {
        guard let session, !session.drawing, case .review(let page) = session.phase else { return }
        switch action {
        case .previousPage where page > 1:
            showPage(page - 1, of: session, context)
        case .nextPage where page < session.pages:
            showPage(page + 1, of: session, context)
        case .sign:
            if session.reviewed { enterSigning(session, context) } else { message = Notice(settings.text.readAllPages, warning: true) }
        default:
            break
        }
    }

    private func showPage(_ page: Int, of session: DocumentSession, _ context: ScreenContext) {
        draw(session, page: page, area: documentLayout.area, context) { [unowned self] paper in
            session.phase = .review(page: page)
            session.shown.append(page)
            context.log.info("signature \(request?.id ?? "?"): document \(session.document.id) page \(page) of \(session.pages) shown")
            message = Notice(request?.prompt.map { $0.split(separator: "\n").first.map(String.init) ?? $0 } ?? settings.text.reviewDocument)
            context.pipeline.showPaper(paper)
        }
    }

    private func enterSigning(_ session: DocumentSession, _ context: ScreenContext) {
        let document = session.document
        let box = documentLayout.writingBox(for: document.rect)
        let area = DocumentLayout.pageArea(showing: document.rect, of: document.pageBox, in: box)
        draw(session, page: document.pageIndex + 1, area: area, context) { [unowned self] paper in
            session.phase = .signing
            session.box = box
            session.signingPaper = paper
            message = nil
            context.log.info(Logger.Message(stringLiteral: "signature \(request?.id ?? "?"): signing view for '\(document.fieldName)' on page \(document.pageIndex + 1), "
                        + "\(Int(box.width))x\(Int(box.height)) px for \(Int(document.rect.width))x\(Int(document.rect.height)) pt"))
            context.pipeline.showPaper(paper)
        }
    }

    /// Page `page` drawn into `area` on the sheets' thread (the file opened there first), then
    /// `shown` on the kiosk's. A document that cannot be read ends the request, with why.
    private func draw(_ session: DocumentSession, page: Int, area: Rect, _ context: ScreenContext,
                      shown: @escaping (PageSnapshot) -> Void) {
        guard let reader = settings.documentReader else { return }
        session.drawing = true
        let opened = session.sheet, size = style.metrics.size, document = session.document, limits = settings.documentLimits
        sheets.run({ () -> (Worksheet, PageSnapshot) in
            let sheet: Worksheet
            if let opened {
                sheet = opened
            } else {
                sheet = try Worksheet(path: document.path, limits: limits, helper: reader, asSigned: true)
                try Self.checkOneReading(document, shownBy: sheet)
            }
            return (sheet, try OpenedWorksheet.paper(sheet, page: page, size: size, area: area))
        }) { [weak self] outcome in
            guard let self, self.session === session else { return }
            session.drawing = false
            switch outcome {
            case .success(let (sheet, paper)):
                session.sheet = sheet
                session.pages = session.document.pageCount
                shown(paper)
            case .failure(let error):
                let why = (error as? WorksheetError)?.detail ?? "\(error)"
                context.log.warning("signature \(request?.id ?? "?"): document \(document.id) page \(page) cannot be shown: \(why)")
                abandon(context)
                message = Notice(UIText.format(settings.text.worksheetProblem, why), warning: true)
                finish(.cancelled(reason: "the document could not be shown: \(why)"))
            }
            try? show(context.pipeline)
        }
    }

    /// What the signer is shown (poppler, in the helper) and what is signed (the kiosk's reader,
    /// which found the pages and the field when the host posted the file) must be one document:
    /// the same number of pages, and the field's page of the same size. The reader refuses files
    /// with two readings; this is the check that its reading is poppler's, on the file itself.
    static func checkOneReading(_ document: DocumentToSign, shownBy sheet: Worksheet) throws {
        func refuse(_ what: String) -> WorksheetError {
            WorksheetError(kind: .damaged, path: document.path,
                           detail: "the viewer reads \(what), the signer's reader otherwise: the file has two readings and is not signed")
        }
        guard sheet.pageCount == document.pageCount else { throw refuse("\(sheet.pageCount) pages where the document has \(document.pageCount)") }
        let page = try sheet.page(document.pageIndex + 1)
        guard abs(page.pageWidth - document.pageBox.width) < 0.01, abs(page.pageHeight - document.pageBox.height) < 0.01 else {
            throw refuse("page \(document.pageIndex + 1) as \(page.pageWidth) x \(page.pageHeight) pt where it is "
                         + "\(document.pageBox.width) x \(document.pageBox.height) pt")
        }
    }

    /// While the document is read: Cancel, the pages, Sign.
    func documentControls(_ session: DocumentSession) -> [Control] {
        let t = settings.text
        guard case .review(let page) = session.phase else { return barControls([(.cancel, t.cancel, .normal)]) }
        return barControls([(.cancel, t.cancel, .normal),
                            (.previousPage, "‹", page > 1 ? .normal : .disabled),
                            (.nextPage, "›", page < session.pages ? .normal : .disabled),
                            // Not disabled before the pages were read: a tap on it says what is missing.
                            (.sign, t.sign, session.reviewed ? .primary : .normal)])
    }

    func showDocument(_ session: DocumentSession, _ pipeline: FramePipeline) throws {
        let bar = buttonBar, w = Double(style.metrics.size.width)
        var chrome: [UIElement] = [.box(bar, fill: RGBA(0.9, 0.91, 0.93)),
                                   .line(from: Point(0, bar.minY), to: Point(w, bar.minY), width: 1, color: RGBA(0.7, 0.7, 0.72))]
        let pressed = presses.pressedActions
        let controls = self.controls()
        for c in controls { chrome += c.elements(pressed: pressed.contains(c.action), fontSize: style.fontSize) }
        switch session.phase {
        case .review(let page):
            // The page number left of the buttons.
            let left = controls.map(\.rect.minX).min() ?? w
            chrome.append(.text(UIText.format(settings.text.documentPage, "\(page) / \(session.pages)"),
                                in: Rect(x: style.gap * 2, y: bar.minY + style.gap, width: max(0, left - style.gap * 4), height: style.target),
                                size: style.fontSize, color: RGBA(0.25, 0.27, 0.3), align: .leading))
        case .signing:
            if let box = session.box {
                chrome.append(.box(box, fill: RGBA(0, 0, 0, 0), border: RGBA(0.2, 0.4, 0.8), borderWidth: 2))
                let prompt = (request?.prompt ?? settings.text.prompt).split(separator: "\n").first.map(String.init) ?? ""
                chrome.append(.text(prompt, in: Rect(x: box.minX, y: max(0, box.minY - style.fontSize * 1.8), width: box.width,
                                                     height: style.fontSize * 1.6),
                                    size: style.fontSize, color: RGBA(0.2, 0.4, 0.8), align: .leading))
            }
        case .opening:
            break
        }
        chrome += banners()
        let signingView = session.phase == .signing
        let noInk = signingView ? session.box.map { documentLayout.around($0, screenWidth: w, bottom: bar.minY) } ?? [] : []
        try pipeline.show(backdrop: [], chrome: chrome, controlAreas: [bar] + noInk, modal: !signingView)
    }
}
