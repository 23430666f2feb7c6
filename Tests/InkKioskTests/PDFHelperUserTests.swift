// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
import InkPDFHelper
import InkRender
@testable import InkWorksheet
import InkTestSupport
import InkWorksheetTestSupport

/// Where the kernel has no Landlock (many 5.10 vendor kernels), the PDF helper must not run with
/// the kiosk's own file access: started as root it becomes a user of its own; else it refuses,
/// unless `[pdf_helper] without_landlock = "allow"`. The kernel here has Landlock: the helper is
/// told to act as if it had none (`pdf-helper --test-without-landlock`), and the rest is real.
@Suite struct PDFHelperWithoutLandlock {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("pdf-helper-user-\(UUID().uuidString.prefix(8))") }

    func worksheet() throws -> String {
        let path = "\(dir)/two.pdf"
        try Worksheets.make(path, pages: 2, title: "Two")
        return path
    }

    /// The lines of /proc/PID/status that say who a process is.
    func credentials(_ pid: pid_t) -> [String] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.hasPrefix("Uid:") || $0.hasPrefix("Gid:") || $0.hasPrefix("Groups:") }
            .map { $0.split(whereSeparator: { $0 == "\t" || $0 == " " }).joined(separator: " ") }
    }

    @Test(.enabled(if: getuid() == 0, "the kiosk must be root to give its helper another user"))
    func startedAsRootTheHelperBecomesAUserOfItsOwnAndDrawsThePage() throws {
        let log = LogCapture()
        var launch = Fixtures.pdfHelperLaunch
        launch.pretendNoLandlock = true
        let helper = PDFHelper(launch: launch, log: log.logger)
        let sheet = try Worksheet(path: try worksheet(), helper: helper)
        let pid = try #require(helper.pid)
        #expect(credentials(pid) == ["Uid: 65534 65534 65534 65534", "Gid: 65534 65534 65534 65534", "Groups:"], "\(credentials(pid))")
        let started = log.messages(at: .info).filter { $0.hasPrefix("pdf helper \(pid) started: ") }
        #expect(started.count == 1 && started[0].contains("no Landlock (a test acts as if the kernel had none), "
                                                          + "running as uid 65534 gid 65534 (started as root)"), "\(log.messages)")
        let page = try sheet.page(2)
        let image = try Exporter.thumbnail(page, height: 200)
        #expect(page.takeFailure() == nil)
        let dark = (0..<image.size.height).reduce(0) { n, y in n + (0..<image.size.width).filter { image.pixel(x: $0, y: y).r < 128 }.count }
        #expect(dark > 200, "the page drawn by nobody (\(dark) dark pixels)")
    }

    @Test(.enabled(if: getuid() == 0 && !Fixtures.emulated, "a helper of another user is started through setpriv, by root"))
    func aHelperThatWouldRunAsTheKiosksUserIsRefusedUnlessTheConfigAllowsIt() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) is needed")
        // The kiosk's user is not root here: the helper is started as nobody, as a kiosk run by
        // a user of its own (the systemd unit's) starts it.
        let wrapper = "\(dir)/as-nobody"
        try Worksheets.write(wrapper, Array("""
            #!/bin/sh
            exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \(Fixtures.inkkioskBinary) "$@"

            """.utf8))
        chmod(wrapper, 0o755)
        let path = try worksheet()
        var launch = Fixtures.pdfHelperLaunch
        launch.executable = wrapper
        launch.pretendNoLandlock = true
        let log = LogCapture()
        let refusing = PDFHelper(launch: launch, log: log.logger)
        for _ in 0..<3 {
            let e = #expect(throws: WorksheetError.self) { try Worksheet(path: path, helper: refusing) }
            // What the screen shows after "This worksheet cannot be opened: ".
            #expect(e?.kind == .noPoppler && e?.detail.contains("no Landlock (a test acts as if the kernel had none) and the PDF reader "
                                                                 + "would run as the kiosk's own user (uid 65534)") == true
                    && e?.detail.contains("[pdf_helper] without_landlock = \"allow\"") == true, "\(String(describing: e))")
        }
        let refused = log.messages(at: .warning).filter { $0.contains("refused: no Landlock") }
        #expect(refused.count == 1, "said once, not started again for each request: \(log.messages)")
        #expect(refusing.pid == nil)

        launch.withoutLandlock = .allow
        let allowing = PDFHelper(launch: launch, log: log.logger)
        let sheet = try Worksheet(path: path, helper: allowing)
        let pid = try #require(allowing.pid)
        #expect(log.messages(at: .info).contains { $0.hasPrefix("pdf helper \(pid) started: ") && $0.contains(
            "no Landlock (a test acts as if the kernel had none), allowed by [pdf_helper] without_landlock, running as uid 65534 gid 65534 (the kiosk's user)") },
                "\(log.messages)")
        #expect(try sheet.page(2).pageWidth == 595)
    }
}
