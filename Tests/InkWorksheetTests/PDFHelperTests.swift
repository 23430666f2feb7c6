// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
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

    /// What would let the helper signal or starve the kiosk: SIGIO on the socket they share (by
    /// fcntl or ioctl), a file grown without bound, the page buffer resized under the kiosk's mapping.
    @Test(.disabled(if: Fixtures.emulated, "user-mode emulation has no seccomp; the arm64 VM proves the cage"))
    func theCageKeepsTheHelperFromSignallingOrStarvingTheKiosk() throws {
        let refusals = [
            "fcntl-setsig": "fcntl-setsig: refused: Operation not permitted",
            "fcntl-setown": "fcntl-setown: refused: F_SETOWN: Operation not permitted (EPERM); F_SETOWN_EX: Operation not permitted",
            // Only O_ASYNC is refused: the same command with another flag is not.
            "fcntl-async": "fcntl-async: refused: Operation not permitted (EPERM) (F_SETFL without O_ASYNC: allowed)",
            "ioctl-async": "ioctl-async: refused: FIOASYNC: Operation not permitted (EPERM); FIOSETOWN: Operation not permitted",
            // Ended by EFBIG, not killed by SIGXFSZ.
            "file-size": "file-size: refused past 256 MiB: File too large (EFBIG) (no SIGXFSZ; the byte below written)",
            "grow-buffer": "grow-buffer: refused: Operation not permitted (EPERM) (sealed: grow, shrink, seal)",
            "shrink-buffer": "shrink-buffer: refused: Operation not permitted (EPERM) (sealed: grow, shrink, seal)",
        ]
        for (name, expected) in refusals {
            let r = try probe(name)
            #expect(r.signal == nil && r.output.contains(expected), "\(name): \(r.output)")
        }
        let user = try probe("user")
        if getuid() == 0 {
            #expect(user.output.contains("caged: seccomp on") && user.output.contains("running as uid 65534 gid 65534 (started as root)")
                    && user.output.contains("user: refused root: running as uid 65534 gid 65534"), "started as root, it becomes nobody: \(user.output)")
        } else {
            #expect(user.output.contains("user: refused root: running as uid \(getuid())"), "\(user.output)")
        }
    }

    /// The memfds the kiosk passes, as the kiosk makes them, without the helper's cage: the seals
    /// alone keep their size, and the ink's bytes.
    @Test func theBuffersTheKioskPassesCannotBeResizedAndTheInkCannotBeChanged() throws {
        let page = try SharedMemory(bytes: 8192)
        #expect(Seals.of(page.fd) == [.grow, .shrink, .seal])
        #expect(ftruncate(page.fd, 0) == -1 && errno == EPERM, "shrunk: the kiosk's mapping would SIGBUS")
        #expect(ftruncate(page.fd, 1 << 30) == -1 && errno == EPERM, "grown into the board's memory")
        var byte: UInt8 = 7
        #expect(pwrite(page.fd, &byte, 1, 8192) == -1 && errno == EPERM, "grown by a write past its end")
        #expect(!SharedMemory.seal(page.fd, .write) && errno == EPERM, "no seal added after F_SEAL_SEAL")
        // Inside it, the helper draws and the kiosk sees it.
        #expect(pwrite(page.fd, &byte, 1, 8191) == 1 && page.base.load(fromByteOffset: 8191, as: UInt8.self) == 7)
        #expect(throws: Never.self) { try MappedMemory(fd: page.fd, atLeast: 8192, writable: true).unmap() }

        let ink = try SealedBytes([1, 2, 3, 4, 5], name: "inkkiosk-ink")
        #expect(Seals.of(ink.fd) == [.grow, .shrink, .write, .seal])
        #expect(pwrite(ink.fd, &byte, 1, 0) == -1 && errno == EPERM, "the ink written over")
        let writable = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ink.fd, 0)
        #expect(writable == MAP_FAILED && errno == EPERM, "a writable shared mapping of the ink")
        let read = try MappedMemory(fd: ink.fd, atLeast: 5, writable: false)
        defer { read.unmap() }
        #expect(Array(UnsafeRawBufferPointer(start: read.base, count: 5)) == [1, 2, 3, 4, 5])
        // The helper's side refuses a buffer that is not sealed as it must be.
        let loose = try SharedMemory.memfd("loose", bytes: 8192)
        defer { close(loose) }
        #expect(throws: HelperChannel.Failure.self) { try MappedMemory(fd: loose, atLeast: 8192, writable: true) }
        #expect(throws: HelperChannel.Failure.self) { try MappedMemory(fd: page.fd, atLeast: 8192, writable: false) }
    }

    /// What `/proc/PID/fd` of a process holds: each descriptor's target.
    func descriptors(of pid: pid_t) -> [String] {
        let dir = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "\(dir)/\($0)")
        }.sorted()
    }

    /// Every descriptor a request passes is closed on every path, in the helper (poppler's copy
    /// included) and in the kiosk: after 40 rounds of requests, most of them refused, both hold
    /// what they held after the first.
    @Test func manyRequestsGoodAndBadLeaveNoDescriptorOpen() throws {
        let good = "\(dir)/good.pdf", damaged = "\(dir)/damaged.pdf", locked = "\(dir)/locked.pdf"
        try Worksheets.make(good, pages: 2, title: "Two")
        try Worksheets.write(damaged, Array("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\nendobj\ntrailer\n<< >>\n%%EOF\n".utf8))
        try Worksheets.locked(locked)
        let helper = PDFHelper(launch: Fixtures.pdfHelperLaunch)
        let sheet = try Worksheet(path: good, helper: helper)
        _ = try Exporter.thumbnail(try sheet.page(1), height: 100)
        let pid = try #require(helper.pid)
        let helperBefore = descriptors(of: pid)
        func kiosksOwn() -> Int { descriptors(of: getpid()).filter { $0.hasPrefix(dir) }.count }
        let kioskBefore = kiosksOwn()
        #expect(kioskBefore == 1, "the kiosk holds the open worksheet's file once (\(kioskBefore))")
        let buffer = try SharedMemory(bytes: 4096)
        for round in 0..<40 {
            // A page drawn; a document opened and dropped (closed with the next request).
            let page = try sheet.page(1 + round % 2)
            _ = try Exporter.thumbnail(page, height: 100)
            #expect(page.takeFailure() == nil)
            _ = try Worksheet(path: good, helper: helper)
            // Files poppler refuses: damaged, locked.
            #expect(throws: WorksheetError.self) { try Worksheet(path: damaged, helper: helper) }
            #expect(throws: WorksheetError.self) { try Worksheet(path: locked, helper: helper) }
            // Requests the helper refuses, each with descriptors it has no use for.
            var noPage = HelperRequest(.page)
            noPage.page = 9
            #expect(throws: PDFHelper.Failure.self) { try helper.ask(noPage, on: sheet.document, fds: [buffer.fd, buffer.fd]) }
            var badRender = HelperRequest(.render)
            badRender.page = 1; badRender.width = 0; badRender.height = 10; badRender.matrix = [1, 0, 0, 1, 0, 0]
            #expect(throws: PDFHelper.Failure.self) { try helper.ask(badRender, on: sheet.document, fds: [buffer.fd]) }
            var tooSmall = badRender
            tooSmall.width = 4096   // larger than the buffer
            #expect(throws: PDFHelper.Failure.self) { try helper.ask(tooSmall, on: sheet.document, fds: [buffer.fd]) }
            var badWrite = HelperRequest(.write)
            badWrite.format = "pdf"
            #expect(throws: PDFHelper.Failure.self) { try helper.ask(badWrite, on: sheet.document, fds: [buffer.fd, buffer.fd, buffer.fd, buffer.fd]) }
            #expect(throws: PDFHelper.Failure.self) { try helper.ask(HelperRequest(.open)) }
            _ = try helper.ask(HelperRequest(.close), fds: [buffer.fd])
        }
        _ = try helper.peakKiB()   // the last dropped document closed
        #expect(helper.pid == pid, "one helper throughout")
        #expect(descriptors(of: pid) == helperBefore, "the helper's descriptors: \(descriptors(of: pid)) against \(helperBefore)")
        #expect(kiosksOwn() == kioskBefore, "the kiosk's descriptors of the test's files: \(kiosksOwn()) against \(kioskBefore)")
    }

    /// A helper taken over passes descriptors back with every answer (and its first message): the
    /// kiosk closes them all, or its table would fill. Played by a script speaking the helper's protocol.
    @Test(.disabled(if: Fixtures.emulated, "the script is an x86 program; the kiosk's side is the same code"))
    func descriptorsAHelperPassesBackAreClosed() throws {
        let script = "\(dir)/hostile-helper"
        try Worksheets.write(script, Array("""
            #!/usr/bin/python3
            # A PDF helper taken over: each message it sends carries four descriptors of its file "bait".
            import json, os, socket
            bait = os.open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bait"), os.O_RDONLY | os.O_CREAT, 0o600)
            channel = socket.socket(fileno=3)
            def say(reply):
                socket.send_fds(channel, [json.dumps(reply).encode()], [bait] * 4)
            say({"detail": "seccomp on, a helper that passes descriptors"})
            while True:
                message, fds, _, _ = socket.recv_fds(channel, 65536, 4)
                for fd in fds:
                    os.close(fd)
                if not message:
                    break
                op = json.loads(message)["op"]
                say({"open": {"document": 1, "pages": 2}, "page": {"width": 595, "height": 842}, "memory": {"peakKiB": 1}}.get(op, {}))

            """.utf8))
        chmod(script, 0o755)
        let path = "\(dir)/two.pdf"
        try Worksheets.make(path, pages: 2)
        let helper = PDFHelper(launch: PDFHelper.Launch(executable: script))
        let sheet = try Worksheet(path: path, helper: helper)
        for n in 0..<20 {
            #expect(try sheet.page(1 + n % 2).pageWidth == 595)
            _ = try Worksheet(path: path, helper: helper)   // dropped: closed in the helper with the next request
            _ = try helper.peakKiB()
        }
        let baits = descriptors(of: getpid()).filter { $0 == "\(dir)/bait" }
        #expect(baits.isEmpty, "\(baits.count) of the helper's descriptors left open in the kiosk")
        #expect(FileManager.default.fileExists(atPath: "\(dir)/bait"), "the script ran")
    }

    /// A Save whose file would pass `[limits] worksheet_save_mb` fails with EFBIG named, and the
    /// helper (not killed by SIGXFSZ) draws on.
    @Test func aSaveLargerThanTheHelpersFileLimitFailsAndTheHelperGoesOn() throws {
        // A page with a 1200 x 1200 picture of noise (1.4 MB however it is compressed), written out
        // as hexadecimal so that the file is text.
        var seed: UInt32 = 12345
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1200 * 1200 * 2)
        for _ in 0..<(1200 * 1200) {
            seed = seed &* 1_103_515_245 &+ 12345
            let b = Int(truncatingIfNeeded: seed >> 16) & 0xff
            bytes.append(digits[b >> 4]); bytes.append(digits[b & 15])
        }
        let hex = String(decoding: bytes, as: UTF8.self)
        let content = "q 500 0 0 500 40 300 cm /Im1 Do Q"
        let pdf = Worksheets.raw([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /XObject /Subtype /Image /Width 1200 /Height 1200 /ColorSpace /DeviceGray /BitsPerComponent 8 "
                + "/Filter /ASCIIHexDecode /Length \(hex.utf8.count + 1) >>\nstream\n\(hex)>\nendstream",
        ])
        let path = "\(dir)/noise.pdf"
        try Worksheets.write(path, Array(pdf.utf8))
        var launch = Fixtures.pdfHelperLaunch
        launch.fileMB = 1
        let helper = PDFHelper(launch: launch)
        let page = try Worksheet(path: path, helper: helper).page(1)
        let pid = helper.pid
        let exporter = Exporter(size: PixelSize(width: 1280, height: 800), backdrop: page)
        let out = "\(dir)/noise-annotated.pdf"
        do {
            _ = try DurableFile.produced(out, mode: 0o644) { try AnnotatedFile.write(.pdf, [(exporter, [])], to: $0) }
            Issue.record("a file of more than 1 MiB written")
        } catch {
            #expect("\(error)".contains("larger than 1 MiB ([limits] worksheet_save_mb)") && "\(error)".contains("File too large"), "\(error)")
        }
        #expect(helper.pid == pid, "the helper lives on")
        _ = try Exporter.thumbnail(page, height: 200)
        #expect(page.takeFailure() == nil, "and draws the page")
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

    /// The page buffer is shared with the helper: a render holds it until its caller has used the
    /// pixels, so two threads drawing with one helper each get their own page, never the other's.
    @Test func twoThreadsRenderingWithOneHelperEachGetTheirOwnPicture() throws {
        let path = "\(dir)/race.pdf"
        try Worksheets.make(path, pages: 2, title: "Race")
        let helper = PDFHelper(launch: Fixtures.pdfHelperLaunch)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let document = try helper.open(fd, maxPages: 10)
        /// Every 97th byte of the page drawn at `scale`, read 2 ms after the helper finished: the
        /// time another render would have to draw over it.
        @Sendable func fingerprint(page: Int, scale: Double) throws -> [UInt8] {
            var matrix = cairo_matrix_t()
            cairo_matrix_init_scale(&matrix, scale, scale)
            let width = Int(595 * scale), height = Int(842 * scale)
            var sample: [UInt8] = []
            try helper.render(document, page: page, matrix: matrix, width: width, height: height, printing: false) { image in
                usleep(2000)
                cairo_surface_flush(image)
                let rowBytes = Int(cairo_image_surface_get_stride(image))
                guard let data = cairo_image_surface_get_data(image) else { return }
                sample = Swift.stride(from: 0, to: rowBytes * height, by: 97).map { data[$0] }
            }
            return sample
        }
        let expected = [try fingerprint(page: 1, scale: 0.5), try fingerprint(page: 2, scale: 1)]
        #expect(expected[0] != expected[1])
        let wrong = Mutex(0), failed = Mutex<String?>(nil)
        DispatchQueue.concurrentPerform(iterations: 2) { which in
            for _ in 0..<15 {
                do {
                    let got = try which == 0 ? fingerprint(page: 1, scale: 0.5) : fingerprint(page: 2, scale: 1)
                    if got != expected[which] { wrong.withLock { $0 += 1 } }
                } catch {
                    failed.withLock { $0 = "\(error)" }
                }
            }
        }
        #expect(failed.withLock { $0 } == nil)
        #expect(wrong.withLock { $0 } == 0, "renders that came back with another render's pixels")
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
