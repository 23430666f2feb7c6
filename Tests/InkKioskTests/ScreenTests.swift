// SPDX-License-Identifier: Apache-2.0
import InkConfig
import Foundation
import Testing
import InkCore
import InkStorage
import InkAPI
import InkRender
import InkDisplay
@testable import InkKiosk
@testable import InkPipeline
import InkTestSupport

private let pen = DeviceInfo(id: 1, kind: .tablet, name: "Test Pen", widthMM: 224, heightMM: 140, direct: true)
private let touch = DeviceInfo(id: 2, kind: .touch, name: "Test Touch", widthMM: 224, heightMM: 140, direct: true)

/// The kiosk's loop without the kernel: events into the pipeline, the screen acts on presses,
/// a frame is drawn, and the journal keeps every edit.
final class Booth {
    let pipeline: FramePipeline
    let display: OffscreenDisplay
    let screen: KioskScreen
    var journal: StrokeJournal?
    /// Instead of `journal`: the kiosk's way, a writer thread (whose reset may scrub).
    var writer: JournalWriter?
    let log = LogCapture()
    var logged: [String] { log.messages }
    var t = 1.0
    var chores = BackgroundChores.inline()

    /// `sheets`: where the classroom's poppler work runs (inline here, unless a test wants a thread).
    init(_ settings: ScreenSettings, journal: String? = nil, sheets: BackgroundChores = .inline()) throws {
        var s = InteractionSettings(screen: screenSize)
        s.buttons[ButtonCode.stylus] = ButtonBinding(click: .showPalette)
        var o = PipelineOptions()
        o.prediction = false
        display = try OffscreenDisplay(size: screenSize)
        pipeline = try FramePipeline(settings: s, devices: [pen, touch], display: display, options: settings.pipelineOptions(o))
        screen = settings.makeScreen(metrics: ScreenMetrics(size: screenSize, pixelsPerMM: 4), sheets: sheets)
        if let journal {
            let j = try StrokeJournal(path: journal)
            pipeline.restore(j.recovered)
            self.journal = j
        }
        try frame()
    }

    /// Another screen on `other`'s pipeline and display (a screen made with other settings).
    init(screen: KioskScreen, like other: Booth) throws {
        pipeline = other.pipeline
        display = other.display
        self.screen = screen
        try frame()
    }

    var context: ScreenContext {
        if let writer {
            return ScreenContext(pipeline: pipeline, journal: writer, chores: chores, log: log.logger)
        }
        return ScreenContext(pipeline: pipeline, forgetSaved: { [unowned self] in try journal?.reset() }, chores: chores,
                             log: log.logger)
    }

    func frame() throws {
        try saveEdits()
        try screen.update(context)
        try saveEdits()
        try pipeline.renderFrame()
    }

    private func saveEdits() throws {
        if let writer { writer.save(from: pipeline) } else { try journal?.append(pipeline.takeEdits()) }
    }

    func send(_ device: Int, _ kind: InkEventKind) {
        t += 0.008
        pipeline.handle(InkEvent(time: t, device: device, kind: kind))
    }

    static func axes(_ p: Point, pressure: Double = 0.6) -> Axes {
        Axes(x: p.x / Double(screenSize.width), y: p.y / Double(screenSize.height), pressure: pressure, distance: 0)
    }

    /// A pen stroke along the points.
    func draw(_ points: [Point]) throws {
        send(1, .proximity(isIn: true, tool: .pen, serial: 1, axes: Self.axes(points[0], pressure: 0)))
        send(1, .tip(isDown: true, axes: Self.axes(points[0])))
        for (a, b) in zip(points, points.dropFirst()) {
            for k in 1...10 { send(1, .axis(Self.axes(a + (b - a) * (Double(k) / 10)))) }
            try frame()
        }
        send(1, .tip(isDown: false, axes: Self.axes(points.last!)))
        send(1, .proximity(isIn: false, tool: .pen, serial: 1, axes: Self.axes(points.last!, pressure: 0)))
        try frame()
    }

    /// A finger tap at a point.
    func tap(_ p: Point) throws {
        send(2, .touchDown(slot: 0, x: p.x / Double(screenSize.width), y: p.y / Double(screenSize.height)))
        send(2, .touchFrame)
        try frame()
        send(2, .touchUp(slot: 0))
        send(2, .touchFrame)
        try frame()
    }

    /// A finger tap in the middle of the control for `action`.
    func tap(_ action: ScreenAction) throws {
        let controls: [Control]
        if let s = screen as? SignatureScreen { controls = s.controls() } else if let c = screen as? ClassroomScreen {
            controls = c.layout(pipeline).controls
        } else { controls = [] }
        let control = try #require(controls.first { $0.action == action }, "no \(action) on screen")
        try tap(Point(control.rect.minX + control.rect.width / 2, control.rect.minY + control.rect.height / 2))
    }

    var shown: Screen { Screen(display.screen) }

    func png(_ name: String) throws {
        try display.writePNG(to: "\(try Fixtures.outputDirectory("screens"))/\(name).png")
    }
}

private let signatureStroke = [Point(300, 420), Point(380, 350), Point(450, 440), Point(520, 360), Point(640, 430)]

@Suite struct SignatureScreenTests {
    func settings(_ outbox: String, hosted: Bool = false) -> ScreenSettings {
        var s = ScreenSettings()
        s.mode = .signature
        s.capture.outbox = outbox
        s.api.address = hosted ? "127.0.0.1:0" : nil
        return s
    }

    func emptyOutbox() throws -> String {
        let dir = try Fixtures.outputDirectory("outbox-\(UUID().uuidString.prefix(8))")
        return dir
    }

    @Test func showsPromptLineAndButtonsAndAcceptWritesOneCapture() throws {
        let outbox = try emptyOutbox()
        let booth = try Booth(settings(outbox))
        let screen = try #require(booth.screen as? SignatureScreen)
        try booth.png("signature-blank")
        // The line, the buttons: not white; the middle of the paper: white.
        let bar = screen.buttonBar
        #expect(booth.shown.darkness(640, Int(bar.minY) - 88) > 0.2, "signature line")
        for c in screen.controls() {
            let label = booth.shown.inkCount(x0: Int(c.rect.minX), y0: Int(c.rect.minY), x1: Int(c.rect.maxX), y1: Int(c.rect.maxY))
            #expect(label > 40, "\(c.label) button has its label (\(label) dark pixels)")
        }
        #expect(screen.controls().map(\.label) == ["Clear", "Accept"])
        #expect(booth.shown.inkCount(x0: 200, y0: 200, x1: 1000, y1: 300) == 0)

        try booth.draw(signatureStroke)
        #expect(booth.shown.inkNear(450, 440, radius: 3))
        try booth.png("signature-signed")
        // A finger presses Accept although a pen was used (pencil mode): fingers still work buttons.
        try booth.tap(.accept)
        try booth.png("signature-accepted")
        let captures = try FileManager.default.contentsOfDirectory(atPath: outbox)
        #expect(captures.count == 1, "one directory per capture: \(captures)")
        let capture = "\(outbox)/\(try #require(captures.first))"
        let files = try FileManager.default.contentsOfDirectory(atPath: capture).sorted()
        #expect(files.count == 4, "\(files)")
        #expect(Set(files.map { ($0 as NSString).pathExtension }) == ["png", "svg", "inkml", "json"])
        // The screen is blank for the next signer, and says thank you.
        #expect(booth.shown.inkCount(x0: 250, y0: 330, x1: 700, y1: 460) == 0)
        #expect(booth.shown.darkness(560, 24) > 0.3, "thank-you banner")
        let png = try ImageSurface.readPNG("\(capture)/\(try #require(files.first { $0.hasSuffix(".png") }))")
        #expect(png.size.width > 300 && png.size.width < 400, "cropped to the ink: \(png.size)")
        let json = try JSONDecoder().decode(SignatureCapture.Metadata.self,
                                            from: Data(contentsOf: URL(fileURLWithPath: "\(capture)/\(try #require(files.first { $0.hasSuffix(".json") }))")))
        #expect(json.device == "Test Pen")
        #expect(json.samples >= 40)
    }

    @Test func acceptIsRefusedWhileEmptyAndTheBarNeverTakesInk() throws {
        let outbox = try emptyOutbox()
        let booth = try Booth(settings(outbox))
        let screen = try #require(booth.screen as? SignatureScreen)
        try booth.tap(.accept)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).isEmpty)
        #expect(booth.shown.darkness(460, 24) > 0.3, "please-sign banner")
        try booth.png("signature-refused")
        // A pen stroke across the button bar's empty part presses, it does not draw.
        let y = screen.buttonBar.minY + screen.buttonBar.height / 2
        try booth.draw([Point(40, y), Point(200, y)])
        #expect(booth.pipeline.document.strokes.isEmpty)
        // Clear wipes the signature.
        try booth.draw(signatureStroke)
        #expect(booth.pipeline.document.strokes.count == 1)
        try booth.tap(.clear)
        #expect(booth.pipeline.document.strokes.isEmpty)
        #expect(booth.shown.inkCount(x0: 250, y0: 330, x1: 700, y1: 460) == 0)
    }

    @Test func hostedScreenWaitsForARequestAndReportsHowItEnded() throws {
        let outbox = try emptyOutbox()
        let booth = try Booth(settings(outbox, hosted: true))
        let screen = try #require(booth.screen as? SignatureScreen)
        var outcomes: [(String, SignatureScreen.Outcome)] = []
        screen.onFinished = { outcomes.append(($0, $1)) }
        // No request: nothing draws, no buttons.
        try booth.draw(signatureStroke)
        #expect(booth.pipeline.document.strokes.isEmpty)
        #expect(screen.controls().isEmpty)
        try booth.png("signature-waiting")

        #expect(booth.shown.inkCount(x0: 500, y0: 360, x1: 800, y1: 440) > 100, "the waiting text")
        screen.start(.init(id: "req1", prompt: "Sign for 12.50 EUR"), booth.context)
        try booth.frame()
        #expect(screen.controls().map(\.label) == ["Cancel", "Clear", "Accept"])
        try booth.draw(signatureStroke)
        try booth.png("signature-request")
        try booth.tap(.cancel)
        #expect(outcomes.count == 1 && outcomes[0].0 == "req1" && outcomes[0].1 == .cancelled(reason: "cancelled on screen"))
        #expect(booth.pipeline.document.strokes.isEmpty)

        screen.start(.init(id: "req2", prompt: nil), booth.context)
        try booth.frame()
        try booth.draw(signatureStroke)
        screen.end(id: "req2", .timedOut(reason: "no signature within 1 s"), booth.context)
        try booth.frame()
        #expect(outcomes.last?.1 == .timedOut(reason: "no signature within 1 s"))
        #expect(booth.pipeline.document.strokes.isEmpty)
        #expect(booth.shown.inkCount(x0: 250, y0: 330, x1: 500, y1: 460) == 0, "a timed-out signature is cleared")

        screen.start(.init(id: "req3", prompt: nil), booth.context)
        try booth.frame()
        try booth.draw(signatureStroke)
        try booth.tap(.accept)
        guard case .accepted(let paths, let samples, _)? = outcomes.last?.1 else { Issue.record("not accepted: \(outcomes)"); return }
        #expect(paths.map { ($0 as NSString).lastPathComponent }.sorted() == ["req3.inkml", "req3.json", "req3.png", "req3.svg"])
        #expect(samples >= 40)
        #expect(screen.request == nil)
    }

    /// Hosted, as the kiosk runs it: the journal's writer thread, its journal scrubbing. While
    /// a request is signed its ink is in the journal; at Cancel, at the time-out and at Accept
    /// it leaves: zeros over its records, then the file cut back to its header.
    @Test func theJournalKeepsNoSignatureAfterCancelTimeOutOrAccept() throws {
        let outbox = try emptyOutbox()
        let path = "\(outbox)/../journal-\(UUID().uuidString.prefix(8)).inkj"
        let booth = try Booth(settings(outbox, hosted: true))
        let writer = JournalWriter(journal: try StrokeJournal(path: path, scrubbing: true))
        booth.writer = writer
        let screen = try #require(booth.screen as? SignatureScreen)
        var outcomes: [String: SignatureScreen.Outcome] = [:]
        screen.onFinished = { outcomes[$0] = $1 }
        func journalBytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
        for id in ["cancelled", "timed-out", "accepted"] {
            screen.start(.init(id: id, prompt: nil), booth.context)
            try booth.frame()
            try booth.draw(signatureStroke)
            #expect(writer.flush(timeout: 10))
            #expect(try journalBytes().count > StrokeJournal.magic.count + 500, "\(id): the signature is in the journal while it is signed")
            switch id {
            case "cancelled": try booth.tap(.cancel)
            case "timed-out":
                screen.end(id: id, .timedOut(reason: "no signature within 1 s"), booth.context)
                try booth.frame()
            default: try booth.tap(.accept)
            }
            #expect(outcomes[id] != nil, "\(id): \(outcomes)")
            #expect(writer.flush(timeout: 10))
            #expect(try journalBytes() == StrokeJournal.magic, "\(id): the journal holds no record")
        }
        guard case .accepted(let paths, _, _)? = outcomes["accepted"] else { Issue.record("not accepted: \(outcomes)"); return }
        #expect(paths.count == 4)
        #expect(writer.state.problem == nil)
        #expect(writer.stop(timeout: 10))
        #expect(try StrokeJournal(path: path).recovered.isEmpty)
    }

    /// With a key, Accept stores the signature encrypted, and the host hears which key opens it.
    @Test func acceptWithAKeyStoresTheSignatureEncryptedAndTellsTheHost() throws {
        let outbox = try emptyOutbox()
        let pair = try opensslKeyPair(in: outbox + "/..", "screen-\(UUID().uuidString.prefix(8))")
        var s = settings(outbox, hosted: true)
        s.capture.encryptTo = try SealingKey.load(path: pair.pub)
        let booth = try Booth(s)
        let screen = try #require(booth.screen as? SignatureScreen)
        let desk = try SignatureDesk(defaultTimeout: nil)
        screen.serve(desk)
        let request = try desk.start(prompt: nil, timeout: nil)
        try booth.frame()
        try booth.draw(signatureStroke)
        try booth.tap(.accept)
        let files = try #require(desk.status(id: request.id)?.files, "accepted with its files")
        #expect(files.encryptedTo == s.capture.encryptTo?.fingerprint)
        let names = [files.png, files.svg, files.inkml, files.json].map { ($0 as NSString).lastPathComponent }
        #expect(names == ["png.hpke", "svg.hpke", "inkml.hpke", "json"].map { "\(request.id).\($0)" })
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.directory).sorted() == names.sorted())
        let opened = try SealedFile.decrypt(file: files.png, with: try OpeningKey.load(path: pair.key), into: outbox + "/..")
        #expect(try ImageSurface.readPNG(opened).size.width > 300)
    }

    /// Accept writes the files on another thread: the screen says "Saving…", the host hears
    /// "accepted" only once they are on disk, and a time-out arriving meanwhile changes nothing.
    @Test func acceptWritesTheFilesElsewhereAndReportsOnlyWhenTheyAreOnDisk() throws {
        let outbox = try emptyOutbox()
        let booth = try Booth(settings(outbox, hosted: true))
        booth.chores = try BackgroundChores.onThread()
        let screen = try #require(booth.screen as? SignatureScreen)
        var outcomes: [SignatureScreen.Outcome] = []
        screen.onFinished = { outcomes.append($1) }
        screen.start(.init(id: "req9", prompt: nil), booth.context)
        try booth.frame()
        try booth.draw(signatureStroke)
        try booth.tap(.accept)
        screen.end(id: "req9", .timedOut(reason: "too late"), booth.context)   // the host's clock ran out meanwhile
        #expect(outcomes.isEmpty, "nothing is reported before the files are on disk, and the time-out is ignored")
        #expect(booth.chores.stop(timeout: 10))
        booth.chores.deliver()
        try booth.frame()
        guard case .accepted(let paths, _, _)? = outcomes.last, outcomes.count == 1 else { Issue.record("not accepted: \(outcomes)"); return }
        #expect(paths.map { ($0 as NSString).lastPathComponent }.sorted() == ["req9.inkml", "req9.json", "req9.png", "req9.svg"])
        #expect(paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect(booth.pipeline.document.strokes.isEmpty, "cleared for the next signer")
    }

    @Test func anAcceptedSignatureDoesNotComeBackAfterARestart() throws {
        let outbox = try emptyOutbox()
        let journal = "\(outbox)/../journal-\(UUID().uuidString.prefix(8)).inkj"
        do {
            let booth = try Booth(settings(outbox), journal: journal)
            try booth.draw(signatureStroke)
            try booth.tap(.accept)
            try booth.draw([Point(300, 400), Point(500, 380)])   // the next signer starts
        }
        let again = try Booth(settings(outbox), journal: journal)
        #expect(again.pipeline.document.strokes.count == 1, "only the next signer's stroke is restored")
    }

    @Test func aDiskThatRefusesShowsAWarningAndKeepsTheSignature() throws {
        let booth = try Booth(settings("/proc/inkkiosk-no-such-outbox"))
        try booth.draw(signatureStroke)
        try booth.tap(.accept)
        try booth.png("signature-disk-refused")
        #expect(booth.pipeline.document.strokes.count == 1, "the signature stays to be accepted again")
        // The red banner is on screen.
        let p = booth.shown.image.pixel(x: 200, y: 20)
        #expect(p.r > 150 && p.g < 60, "warning banner colour \(p)")
    }
}

@Suite struct ClassroomScreenTests {
    func settings(_ saveDirectory: String = "/tmp") -> ScreenSettings {
        var s = ScreenSettings()
        s.mode = .classroom
        s.capture.saveDirectory = saveDirectory
        return s
    }

    @Test func toolbarTargetsAreAtLeastNineMillimetres() throws {
        let booth = try Booth(settings())
        let screen = try #require(booth.screen as? ClassroomScreen)
        try booth.png("classroom-toolbar")
        let controls = screen.layout(booth.pipeline).controls
        #expect(controls.count == 16)
        for c in controls { #expect(min(c.rect.width, c.rect.height) >= 9 * 4, "\(c.action) is \(c.rect)") }
        // The toolbar is drawn: labels are dark on the light bar.
        #expect(booth.shown.inkCount(x0: 0, y0: 0, x1: 1280, y1: Int(screen.layout(booth.pipeline).toolbar.maxY)) > 500)
    }

    @Test func toolsColourAndWidthFromTheToolbar() throws {
        let booth = try Booth(settings())
        try booth.tap(.tool(.highlighter))
        #expect(booth.pipeline.interaction.currentTool == .highlighter)
        try booth.tap(.tool(.pen))
        try booth.tap(.palette)
        try booth.png("classroom-palette")
        let red = 2   // the standard palette's red
        try booth.tap(.color(red))
        #expect(booth.pipeline.interaction.paletteVisible == false)
        try booth.tap(.width(2))
        try booth.draw([Point(300, 400), Point(700, 400)])
        try booth.png("classroom-red-wide")
        let p = booth.shown.image.pixel(x: 500, y: 400)
        #expect(p.r > 150 && p.g < 80 && p.b < 80, "red ink \(p)")
        #expect(booth.shown.thickness(x: 500, around: 400) >= 12, "wide pen")
        // The side button (show-palette) opens the toolbar's palette, not the overlay.
        booth.send(1, .proximity(isIn: true, tool: .pen, serial: 1, axes: Booth.axes(Point(600, 600), pressure: 0)))
        booth.send(1, .button(code: ButtonCode.stylus, isPressed: true))
        booth.send(1, .button(code: ButtonCode.stylus, isPressed: false))
        try booth.frame()
        let screen = try #require(booth.screen as? ClassroomScreen)
        #expect(screen.layout(booth.pipeline).popup != nil)
    }

    @Test func undoRedoAndClearWithConfirmation() throws {
        let booth = try Booth(settings())
        try booth.draw([Point(300, 400), Point(700, 400)])
        try booth.tap(.undo)
        #expect(!booth.shown.inkNear(500, 400))
        try booth.tap(.redo)
        #expect(booth.shown.inkNear(500, 400))
        try booth.tap(.askClear)
        try booth.png("classroom-confirm-clear")
        // While the dialog is up, the pen does not draw.
        try booth.draw([Point(300, 600), Point(700, 600)])
        #expect(booth.pipeline.document.strokes.count == 1)
        try booth.tap(.keepPage)
        #expect(booth.shown.inkNear(500, 400))
        try booth.tap(.askClear)
        try booth.tap(.confirmClear)
        #expect(!booth.shown.inkNear(500, 400))
        #expect(booth.pipeline.document.strokes.isEmpty)
    }

    @Test func pagesSurviveARestartAndSaveWritesEveryPage() throws {
        let dir = try Fixtures.outputDirectory("classroom-\(UUID().uuidString.prefix(8))")
        let journal = "\(dir)/journal.inkj"
        do {
            let booth = try Booth(settings(dir), journal: journal)
            try booth.draw([Point(300, 400), Point(700, 400)])
            try booth.tap(.addPage)
            #expect(!booth.shown.inkNear(500, 400), "a new page is blank")
            try booth.draw([Point(300, 600), Point(700, 600)])
            try booth.tap(.previousPage)
            #expect(booth.shown.inkNear(500, 400) && !booth.shown.inkNear(500, 600))
            try booth.tap(.nextPage)
            #expect(!booth.shown.inkNear(500, 400) && booth.shown.inkNear(500, 600))
            try booth.png("classroom-page2")
        }
        let booth = try Booth(settings(dir), journal: journal)
        #expect(booth.pipeline.notebook.count == 2)
        #expect(booth.pipeline.notebook.current == 1, "back on the page that was shown")
        #expect(booth.shown.inkNear(500, 600))
        try booth.tap(.save)
        let screen = try #require(booth.screen as? ClassroomScreen)
        #expect(screen.lastSaved.count == 3)
        let page1 = try ImageSurface.readPNG(screen.lastSaved[0])
        #expect(Screen(page1).inkNear(500, 400) && !Screen(page1).inkNear(500, 600))
        #expect(Screen(page1).inkCount(x0: 0, y0: 0, x1: 1280, y1: 60) == 0, "no toolbar in the saved page")
        let pdfinfo = try #require(which("pdfinfo"), "pdfinfo (poppler-utils) is needed: run make deps")
        let info = try run(pdfinfo, [screen.lastSaved[2]])
        let pages = info.stdout.split(separator: "\n").first { $0.hasPrefix("Pages:") }
        #expect(pages?.split(separator: " ").last == "2", "\(info.stdout)")
    }
}
