// SPDX-License-Identifier: Apache-2.0
import InkConfig
import ArgumentParser
import InkCommandLine
import FoundationEssentials
import InkLoop
import Glibc
import InkLog
import Logging
import InkCore
import InkStorage
import InkRender
import InkDisplay
import InkKiosk
import InkPipeline
import InkPDFHelper
import InkWorksheet

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Play an .inklog recording through the ink engine and write what the screen shows.")

    @OptionGroup var input: RecordingArguments

    @Option(help: "Screen size, WIDTHxHEIGHT.")
    var size = PixelSize(width: 1280, height: 800)

    @Option(help: "Write the final screen as PNG.")
    var png: String?

    @Option(help: "Write the finished ink as SVG.")
    var svg: String?

    @Option(help: "Write the finished ink as PDF.")
    var pdf: String?

    @Option(help: "Write the finished ink as a signature capture (PNG, SVG, InkML, JSON) into this outbox directory.")
    var capture: String?

    @Option(help: "Background of the PNG: white (the screen) or transparent (the ink only).")
    var background: BackgroundChoice = .white

    @Option(help: "A worksheet (PDF) whose page lies under the ink: the PNG shows the page fitted to the screen with the ink on it; the SVG and PDF are that page at its own size, its text still text, the ink as vectors on top.")
    var worksheet: String?

    @Option(help: "With --worksheet: the page the recording was written on (1 = the first).")
    var page: Int?

    @Option(name: .customLong("page-area"), help: "With --worksheet: the part of the screen the page is fitted into, WxH+X+Y, as the kiosk logs it when it opens a worksheet (the classroom's page lies below its toolbar); default: the whole screen.")
    var pageArea: String?

    @OptionGroup var ink: InkOptions

    @Option(help: "Also write rendered frames as PNG into this directory.")
    var frames: String?

    @Option(name: .customLong("frame-step"), help: "With --frames, write every Nth frame.")
    var frameStep = 1

    @Flag(help: "Print statistics as one JSON object.")
    var stats = false

    @Option(name: .customLong("kiosk-mode"), help: "Show a mode's screen around the ink (draw, signature, classroom); its buttons act on the recording's taps. Files it writes go to /tmp.")
    var kioskMode: KioskMode = .draw

    @Option(help: "A configuration file whose [ui], [signature] and [classroom] settings the screen uses.")
    var config: String?

    enum BackgroundChoice: String, ExpressibleByArgument { case white, transparent }

    func validate() throws {
        guard frameStep >= 1 else { throw ValidationError("--frame-step must be at least 1") }
        if let page {
            guard worksheet != nil else { throw ValidationError("--page needs --worksheet") }
            guard page >= 1 else { throw ValidationError("--page counts from 1 (got \(page))") }
        }
        if let pageArea {
            guard worksheet != nil else { throw ValidationError("--page-area needs --worksheet") }
            guard Self.area(pageArea) != nil else { throw ValidationError("--page-area must be WxH+X+Y, e.g. 1920x1004+0+76 (got \(pageArea))") }
        }
    }

    /// Creates `path` empty, mode 0644 (an earlier file there goes first), for a writer that
    /// opens it by name (cairo; over a worksheet, the PDF helper, which only opens it). Not
    /// synced (`DurableFile` is for what must survive a power cut): a sync and a read-back
    /// cost more than cairo's SVG of a page of signatures.
    static func create(_ path: String) throws {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemCallError("create", path: path) }
        close(fd)
    }

    /// "WxH+X+Y" as a rectangle (positive size, non-negative corner).
    static func area(_ text: String) -> Rect? {
        let parts = text.split(whereSeparator: { $0 == "x" || $0 == "+" }).map { Double($0) }
        guard parts.count == 4, text.contains("x"), let w = parts[0], let h = parts[1], let x = parts[2], let y = parts[3],
              w >= 1, h >= 1, x >= 0, y >= 0 else { return nil }
        return Rect(x: x, y: y, width: w, height: h)
    }

    func run() throws {
        // A worksheet that cannot be used stops the replay before it starts.
        let sheetPage: WorksheetPage? = try worksheet.map { path in
            // Any worksheet a kiosk could open at all (the config's limits are a kiosk's).
            do {
                return try Worksheet(path: path, limits: Worksheet.Limits(maxMB: 1024, maxPages: 1000), helper: PDFHelper()).page(page ?? 1)
            } catch let e as WorksheetError {
                throw CleanExit.message("worksheet \(e)", code: 1)
            }
        }
        // A capture is dated with the recording's duration: only then is it held whole. Else
        // it is read as it plays, and its events take no memory.
        let recording = try capture.map { _ in try input.load() }
        if let frames { try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true) }
        var options = ReplayOptions()
        options.pipeline = ink.pipelineOptions(prediction: !input.noPrediction)
        options.framesDirectory = frames
        options.frameStep = frameStep
        // Only the final picture was asked for: draw the screen once, at the end.
        options.finalPictureOnly = !stats && frames == nil
        // Each pen stroke one fill: the live screen's picture within docs/RECORDINGS.md's tolerance.
        options.wholeStrokes = true
        // SVG, PDF, a capture and a transparent PNG are drawn from the document: no screen needed.
        options.drawsScreen = png != nil && background == .white && sheetPage == nil
        var screen = ScreenSettings()
        if let config {
            do { screen = try KioskConfig.load(path: config).screen } catch let e as ConfigError {
                throw CleanExit.message("the configuration has problems:\n\(e)", code: 1)
            }
        }
        screen.mode = kioskMode
        screen.api.address = nil
        if config == nil { screen.capture.outbox = "/tmp/inkkiosk-replay-outbox"; screen.capture.saveDirectory = "/tmp/inkkiosk-replay-saved" }

        let display = try OffscreenDisplay(size: size)
        let replay = try recording.map { Replay(recording: $0, settings: ink.settings(screen: size), options: options) }
            ?? Replay(stream: input.stream(), settings: ink.settings(screen: size), options: options)
        let (pipeline, played) = try input.reportingBadLines { try replay.run(on: display, screen: screen) }
        var result = played
        let area = pageArea.flatMap(Self.area)
        let exporter = { (bg: Exporter.Background) in Exporter(size: size, background: bg, backdrop: sheetPage, pageArea: area) }
        var written: [String] = []
        if let png {
            switch background {
            case .white where sheetPage == nil: try display.writePNG(to: png)
            case .white: try exporter(.color(.white)).png(pipeline.document.strokes, to: png)
            case .transparent: try exporter(.transparent).png(pipeline.document.strokes, to: png)
            }
            written.append(png)
        }
        // Over a worksheet, the PDF helper writes them (and draws the PNG's page): its failure stops the replay.
        for (format, path) in [(AnnotatedFile.Format.svg, svg), (.pdf, pdf)] {
            guard let path else { continue }
            try Self.create(path)
            try AnnotatedFile.write(format, [(exporter(.color(.white)), pipeline.document.strokes)], to: path)
            written.append(path)
        }
        if let failed = sheetPage?.takeFailure() { throw CleanExit.message("worksheet \(failed)", code: 1) }

        if let capture, let recording {
            try FileManager.default.createDirectory(atPath: capture, withIntermediateDirectories: true)
            let name = URL(fileURLWithPath: input.file).deletingPathExtension().lastPathComponent
                .map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
            let times = recording.events.map(\.time)
            let device = recording.devices.first { $0.kind == .tablet }?.name ?? recording.devices.first?.name ?? "unknown"
            // Recordings keep monotonic times; the capture is dated now, with the recording's duration.
            let now = Date()
            let sig = SignatureCapture(name: String(name), strokes: pipeline.document.strokes, screen: size, dpi: 96,
                                       device: device, started: now - ((times.last ?? 0) - (times.first ?? 0)), ended: now,
                                       exporter: CairoCaptureExporter())
            written += try sig.write(to: capture)
        }
        if stats {
            result.peakRSSMiB = (ProcessMemory.peakMiB() * 100).rounded() / 100
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        }
        for path in written { writeStandardError("wrote \(path)\n") }
    }
}
