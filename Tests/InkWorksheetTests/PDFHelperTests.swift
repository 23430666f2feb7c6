import Foundation
import Testing
import CCairo
import InkCore
@testable import InkPDFHelper
import InkRender
@testable import InkStorage
@testable import InkWorksheet
import InkTestSupport
import InkWorksheetTestSupport

/// The PDF helper: poppler in a process of its own, caged, that may crash or hang without the kiosk.
@Suite struct PDFHelperTests {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("pdf-helper-\(UUID().uuidString.prefix(8))") }

    /// Runs `inkkiosk pdf-helper --try PROBE`: what it printed, and the signal that ended it (if one did).
    func probe(_ name: String) throws -> (output: String, signal: Int32?) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.inkkioskBinary)
        p.arguments = ["pdf-helper", "--try", name]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile() + err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (text, p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil)
    }

    @Test(.disabled(if: Fixtures.emulated, "user-mode emulation has no seccomp or Landlock; the arm64 VM proves the cage"))
    func theCageRefusesWhatAPDFReaderMustNotDo() throws {
        let read = try probe("read-outside")
        #expect(read.output.contains("caged: seccomp on"), "\(read.output)")
        if read.output.contains("Landlock ABI") {
            #expect(read.output.contains("read-outside: /etc/passwd refused: Permission denied"), "files outside the fonts: \(read.output)")
        }
        #expect(try probe("write-file").output.contains("write-file: refused: Operation not permitted"))
        #expect(try probe("map-executable").output.contains("map-executable: refused"))
        #expect(try probe("allocate").output.contains("allocate: refused: 4 GiB cannot be mapped: Cannot allocate memory"))
        for fatal in ["socket", "exec", "signal-parent"] {
            let r = try probe(fatal)
            #expect(r.signal == SIGSYS && !r.output.contains("allowed"), "\(fatal): killed by its cage (\(String(describing: r.signal)), \(r.output))")
        }
    }

    @Test func aPageDrawnByTheHelperIsThePageAndTheKioskHoldsNoPoppler() throws {
        let path = "\(dir)/two.pdf"
        try Worksheets.make(path, pages: 2, title: "Two")
        let helper = PDFHelper(launch: Fixtures.pdfHelperLaunch)
        let sheet = try Worksheet(path: path, helper: helper)
        #expect(sheet.pageCount == 2 && sheet.title == "Two")
        let pid = try #require(helper.pid)
        #expect(pid != getpid())
        // poppler is loaded in the helper, never in this process (files in /proc read to their end: they claim no size).
        func whole(_ path: String) -> String {
            String(decoding: FileHandle(forReadingAtPath: path)?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        }
        let maps = whole("/proc/self/maps")
        #expect(maps.contains("libcairo") && !maps.contains("libpoppler"), "the kiosk's process has cairo and no poppler mapped")
        #expect(whole("/proc/\(pid)/maps").contains("libpoppler-glib"), "the helper has it")
        let page = try sheet.page(2)
        #expect(page.pageWidth == 595 && page.pageHeight == 842)
        let image = try Exporter.thumbnail(page, height: 200)
        #expect(page.takeFailure() == nil)
        let dark = (0..<image.size.height).reduce(0) { n, y in n + (0..<image.size.width).filter { image.pixel(x: $0, y: y).r < 128 }.count }
        #expect(dark > 200, "the page's heading and box drawn (\(dark) dark pixels)")
    }

    /// A page whose text is in Helvetica, not embedded: fontconfig finds a stand-in below the
    /// font folders the cage lets it read.
    @Test func textInAFontThePDFDoesNotCarryIsDrawnWithTheSystemsFonts() throws {
        let content = "BT /F1 48 Tf 72 700 Td (Helvetica, not embedded) Tj ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        let pdf = Worksheets.raw(objects)
        let path = "\(dir)/helvetica.pdf"
        try Worksheets.write(path, Array(pdf.utf8))
        let page = try Worksheet(path: path, helper: PDFHelper(launch: Fixtures.pdfHelperLaunch)).page(1)
        let image = try Exporter.thumbnail(page, height: 842)
        #expect(page.takeFailure() == nil)
        // The line of text: 48 pt letters from 72 pt, 700 pt above the bottom (142 below the top).
        let dark = (100..<150).reduce(0) { n, y in n + (72..<500).filter { image.pixel(x: $0, y: y).r < 128 }.count }
        #expect(dark > 2000, "the words are drawn (\(dark) dark pixels)")
    }

    @Test func theHelperStartsAgainAfterDyingBetweenRequestsWithoutBlamingTheNextFile() throws {
        let path = "\(dir)/two.pdf"
        try Worksheets.make(path, pages: 2, title: "Two")
        let helper = PDFHelper(launch: Fixtures.pdfHelperLaunch)
        let watch = PopplerWatch(directory: dir)
        let sheet = try Worksheet(path: path, watch: watch, helper: helper)
        let first = try #require(helper.pid)
        kill(first, SIGKILL)   // the out-of-memory killer, say
        // Dead once its parent, the helper's client, could reap it: WNOWAIT asks without reaping.
        // (A "Z" in /proc comes earlier: the first thread is a zombie while the others still exit,
        // and under qemu-user there are several.)
        // ECHILD: reaped already (gone all the same).
        func reapable() -> Bool {
            var info = siginfo_t()
            if waitid(P_PID, id_t(first), &info, WEXITED | WNOHANG | WNOWAIT) != 0 { return errno == ECHILD }
            return info._sifields._sigchld.si_pid == first
        }
        let deadline = Date().addingTimeInterval(30)
        while !reapable() && Date() < deadline { usleep(1000) }
        try #require(reapable(), "the killed helper \(first) ended within 30 s")
        #expect(try sheet.page(2).pageWidth == 595, "opened again in a new helper")
        #expect(helper.pid != nil && helper.pid != first)
        #expect(watch.strikes(for: path) == 0)
    }

    @Test func aHelperOutOfCPUTimeIsNoStrikeAgainstTheFile() throws {
        let path = "\(dir)/two.pdf"
        try Worksheets.make(path, pages: 2, title: "Two")
        let watch = PopplerWatch(directory: dir)
        _ = try? watch.around(path, page: 1) { () throws -> Int in throw PDFHelper.Failure.crashed(signal: SIGXCPU, status: nil) }
        #expect(watch.strikes(for: path) == 0)
        HelperFault.strike(watch, path, page: 1)
        #expect(watch.strikes(for: path) == 1, "a crash is one")
    }

    @Test func anAnswerOutOfBoundsIsNotBelieved() {
        var r = HelperReply()
        r.pages = 5000
        #expect(r.checked(maxPages: 200) == nil)
        r.pages = 3; r.width = .infinity
        #expect(r.checked(maxPages: 200) == nil)
        r.width = 595; r.height = -1
        #expect(r.checked(maxPages: 200) == nil)
        r.height = 842; r.title = String(repeating: "𠀀", count: 1000)
        let cut = r.checked(maxPages: 200)?.title
        #expect(cut.map { $0.utf8.count <= HelperReply.maxTitleBytes && $0.unicodeScalars.allSatisfy { $0 == "𠀀" } } == true)
    }

    @Test func strokesCrossToTheHelperAsTheyAre() throws {
        var samples: [Sample] = []
        for i in 0..<50 {
            let k = Double(i)
            let location = Point(10 + k * 3, 20 + sin(k) * 5)
            let pressure: Double = 0.3 + Double(i % 7) / 10
            samples.append(Sample(location: location, pressure: pressure, altitude: 0.9, azimuth: 1.1, time: 100 + k / 240))
        }
        var brush = Brush.standard(.calligraphy)
        brush.color = RGBA(0.2, 0.4, 0.6, 0.8)
        let first = Stroke(id: 7, brush: brush, source: .pen(device: 1), samples: samples, state: .done)
        let second = Stroke(id: 8, brush: .standard(.highlighter), source: .pen(device: 1), samples: Array(samples.prefix(3)), state: .done)
        let pages: [[Stroke]] = [[first], [], [second]]
        let bytes = try StrokeTransfer.encode(pages)
        let back = try #require(StrokeTransfer.decode(bytes))
        let samplesBack: [[[Sample]]] = back.map { page in page.map { Array($0.samples) } }
        let samplesSent: [[[Sample]]] = pages.map { page in page.map { Array($0.samples) } }
        let brushesBack: [[Brush]] = back.map { page in page.map { $0.brush } }
        let brushesSent: [[Brush]] = pages.map { page in page.map { $0.brush } }
        #expect(samplesBack == samplesSent)
        #expect(brushesBack == brushesSent && back[0][0].id == 7)
        #expect(StrokeTransfer.decode(Array(bytes.dropLast())) == nil && StrokeTransfer.decode(bytes + [0]) == nil)
    }
}
