// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkConfig
import InkCore
import InkLog
import Logging
import InkDocumentSigning
import InkStorage
import InkRender
import InkPipeline
import InkDocument
import InkWorksheet
import InkPDFHelper

/// Signature mode: a prompt, a line to sign on, and big Clear / Accept (/ Cancel) buttons.
/// Accept writes one capture to the outbox. Without a host it loops (sign, accept, next);
/// with a host (the local API) it waits for a request, and reports how each one ended.
public final class SignatureScreen: KioskScreen {
    public struct Settings: Sendable {
        public var text = UIText()
        public var buttonMM = 12.0
        public var outbox = "/var/lib/inkkiosk/outbox"
        /// Older captures leave the outbox after each Accept.
        public var retention = Retention(keep: 0, maxAgeDays: 0)
        /// Requests come from a host; without one the kiosk is always ready for the next signature.
        public var hosted = false
        /// The key captures are encrypted to; nil: stored plain.
        public var encryptTo: SealingKey? = nil
        /// Signs a document's update digitally (PAdES); nil: the ink alone.
        public var digitalSigner: (any DocumentSealer)? = nil
        /// A signed PDF is written to the outbox; false: only handed to the host (`Outcome`).
        public var keepSignedPDF = true
        /// Reads the host's documents (poppler, caged); nil: requests on documents are refused.
        public var documentReader: PDFHelper? = nil
        public var documentLimits = Worksheet.Limits()
        public init() {}
    }

    /// How a host's request ended, for the host. `heldPDF`: the signed PDF, when it is not
    /// kept in the outbox (`keepSignedPDF` false), for the host to fetch from memory.
    public enum Outcome: Sendable, Equatable {
        case accepted(paths: [String], samples: Int, heldPDF: [UInt8]?)
        case cancelled(reason: String)
        case timedOut(reason: String)
    }

    public struct HostRequest: Sendable, Equatable {
        public var id: String
        public var prompt: String?
        /// Read (as the host asked), then signed in its field.
        public var document: DocumentToSign?
        public init(id: String, prompt: String?, document: DocumentToSign? = nil) {
            self.id = id; self.prompt = prompt; self.document = document
        }
    }

    public let settings: Settings
    let style: ScreenStyle
    var presses = ControlPresses()
    /// The host's request being signed, if any.
    public private(set) var request: HostRequest?
    /// The request's document, as it is read and signed.
    var session: DocumentSession?
    /// The PDF helper is asked from here (a thread of its own: poppler may take its time).
    let sheets: BackgroundChores
    var message: Notice?
    private var firstInk: Date?
    /// The capture whose files are being written (Accept was pressed): the buttons wait.
    private var saving: String?
    public var storageWarning: String?
    public var wakeFDs: [Int32] { [host?.wakeFD, sheets.wakeFD].compactMap { $0 } }
    /// Where requests come from and outcomes go (the local API), if hosted.
    var host: (any SignatureHost)?
    /// Called when a host's request ends (accepted, cancelled, timed out).
    public var onFinished: (String, Outcome) -> Void = { _, _ in }

    public init(settings: Settings, metrics: ScreenMetrics, sheets: BackgroundChores = .inline()) {
        self.settings = settings
        self.sheets = sheets
        style = ScreenStyle(metrics: metrics, buttonMM: settings.buttonMM)
    }

    /// Ready for a signature: always without a host, else while a request is open (and its
    /// document, if it has one, is in the signing view).
    public var signing: Bool { (!settings.hosted || request != nil) && (session == nil || session?.phase == .signing) }

    /// A capture being written, a host's request open, or (without a host) ink on the pad: a
    /// restart now would cut a customer's signature.
    public func busy(_ pipeline: FramePipeline) -> String? {
        if let saving { return "signature \(saving): its files are being written" }
        if let request { return "signature \(request.id): requested by the host" }
        if !pipeline.document.strokes.isEmpty || !pipeline.document.active.isEmpty { return "a signature is being drawn" }
        return nil
    }

    // MARK: requests from a host

    /// A host asks for a signature. The screen starts blank.
    public func start(_ request: HostRequest, _ context: ScreenContext) {
        abandon(context)
        self.request = request
        message = nil
        session = nil
        let on = request.document.map { " on document \($0.id), field '\($0.fieldName)', review \($0.review.rawValue), lock \($0.lock.rawValue)" }
        context.log.info("signature \(request.id) requested\(on ?? "")")
        if let document = request.document { open(document, context) }
    }

    /// The host withdrew its request, or it timed out: the ink is cleared.
    public func end(id: String, _ outcome: Outcome, _ context: ScreenContext) {
        // Accept was pressed in time: the files being written decide how this capture ends.
        guard request?.id == id, saving != id else { return }
        abandon(context)
        finish(outcome)
    }

    func finish(_ outcome: Outcome) {
        guard let id = request?.id else { return }
        request = nil
        session = nil
        onFinished(id, outcome)
    }

    // MARK: update

    public func update(_ context: ScreenContext) throws {
        host?.deliver(to: self, context)
        sheets.deliver()   // pages of a document drawn meanwhile
        let pipeline = context.pipeline
        let controls = self.controls()
        for press in pipeline.takePresses() {
            if let action = presses.handle(press, controls: controls), saving == nil { perform(action, context) }
        }
        if !pipeline.document.strokes.isEmpty || !pipeline.document.active.isEmpty {
            if firstInk == nil { firstInk = Date() }
            if message?.warning == false { message = nil }
        }
        try show(pipeline)
    }

    private func perform(_ action: ScreenAction, _ context: ScreenContext) {
        switch action {
        case .clear:
            abandon(context)
            if let paper = session?.signingPaper { context.pipeline.showPaper(paper) }
        case .previousPage, .nextPage, .sign:
            turn(action, context)
        case .cancel:
            abandon(context)
            finish(.cancelled(reason: "cancelled on screen"))
        case .accept:
            accept(context)
        default:
            break
        }
    }

    private func accept(_ context: ScreenContext) {
        let pipeline = context.pipeline
        let strokes = pipeline.document.strokes
        guard !strokes.isEmpty else { message = Notice(settings.text.signFirst); return }
        let name = request?.id ?? Self.newCaptureName()
        // The device that signed: a pen if one did, else the touchscreen.
        let signers = strokes.filter(\.source.isPen) + strokes.filter { !$0.source.isPen }
        let device = signers.lazy.compactMap { pipeline.deviceNames[$0.source.device] }.first ?? "unknown"
        var draft = SignatureCapture(name: name, strokes: strokes, screen: pipeline.display.size, dpi: style.metrics.dpi,
                                     device: device, started: firstInk ?? Date(), ended: Date(),
                                     exporter: CairoCaptureExporter())
        draft.encryptTo = settings.encryptTo
        if let session, let box = session.box {
            draft.document = SignedOnScreen(document: session.document, shownIn: box, pagesShown: session.shown)
            draft.digitalSigner = settings.digitalSigner
            draft.keepSignedPDF = settings.keepSignedPDF
        }
        let capture = draft
        // The files are written and synced elsewhere: the signer sees "Saving…", and the thank-you
        // (and the host its "accepted") only once they are on disk.
        saving = name
        message = Notice(settings.text.saving)
        let outbox = settings.outbox, samples = strokes.reduce(0) { $0 + $1.samples.count }
        let retention = settings.retention, forgetDurably = context.forgetSavedDurably
        context.chores.run({ () -> (written: SignatureCapture.Written, pruned: LogNote?, forgotten: Bool) in
            let written = try capture.store(in: outbox)
            // The capture is on disk: now its ink leaves the journal, on disk too, before the
            // thank-you. Else a power cut right after it brings the accepted ink back for the next signer.
            let forgotten = forgetDurably()
            return (written, retention.pruneNote(outbox, what: "captures"), forgotten)
        }) { [weak self] written in
            if case .success(let w) = written {
                if let note = w.pruned { context.log.note(note) }
                if !w.forgotten {
                    context.log.warning("the journal was not emptied within 5 s of accepting \(name); its ink may come back after a power cut")
                }
            }
            let outcome = written.map(\.written)
            guard let self else { return }
            saving = nil
            switch outcome {
            case .success(let written):
                let held = written.heldPDF.map { ", the signed PDF (\($0.count) bytes) held for the host" } ?? ""
                context.log.info("signature \(name): \(written.paths.count) files in \(outbox)\(held)")
                abandon(context)
                message = Notice(settings.text.thanks)
                finish(.accepted(paths: written.paths, samples: samples, heldPDF: written.heldPDF))
            case .failure(let error):
                // The ink stays on screen (and in the journal): accepting again may work.
                message = Notice(UIText.format(settings.text.signatureNotSaved, StorageError.reason(error)), warning: true)
                context.log.error("cannot write signature \(name): \(error)")
            }
            try? show(context.pipeline)
        }
    }

    /// Clears the ink and forgets it on disk too.
    func abandon(_ context: ScreenContext) {
        context.pipeline.startOver()
        firstInk = nil
        do { try context.forgetSaved() } catch { context.log.error("cannot empty the journal: \(error)") }
    }

    static func newCaptureName() -> String {
        return "sig-\(utcTimestamp(Date()))-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
    }

    // MARK: layout

    /// The bar along the bottom with the buttons; it takes touches, it is never drawn on.
    var buttonBar: Rect {
        let h = style.target + 2 * style.gap
        return Rect(x: 0, y: Double(style.metrics.size.height) - h, width: Double(style.metrics.size.width), height: h)
    }

    func controls() -> [Control] {
        if let session, session.phase != .signing { return documentControls(session) }
        guard signing else { return [] }
        let t = settings.text
        var labels: [(ScreenAction, String, Control.Style)] = []
        if request != nil { labels.append((.cancel, t.cancel, .normal)) }
        labels += [(.clear, t.clear, .normal), (.accept, t.accept, .primary)]
        return barControls(labels)
    }

    /// Buttons along the bar, right-aligned, in `labels`' order.
    func barControls(_ labels: [(ScreenAction, String, Control.Style)]) -> [Control] {
        let bar = buttonBar
        var x = bar.maxX
        var out: [Control] = []
        for (action, label, s) in labels.reversed() {
            let w = max(style.width(label), style.metrics.mm(32))
            x -= style.gap * 2 + w
            out.append(Control(action, Rect(x: x, y: bar.minY + style.gap, width: w, height: style.target), label, style: s))
        }
        return out.reversed()
    }

    func show(_ pipeline: FramePipeline) throws {
        if let session {
            try showDocument(session, pipeline)
            return
        }
        let m = style.metrics
        let w = Double(m.size.width)
        var backdrop: [UIElement] = []
        var chrome: [UIElement] = []
        if signing {
            let lineY = (buttonBar.minY - m.mm(22)).rounded()
            let margin = m.mm(15)
            let ink = RGBA(0.45, 0.47, 0.52)
            backdrop.append(.line(from: Point(margin, lineY), to: Point(w - margin, lineY), width: 2, color: ink))
            backdrop.append(.text("×", in: Rect(x: margin, y: lineY - style.target, width: style.target * 0.6, height: style.target),
                                  size: style.fontSize * 1.4, color: ink))
            // A host's prompt may have two lines ("Total 42.00 EUR\nPlease sign").
            let prompt = (request?.prompt ?? settings.text.prompt).split(separator: "\n", omittingEmptySubsequences: false).prefix(3)
            for (i, text) in prompt.enumerated() {
                backdrop.append(.text(String(text), in: Rect(x: margin, y: lineY + style.gap + Double(i) * style.fontSize * 1.4,
                                                             width: w - 2 * margin, height: style.fontSize * 1.4),
                                      size: style.fontSize, color: ink))
            }
            chrome.append(.box(buttonBar, fill: RGBA(0.9, 0.91, 0.93)))
            chrome.append(.line(from: Point(0, buttonBar.minY), to: Point(w, buttonBar.minY), width: 1, color: RGBA(0.7, 0.7, 0.72)))
            let pressed = presses.pressedActions
            for c in controls() { chrome += c.elements(pressed: pressed.contains(c.action), fontSize: style.fontSize) }
        } else {
            backdrop.append(.text(settings.text.waiting, in: Rect(x: 0, y: Double(m.size.height) / 2 - style.target, width: w, height: 2 * style.target),
                                  size: style.fontSize * 1.5, color: RGBA(0.45, 0.47, 0.52)))
        }
        chrome += banners()
        try pipeline.show(backdrop: backdrop, chrome: chrome, controlAreas: signing ? [buttonBar] : [], modal: !signing)
    }
}

extension SignatureScreen {
    /// The message and the storage warning, at the top.
    func banners() -> [UIElement] {
        var chrome: [UIElement] = []
        var y = style.gap * 2
        if let message {
            chrome += style.banner(message.text, y: y, warning: message.warning)
            y += style.target + style.gap
        }
        if let storageWarning {
            chrome += style.banner(UIText.format(settings.text.storageWarning, storageWarning), y: y, warning: true)
        }
        return chrome
    }
}

/// Where a hosted signature screen's requests come from.
protocol SignatureHost: AnyObject {
    var wakeFD: Int32 { get }
    /// Hands the screen what the host asked since the last call.
    func deliver(to screen: SignatureScreen, _ context: ScreenContext)
}
