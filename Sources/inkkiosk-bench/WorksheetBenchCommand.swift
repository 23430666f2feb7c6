// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkCommandLine
import FoundationEssentials
import Glibc
import InkConfig
import InkCore
import InkDisplay
import InkKiosk
import InkPipeline
import InkPDFHelper
import InkRender
import InkStorage
import InkWorksheet

/// `inkkiosk-bench worksheet-bench`: what a worksheet costs the classroom at a screen size: a page's
/// paper (poppler, then kept compressed), a page turn with the paper cached, and the per-frame
/// cost of ink over a worksheet page against the same ink over blank paper. Figures only.
struct WorksheetBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worksheet-bench",
        abstract: "Time a worksheet's pages: rendering, page turns, and ink over a page against ink over blank paper.",
        discussion: "Prints a readable report, then the same figures as one JSON object on the last line.")

    @Argument(help: "The worksheet (PDF).")
    var worksheet: String

    @Option(help: "A recording drawn over page 1 and over blank paper, for the per-frame comparison.")
    var recording: String?

    @Option(help: "Screen size, WIDTHxHEIGHT.")
    var size = PixelSize(width: 1920, height: 1080)

    @Option(help: "Strokes written on each page before the page turns are timed.")
    var strokesPerPage = 40

    @Option(help: "Page turns timed.")
    var turns = 200

    @Option(help: "The inkkiosk whose PDF helper reads the worksheet (default: the one beside this program, as make release builds them).")
    var inkkiosk: String?

    struct Report: Codable {
        var worksheet: String
        var size: String
        var pages: Int
        var pageArea: String
        /// poppler drawing a page on its desk, and the compressed paper kept.
        var paperMs: Summary
        var paperKiB: Summary
        /// A turn to a page whose paper is cached: the first visit paints its strokes on it,
        /// later ones copy the page's cached picture. Cold: its paper rendered first.
        var turnFirstVisitMs: Summary
        var turnAgainMs: Summary
        var turnColdMs: Summary
        var blankFrameMs: Summary?
        var worksheetFrameMs: Summary?
        var peakRSSMiB: Double
        /// The PDF helper started (its cage entered) and the file opened in it.
        var helperStartAndOpenMs: Double
        /// Save's annotated PDF (every page, with its ink), written by the helper; its size.
        var saveMs: Summary
        var savedKiB: Double
        var helperPeakRSSMiB: Double
    }

    func run() throws {
        // poppler in its helper process and watched as in the kiosk (PopplerWatch), here with a
        // folder of its own on the same disk as the kiosk's data.
        var folder = Array("/var/tmp/inkkiosk-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&folder) else { throw CleanExit.message("cannot make a folder in /var/tmp", code: 1) }
        let watchFolder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: watchFolder) }
        let helper = PDFHelper(launch: PDFHelper.Launch(executable: try kioskExecutable()))
        let sheet: Worksheet
        let clock = ContinuousClock()
        let opening = clock.now
        do {
            sheet = try Worksheet(path: worksheet, limits: Worksheet.Limits(maxMB: 1024, maxPages: 1000),
                                  watch: PopplerWatch(directory: watchFolder), helper: helper)
        } catch let e as WorksheetError {
            throw CleanExit.message("worksheet \(e)", code: 1)
        }
        let openMs = (clock.now - opening).inSeconds * 1000
        var screen = ScreenSettings()
        screen.mode = .classroom
        guard let classroom = screen.makeScreen(metrics: screen.metrics(size: size, widthMM: 0)) as? ClassroomScreen else { return }
        let area = classroom.pageArea
        let pages = min(sheet.pageCount, 20)
        func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
            let start = clock.now
            let value = try body()
            return (value, (clock.now - start).inSeconds * 1000)
        }
        func paper(_ n: Int) throws -> (PageSnapshot, Double) {
            try timed {
                let page = try sheet.page(n)
                let paper = try Exporter(size: size, background: .color(.white), backdrop: page, pageArea: area).paper()
                if let failed = page.takeFailure() { throw CleanExit.message("worksheet \(failed)", code: 1) }
                return paper
            }
        }
        var papers: [PageSnapshot] = []
        var paperMs: [Double] = []
        for n in 1...pages {
            let (p, ms) = try paper(n)
            papers.append(p); paperMs.append(ms)
        }

        // Page turns on the pipeline the kiosk uses, each page written on first.
        let display = try OffscreenDisplay(size: size)
        let pen = DeviceInfo(id: 1, kind: .tablet, name: "bench pen", widthMM: 300, heightMM: 200, direct: true)
        let pipeline = try FramePipeline(settings: InteractionSettings(screen: size), devices: [pen], display: display)
        let ref = WorksheetRef(sha256: String(repeating: "0", count: 64), file: worksheet, title: sheet.name, pages: sheet.pageCount)
        pipeline.open(ref)
        for (i, p) in papers.enumerated() { pipeline.setPaper(p, forPage: i) }
        var writer = Handwriting(size: size, area: area)
        for page in 0..<pages {
            pipeline.turn(to: page)
            for _ in 0..<strokesPerPage { writer.stroke(into: pipeline) }
            try pipeline.renderFrame()
        }
        try pipeline.renderFrame()
        // After a restart (the journal's edits restored): no page has a picture yet, the papers
        // are cached. Each page's first visit paints its strokes on its paper; later ones copy.
        let restored = try FramePipeline(settings: InteractionSettings(screen: size), devices: [pen], display: display)
        restored.restore(pipeline.notebook.compacted())
        for (i, p) in papers.enumerated() { restored.setPaper(p, forPage: i) }
        try restored.renderFrame()
        var first: [Double] = [], again: [Double] = []
        var visited: Set<Int> = [restored.notebook.current]
        for k in 0..<max(turns, pages) {
            // Every page once in order, then back and forth by one to three pages.
            let step = k < pages ? 1 : [1, pages - 1, 2, pages - 2, 3][k % 5]
            let page = (restored.notebook.current + step) % pages
            guard page != restored.notebook.current else { continue }
            let ms = try timed { restored.turn(to: page); try restored.renderFrame() }.1
            if visited.insert(page).inserted { first.append(ms) } else { again.append(ms) }
        }
        // Cold: the page's paper is rendered as the kiosk would when it was not cached.
        var cold: [Double] = []
        for _ in 1...min(pages, 10) {
            let (p, paperTime) = try paper((pipeline.notebook.current + 1) % pages + 1)
            let target = (pipeline.notebook.current + 1) % pages
            pipeline.setPaper(p, forPage: target)
            let ms = try timed { pipeline.turn(to: target); try pipeline.renderFrame() }.1
            cold.append(paperTime + ms)
        }

        // Save: the annotated PDF of every page with its ink, written by the helper (as Save does).
        var saveMs: [Double] = []
        let sheetPages = try (1...pages).map { try sheet.page($0) }
        let sheets = pipeline.notebook.pages.prefix(pages).enumerated().map { i, page in
            (exporter: Exporter(size: size, background: .color(.white), backdrop: sheetPages[i], pageArea: area), strokes: page.strokes)
        }
        let saved = "\(watchFolder)/saved.pdf"
        for _ in 0..<5 {
            saveMs.append(try timed {
                _ = try DurableFile.produced(saved, mode: 0o644) { try AnnotatedFile.write(.pdf, sheets, to: $0) }
            }.1)
        }
        var info = stat()
        let savedKiB = stat(saved, &info) == 0 ? Double(info.st_size) / 1024 : 0
        let helperPeakMiB = Double(try helper.peakKiB() ?? 0) / 1024

        var blank: Summary?, over: Summary?
        if let recording {
            func frames(on paper: PageSnapshot?) throws -> Summary {
                var options = ReplayOptions()
                if let paper {
                    options.prepare = { p in
                        p.open(WorksheetRef(sha256: String(repeating: "0", count: 64), file: "bench", title: "bench", pages: 1))
                        p.setPaper(paper, forPage: 0)
                    }
                }
                let stream = try InklogStream(path: recording)
                let replay = Replay(stream: stream, settings: InteractionSettings(screen: size), options: options)
                return try replay.run(on: try OffscreenDisplay(size: size)).stats.renderMs
            }
            // Interleaved, twice each: a busy moment of the machine should not land on one side only.
            let runs = try [nil, papers[0], nil, papers[0]].map { try frames(on: $0) }
            blank = runs[0].median <= runs[2].median ? runs[0] : runs[2]
            over = runs[1].median <= runs[3].median ? runs[1] : runs[3]
        }
        let report = Report(worksheet: worksheet, size: size.description, pages: pages,
                            pageArea: "\(Int(area.width))x\(Int(area.height))+\(Int(area.minX))+\(Int(area.minY))",
                            paperMs: Summary(paperMs), paperKiB: Summary(papers.map { Double($0.bytes) / 1024 }),
                            turnFirstVisitMs: Summary(first), turnAgainMs: Summary(again), turnColdMs: Summary(cold),
                            blankFrameMs: blank, worksheetFrameMs: over, peakRSSMiB: ProcessMemory.peakMiB(),
                            helperStartAndOpenMs: openMs, saveMs: Summary(saveMs), savedKiB: savedKiB, helperPeakRSSMiB: helperPeakMiB)
        printReadable(report)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    /// The shipped `inkkiosk`, whose `pdf-helper` the kiosk starts: the helper measured here is
    /// that process, in its cage, not one of this program's.
    private func kioskExecutable() throws -> String {
        let path = inkkiosk ?? Self.besideThisProgram("inkkiosk")
        guard access(path, X_OK) == 0 else {
            throw CleanExit.message("worksheet-bench: \(path): \(String(cString: strerror(errno))) (the PDF helper is inkkiosk's; --inkkiosk PATH)", code: 1)
        }
        return path
    }

    /// `name` in the directory of this program's executable.
    private static func besideThisProgram(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return name }
        let own = buffer.withUnsafeBytes { String(decoding: $0.prefix(length), as: UTF8.self) }
        guard let slash = own.lastIndex(of: "/") else { return name }
        return String(own[..<slash]) + "/" + name
    }

    private func printReadable(_ r: Report) {
        func f(_ s: Summary) -> String { String(cFormat: "median %.2f ms  p99 %.2f ms", s.median, s.p99) }
        print("inkkiosk worksheet-bench: \(r.worksheet) at \(r.size), pages fitted into \(r.pageArea), \(r.pages) pages")
        print("  a page's paper (poppler)    \(f(r.paperMs))   kept compressed: median \(String(cFormat: "%.0f", r.paperKiB.median)) KiB")
        print("  page turn, paper cached     first visit \(f(r.turnFirstVisitMs))   again \(f(r.turnAgainMs))  (\(strokesPerPage) strokes a page)")
        print("  page turn, paper not cached \(f(r.turnColdMs))")
        if let b = r.blankFrameMs, let w = r.worksheetFrameMs {
            func f3(_ s: Summary) -> String { String(cFormat: "median %.4f ms  p99 %.4f ms", s.median, s.p99) }
            print("  frame render, ink on blank paper      \(f3(b))")
            print("  frame render, ink on a worksheet page \(f3(w))   ratio of medians \(String(cFormat: "%.2f", b.median > 0 ? w.median / b.median : 0))")
        }
        print("  PDF helper                  started and the file opened in \(String(cFormat: "%.1f", r.helperStartAndOpenMs)) ms; peak RSS \(String(cFormat: "%.1f", r.helperPeakRSSMiB)) MiB")
        print("  Save (annotated PDF, \(r.pages) pages) \(f(r.saveMs))   \(String(cFormat: "%.0f", r.savedKiB)) KiB")
        print("  memory                      peak RSS \(String(cFormat: "%.1f", r.peakRSSMiB)) MiB (this benchmark: every page's paper, three pipelines and four replays at once)")
    }
}

/// Handwriting-like strokes across the page area, through the pen's events, as a class writes.
private struct Handwriting {
    let size: PixelSize
    let area: Rect
    var t = 1.0
    var line = 0

    init(size: PixelSize, area: Rect) { self.size = size; self.area = area }

    mutating func stroke(into pipeline: FramePipeline) {
        let rows = 12
        let y = area.minY + area.height * (0.1 + 0.8 * Double(line % rows) / Double(rows))
        let x0 = area.minX + area.width * (0.2 + 0.05 * Double(line / rows % 10))
        line += 1
        func axes(_ x: Double, _ y: Double, _ p: Double) -> Axes {
            Axes(x: x / Double(size.width), y: y / Double(size.height), pressure: p, distance: 0)
        }
        func send(_ kind: InkEventKind) { t += 0.005; pipeline.handle(InkEvent(time: t, device: 1, kind: kind)) }
        send(.proximity(isIn: true, tool: .pen, serial: 1, axes: axes(x0, y, 0)))
        send(.tip(isDown: true, axes: axes(x0, y, 0.5)))
        for i in 1...60 {
            let x = x0 + Double(i) * 4, wave = y + 12 * sin(Double(i) * 0.6)
            send(.axis(axes(x, wave, 0.4 + 0.3 * abs(sin(Double(i) * 0.2)))))
            if i % 4 == 0 { _ = try? pipeline.renderFrame() }
        }
        send(.tip(isDown: false, axes: axes(x0 + 240, y, 0)))
        send(.proximity(isIn: false, tool: .pen, serial: 1, axes: axes(x0 + 240, y, 0)))
    }
}
