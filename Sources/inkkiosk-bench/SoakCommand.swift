// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkCommandLine
import FoundationEssentials
import InkLoop
import Glibc
import InkLog
import InkCore
import InkRender
import InkDisplay
import InkStorage
import InkKiosk
import InkConfig
#if canImport(Glibc)
import InkPipeline
#endif

/// `inkkiosk-bench soak`: a day of use in a minute. A pen writes through the real pipeline, journal
/// (writer thread, compaction) and capture files; the figures say whether anything grows:
/// memory after warm-up, the journal against its compacted size, the time to start again
/// after the day, and what a page turn costs. Figures only: nothing here passes or fails.
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Simulate a classroom day and a shop day; report memory, journal size, start-up and page-turn figures.",
        discussion: "Prints a readable report, then the same figures as one JSON object on the last line.")

    enum Day: String, ExpressibleByArgument, CaseIterable { case classroom, shop, both }

    @Option(help: "Which day: classroom (strokes over pages, undo, redo, clear, page turns), shop (signatures), both.")
    var day = Day.both

    @Option(help: "Classroom strokes.")
    var strokes = 20_000

    @Option(help: "Classroom pages (the strokes are spread over them; the first page gets 1000).")
    var pages = 60

    @Option(help: "RAM for the pictures of pages not shown, MB (default: the config's [limits] page_cache_mb).")
    var pageCacheMb = ScreenSettings().notebook.pageCacheMB

    @Option(help: "Shop signatures.")
    var signatures = 500

    @Option(help: "Directory for the journal and the outbox (a fresh one is made inside it).")
    var dir = FileManager.default.temporaryDirectory.path

    @Option(help: "Screen size, WIDTHxHEIGHT.")
    var size = PixelSize(width: 1920, height: 1080)

    @Flag(help: "Keep the day's journal and outbox (their directory is printed).")
    var keep = false

    @Option(help: "Only time a start-up from this journal (e.g. one kept with --keep).")
    var startupFrom: String?

    struct Report: Codable {
        var day: String
        var strokes: Int
        var pages: Int
        var samples: Int
        var wallSeconds: Double
        /// Resident memory (MiB) after each tenth of the day; flatness = max / min after the first tenth.
        var rssMiB: [Double]
        var rssAfterWarmupRatio: Double
        /// The notebook's own ink and the page pictures at the same moments, and the rest of the
        /// resident memory (what must not grow) with its max / min after the first tenth.
        var inkAndPagesMiB: [Double]
        var restMiB: [Double]
        var restAfterWarmupRatio: Double
        /// The notebook's sample buffers over the samples they hold (pages and undo history).
        var bytesPerSample: Double?
        /// The most resident memory the process had during the day (ru_maxrss), MiB.
        var peakMiB: Double
        var journalBytes: Int
        var compactedBytes: Int
        var journalToCompacted: Double
        var compactions: Int
        var startupMs: Double
        var pageTurnMs: Summary?
        var pageTurnAt1000Ms: Double?
        var pageCacheMiB: Double?
        var outboxCaptures: Int?
        var acceptMs: Summary?
    }

    func run() throws {
        if let startupFrom {
            print("start-up from \(startupFrom): " + String(cFormat: "%.1f ms", try Self.startUp(startupFrom, size: size, options: PipelineOptions())))
            return
        }
        let root = "\(dir)/inkkiosk-soak-\(getpid())"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { if keep { print("kept: \(root)") } else { try? FileManager.default.removeItem(atPath: root) } }
        var reports: [Report] = []
        if day != .shop { reports.append(try classroomDay(root)) }
        if day != .classroom { reports.append(try shopDay(root)) }
        for r in reports { printReadable(r) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(reports), as: UTF8.self))
    }

    // MARK: the days

    private func classroomDay(_ root: String) throws -> Report {
        let journalPath = "\(root)/classroom.inkj"
        var options = PipelineOptions()
        options.paletteOverlay = false
        options.pageCacheBytes = pageCacheMb << 20
        options.afterPageChange = { FreeMemory.returnSoon() }   // as the kiosk's
        let display = try OffscreenDisplay(size: size)
        let pipeline = try FramePipeline(settings: InteractionSettings(screen: size), devices: [], display: display, options: options)
        let pen = SoakPen(pipeline: pipeline)
        let writer = JournalWriter(journal: try StrokeJournal(path: journalPath))
        var rng = SplitMix64(seed: 2026)
        var rss: [Double] = [], held: [Double] = []
        var turns: [Double] = []
        var turnAt1000: Double?
        let start = monotonicNow()
        let perPage = max(1, (strokes - 1000) / max(1, pages - 1))

        func timedTurn(_ action: () -> Void) throws -> Double {
            let t0 = monotonicNow()
            action()
            try pipeline.renderFrame()
            return (monotonicNow() - t0) * 1000
        }

        for i in 0..<strokes {
            // A new page after the first 1000 strokes, then every `perPage`.
            if i >= 1000 && (i - 1000) % perPage == 0 && pipeline.notebook.count < pages {
                turns.append(try timedTurn { pipeline.addPage() })
            }
            pen.stroke(&rng)
            writer.save(from: pipeline)
            switch rng.below(1000) {
            case 0..<30: pipeline.undo()
            case 30..<45: pipeline.redo()
            case 45..<47: pipeline.clear()
            case 47..<50 where pipeline.document.canUndo: pipeline.undo()   // a clear undone, often
            case 50..<70 where pipeline.notebook.count > 1:
                // Back to an earlier page for a moment, then on again (the page turns a class makes).
                let back = rng.below(pipeline.notebook.count - 1)
                let last = pipeline.notebook.count - 1
                let t = try timedTurn { pipeline.turn(to: back) }
                if back == 0 && turnAt1000 == nil { turnAt1000 = t }
                turns.append(t)
                pen.stroke(&rng)
                writer.save(from: pipeline)
                turns.append(try timedTurn { pipeline.turn(to: last) })
            default: break
            }
            if pipeline.needsFrame { try pipeline.renderFrame() }
            writer.save(from: pipeline)
            if (i + 1) % max(1, strokes / 10) == 0 {
                rss.append(Self.residentMiB())
                held.append(Self.inkMiB(pipeline.notebook) + Double(pipeline.snapshots.bytes) / 1_048_576)
            }
        }
        let peak = Self.peakMiB()
        let perSample = Self.bytesPerSample(pipeline.notebook)
        _ = writer.stop(timeout: 30)
        let wall = monotonicNow() - start
        let state = writer.state
        let rest = zip(rss, held).map { $0 - $1 }
        let startup = try Self.startUp(journalPath, size: size, options: options)
        let compacted = try Self.compactedSize(pipeline.notebook, root: root, names: pipeline.deviceNames)
        let fileBytes = Self.fileSize(journalPath)
        return Report(day: "classroom", strokes: strokes, pages: pipeline.notebook.count, samples: pipeline.samplesReceived,
                      wallSeconds: wall, rssMiB: rss, rssAfterWarmupRatio: Self.flatness(rss),
                      inkAndPagesMiB: held, restMiB: rest, restAfterWarmupRatio: Self.flatness(rest),
                      bytesPerSample: perSample, peakMiB: peak,
                      journalBytes: fileBytes, compactedBytes: compacted,
                      journalToCompacted: compacted > 0 ? Double(fileBytes) / Double(compacted) : 0,
                      compactions: state.compactions, startupMs: startup,
                      pageTurnMs: Summary(turns), pageTurnAt1000Ms: turnAt1000,
                      pageCacheMiB: Double(pipeline.snapshots.bytes) / 1_048_576, outboxCaptures: nil, acceptMs: nil)
    }

    private func shopDay(_ root: String) throws -> Report {
        let journalPath = "\(root)/shop.inkj", outbox = "\(root)/outbox"
        let display = try OffscreenDisplay(size: size)
        let pipeline = try FramePipeline(settings: InteractionSettings(screen: size), devices: [], display: display)
        let pen = SoakPen(pipeline: pipeline)
        // Scrubbing, as a signature kiosk's journal is: zeros over each signature at its reset.
        let writer = JournalWriter(journal: try StrokeJournal(path: journalPath, scrubbing: true))
        // The outbox keeps the newest 200 here, so that its pruning runs during the day.
        let retention = Retention(keep: 200, maxAgeDays: 30)
        var rng = SplitMix64(seed: 7)
        var rss: [Double] = [], accepts: [Double] = []
        let start = monotonicNow()
        for i in 0..<signatures {
            for _ in 0..<(4 + rng.below(8)) {
                pen.stroke(&rng)
                try pipeline.renderFrame()
                writer.save(from: pipeline)
            }
            // Accept: the capture's files (on the kiosk, on its chores thread), then the journal is emptied.
            let t0 = monotonicNow()
            let capture = SignatureCapture(name: "soak-\(i)", strokes: pipeline.document.strokes, screen: size, dpi: 160,
                                           device: "Soak Pen", started: Date(), ended: Date(),
                                           exporter: CairoCaptureExporter())
            try capture.write(to: outbox)
            _ = try retention.prune(outbox)
            accepts.append((monotonicNow() - t0) * 1000)
            pipeline.startOver()
            writer.reset()
            try pipeline.renderFrame()
            if (i + 1) % max(1, signatures / 10) == 0 { rss.append(Self.residentMiB()) }
        }
        _ = writer.stop(timeout: 30)
        let wall = monotonicNow() - start
        let state = writer.state
        let fileBytes = Self.fileSize(journalPath)
        // One directory a capture; hidden entries (the request record) are not captures.
        let outboxCaptures = try FileManager.default.contentsOfDirectory(atPath: outbox).filter { !$0.hasPrefix(".") }.count
        return Report(day: "shop", strokes: pipeline.samplesReceived > 0 ? signatures : 0, pages: 1, samples: pipeline.samplesReceived,
                      wallSeconds: wall, rssMiB: rss, rssAfterWarmupRatio: Self.flatness(rss),
                      inkAndPagesMiB: [], restMiB: rss, restAfterWarmupRatio: Self.flatness(rss),
                      bytesPerSample: nil, peakMiB: Self.peakMiB(),
                      journalBytes: fileBytes, compactedBytes: StrokeJournal.magic.count,
                      journalToCompacted: Double(fileBytes) / Double(StrokeJournal.magic.count),
                      compactions: state.compactions,
                      startupMs: try Self.startUp(journalPath, size: size, options: PipelineOptions()),
                      pageTurnMs: nil, pageTurnAt1000Ms: nil, pageCacheMiB: nil, outboxCaptures: outboxCaptures, acceptMs: Summary(accepts))
    }

    // MARK: figures

    /// What a restart after the day costs before the first frame: reading the journal,
    /// rebuilding the notebook, painting the page on screen.
    static func startUp(_ journalPath: String, size: PixelSize, options: PipelineOptions) throws -> Double {
        let t0 = monotonicNow()
        let journal = try StrokeJournal(path: journalPath)
        let t1 = monotonicNow()
        let display = try OffscreenDisplay(size: size)
        let pipeline = try FramePipeline(settings: InteractionSettings(screen: size), devices: [], display: display, options: options)
        pipeline.restore(journal.recovered, devices: journal.restoredDevices)
        let t2 = monotonicNow()
        try pipeline.renderFrame()
        let t3 = monotonicNow()
        writeStandardError(String(cFormat: "start-up: journal read %.0f ms, notebook rebuilt %.0f ms, first frame %.0f ms\n",
                                  (t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000))
        return (t3 - t0) * 1000
    }

    /// A file's size in bytes (0 when it cannot be read).
    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The journal's size if it were compacted now.
    static func compactedSize(_ notebook: Notebook, root: String, names: [Int: String]) throws -> Int {
        let journal = try StrokeJournal(path: "\(root)/measure.inkj")
        let copy = try journal.prepareCompaction(notebook.compacted(), deviceNames: names)
        journal.discard(copy)
        return copy.bytes
    }

    /// Largest over smallest resident size after the first tenth (warm-up).
    static func flatness(_ rss: [Double]) -> Double {
        let after = rss.dropFirst()
        guard let lo = after.min(), let hi = after.max(), lo > 0 else { return 0 }
        return hi / lo
    }

    /// What the notebook's strokes (on the pages and in their undo history) take in RAM: their
    /// sample buffers, each stroke and its buffer's header (and malloc's) besides.
    static func inkMiB(_ notebook: Notebook) -> Double {
        var strokes = 0, bytes = 0
        for page in notebook.pages {
            let held = page.held
            strokes += held.strokes; bytes += held.bytes
        }
        return Double(bytes + strokes * (MemoryLayout<Stroke>.stride + 48)) / 1_048_576
    }

    /// The sample buffers' bytes over the samples they hold.
    static func bytesPerSample(_ notebook: Notebook) -> Double {
        var samples = 0, bytes = 0
        for page in notebook.pages {
            let held = page.held
            samples += held.samples; bytes += held.bytes
        }
        return samples > 0 ? Double(bytes) / Double(samples) : 0
    }

    /// The process's peak resident memory so far (Linux gives ru_maxrss in KiB).
    static func peakMiB() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return Double(usage.ru_maxrss) / 1024
    }

    static func residentMiB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    private func printReadable(_ r: Report) {
        func f(_ x: Double, _ digits: Int = 1) -> String { String(cFormat: "%.\(digits)f", x) }
        print("inkkiosk soak: \(r.day) day at \(size): \(r.strokes) \(r.day == "shop" ? "signatures" : "strokes"), \(r.pages) pages, \(r.samples) samples in \(f(r.wallSeconds)) s")
        print("  resident memory    \(r.rssMiB.map { f($0) }.joined(separator: " ")) MiB; after warm-up max/min \(f(r.rssAfterWarmupRatio, 3))")
        if !r.inkAndPagesMiB.isEmpty {
            print("  of which ink+pages \(r.inkAndPagesMiB.map { f($0) }.joined(separator: " ")) MiB (the notebook's strokes, the page pictures)")
            print("  the rest           \(r.restMiB.map { f($0) }.joined(separator: " ")) MiB; after warm-up max/min \(f(r.restAfterWarmupRatio, 3))")
        }
        print("  peak resident      \(f(r.peakMiB)) MiB (ru_maxrss)" + (r.bytesPerSample.map { "; \(f($0)) bytes per stored sample" } ?? ""))
        print("  journal            \(r.journalBytes) bytes, compacted \(r.compactedBytes) bytes (\(f(r.journalToCompacted, 2))×), \(r.compactions) compactions")
        print("  start-up after it  \(f(r.startupMs)) ms (journal read, notebook rebuilt, first frame painted)")
        if let t = r.pageTurnMs {
            print("  page turn          median \(f(t.median, 2)) ms  p99 \(f(t.p99, 2)) ms  max \(f(t.max, 2)) ms (\(r.pageTurnAt1000Ms.map { "to the 1000-stroke page: \(f($0, 2)) ms; " } ?? "")page cache \(f(r.pageCacheMiB ?? 0)) MiB of \(pageCacheMb))")
        }
        if let a = r.acceptMs {
            print("  accept (4 files)   median \(f(a.median, 1)) ms  p99 \(f(a.p99, 1)) ms; outbox holds \(r.outboxCaptures ?? 0) captures")
        }
    }
}

/// A pen on a desk tablet writing short strokes anywhere on the page, through the pipeline.
private final class SoakPen {
    let pipeline: FramePipeline
    private var t = 1.0
    private let device = DeviceInfo(id: 1, kind: .tablet, name: "Soak Pen", widthMM: 216, heightMM: 135, direct: false)

    init(pipeline: FramePipeline) {
        self.pipeline = pipeline
        pipeline.addDevice(device)
    }

    private func send(_ kind: InkEventKind) {
        t += 0.005   // 200 Hz
        pipeline.handle(InkEvent(time: t, device: device.id, kind: kind))
    }

    /// About 30 samples of a handwriting-sized loop; a frame every third sample, as at 60 Hz.
    func stroke(_ rng: inout SplitMix64) {
        let x = 0.05 + 0.9 * rng.unit(), y = 0.05 + 0.9 * rng.unit()
        func axes(_ k: Int, pressure: Double) -> Axes {
            let a = Double(k) * 0.25
            return Axes(x: min(1, x + 0.002 * Double(k)), y: min(1, y + 0.01 * sin(a)), pressure: pressure, distance: 0, tiltX: 20, tiltY: 5)
        }
        send(.proximity(isIn: true, tool: .pen, serial: 1, axes: axes(0, pressure: 0)))
        send(.tip(isDown: true, axes: axes(0, pressure: 0.4)))
        for k in 1...28 {
            send(.axis(axes(k, pressure: 0.3 + 0.4 * rng.unit())))
            if k % 3 == 0 { _ = try? pipeline.renderFrame() }
        }
        send(.tip(isDown: false, axes: axes(28, pressure: 0)))
        send(.proximity(isIn: false, tool: .pen, serial: 1, axes: axes(28, pressure: 0)))
    }
}
