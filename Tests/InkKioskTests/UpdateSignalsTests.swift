// SPDX-License-Identifier: Apache-2.0
import CLinux
import Foundation
import Glibc
import Testing
import InkCore
import InkConfig
@testable import InkKiosk
import InkTestSupport

/// What the kiosk tells the disk image's update engine (`[update]`): the busy file while a
/// session must not be cut, the ready file, and the hardware watchdog's feeding. The watchdog
/// itself (a real i6300esb that resets the machine) is proved in QEMU: scripts/image/watchdog-test.py.
@Suite struct UpdateSignalsTests {
    func directory() throws -> String { try Fixtures.outputDirectory("update-\(UUID().uuidString.prefix(8))") }

    func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    func signatureSettings(_ outbox: String, hosted: Bool) -> ScreenSettings {
        var s = ScreenSettings()
        s.mode = .signature
        s.capture.outbox = outbox
        s.api.address = hosted ? "127.0.0.1:0" : nil
        return s
    }

    let stroke = [Point(300, 420), Point(380, 350), Point(450, 440), Point(520, 360), Point(640, 430)]

    /// A host's request holds the file from the moment it arrives until its capture is on disk;
    /// the file names it. A crashed run's file is gone at start.
    @Test func theBusyFileLastsFromTheHostsRequestUntilTheCaptureIsOnDisk() throws {
        let dir = try directory()
        let path = "\(dir)/run/busy"   // its directory is made when first needed (/run is empty at boot)
        let booth = try Booth(signatureSettings("\(dir)/outbox", hosted: true))
        booth.chores = try BackgroundChores.onThread()
        let screen = try #require(booth.screen as? SignatureScreen)
        try FileManager.default.createDirectory(atPath: "\(dir)/run", withIntermediateDirectories: true)
        try "left by a crash\n".write(toFile: path, atomically: false, encoding: .utf8)
        var busy = try BusyMarker(path: path)
        #expect(read(path) == nil, "a file left by the last run is removed")
        func step() throws {
            try booth.frame()
            #expect(busy.update(screen.busy(booth.pipeline)) == nil)
        }

        try step()
        #expect(read(path) == nil, "no request, no ink: idle")
        screen.start(.init(id: "req7", prompt: nil), booth.context)
        try step()
        #expect(read(path) == "signature req7: requested by the host\n")
        try booth.draw(stroke)
        try booth.tap(.accept)
        try step()
        #expect(read(path) == "signature req7: its files are being written\n", "Accept pressed, files not on disk yet")
        #expect(booth.chores.stop(timeout: 10))
        booth.chores.deliver()
        try step()
        #expect(read(path) == nil, "the capture is on disk and the host's request ended: an update may go")
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    /// Without a host the kiosk is always ready for a signature: ink on the pad is the session.
    @Test func inkOnAnUnhostedPadHoldsUpdatesUntilClearedOrAccepted() throws {
        let dir = try directory()
        let booth = try Booth(signatureSettings("\(dir)/outbox", hosted: false))
        let screen = try #require(booth.screen as? SignatureScreen)
        var busy = try BusyMarker(path: "\(dir)/busy")
        #expect(busy.update(screen.busy(booth.pipeline)) == nil && read("\(dir)/busy") == nil)
        try booth.draw(stroke)
        #expect(busy.update(screen.busy(booth.pipeline)) == nil)
        #expect(read("\(dir)/busy") == "a signature is being drawn\n")
        try booth.tap(.clear)
        #expect(busy.update(screen.busy(booth.pipeline)) == nil)
        #expect(read("\(dir)/busy") == nil)
    }

    /// A classroom's save (the hand-in) holds updates while its pages are written; drawing does not
    /// (the journal keeps every stroke).
    @Test func aClassroomHoldsUpdatesOnlyWhileItSaves() throws {
        let dir = try directory()
        var s = ScreenSettings()
        s.mode = .classroom
        s.capture.saveDirectory = dir
        let booth = try Booth(s)
        booth.chores = try BackgroundChores.onThread()
        let screen = try #require(booth.screen as? ClassroomScreen)
        try booth.draw([Point(300, 400), Point(700, 400)])
        #expect(screen.busy(booth.pipeline) == nil, "ink alone is in the journal")
        try booth.tap(.save)
        #expect(screen.busy(booth.pipeline) == "the notebook is being saved")
        #expect(booth.chores.stop(timeout: 10))
        booth.chores.deliver()
        #expect(screen.busy(booth.pipeline) == nil)
    }

    /// A busy file that cannot be written is reported at the change that failed, not at every
    /// turn of the loop, and the next change is tried again.
    @Test func aBusyFileThatCannotBeWrittenIsReportedOncePerChange() throws {
        let dir = try directory()
        let path = "\(dir)/missing-parent/deeper/busy"   // only one level is made
        var busy = try BusyMarker(path: path)
        let failed = busy.update("a signature is being drawn")
        let error = try #require(failed)
        #expect(error.errno == ENOENT && "\(error)".contains("\(path).tmp"), "\(error)")
        #expect(busy.update("a signature is being drawn") == nil, "not again while nothing changed")
        #expect(busy.update(nil) == nil, "removing a file that is not there is no failure")
    }

    @Test func theWatchdogIsFedEveryQuarterOfItsTimeout() {
        var schedule = FeedSchedule(timeout: 30)
        #expect(schedule.isDue(now: 100), "never fed: due at once")
        schedule.fed(at: 100)
        #expect(!schedule.isDue(now: 107) && schedule.until(now: 107) == 0.5)
        #expect(schedule.isDue(now: 107.5))
    }

    /// The request numbers come from the kernel's header; on the two architectures the kiosk ships
    /// for they are the generic _IOC layout (dir << 30 | size << 16 | 'W' << 8 | nr).
    @Test func theWatchdogRequestsAreTheKernels() {
        #if arch(x86_64) || arch(arm64)
        #expect(ik_wdioc_settimeout() == 0xC004_5706, "_IOWR('W', 6, int)")
        #expect(ik_wdioc_keepalive() == 0x8004_5705, "_IOR('W', 5, int)")
        #endif
    }

    @Test func aWatchdogThatIsNoWatchdogIsRefusedWithTheReason() throws {
        let dir = try directory()
        #expect { try HardwareWatchdog(path: "\(dir)/none", timeout: 30) } throws: {
            "\($0)".contains("cannot open the watchdog \(dir)/none: No such file or directory") && "\($0)".contains("driver must be loaded")
        }
        let plain = "\(dir)/plain"
        #expect(FileManager.default.createFile(atPath: plain, contents: nil))
        #expect { try HardwareWatchdog(path: plain, timeout: 30) } throws: {
            "\($0)".contains("WDIOC_SETTIMEOUT") && "\($0)".contains(plain) && ($0 as? SystemCallError)?.errno == ENOTTY
        }
        #expect(try String(contentsOfFile: plain, encoding: .utf8) == "V", "what it opened is disarmed again (the magic close)")
    }

    @Test func theReadyFileIsWrittenWholeAndItsDirectoryMade() throws {
        let dir = try directory()
        let file = StateFile(path: "\(dir)/inkkiosk/ready")
        try file.write("pid 1, up 23.400 s: first frame on screen, input open\n")
        #expect(read("\(dir)/inkkiosk/ready") == "pid 1, up 23.400 s: first frame on screen, input open\n")
        try file.remove()
        try file.remove()
        #expect(read("\(dir)/inkkiosk/ready") == nil)
    }

    @Test func updateKeysAreReadAndChecked() throws {
        let c = try KioskConfig.parse("""
            [update]
            watchdog = "/dev/watchdog"
            watchdog_timeout = 20
            ready_file = "/run/inkkiosk/ready"
            busy_file = "/run/inkkiosk/busy"
            """, file: "t.toml")
        #expect(c.update.watchdog == "/dev/watchdog" && c.update.watchdogTimeout == 20)
        #expect(c.update.readyFile == "/run/inkkiosk/ready" && c.update.busyFile == "/run/inkkiosk/busy")
        #expect(try KioskConfig.parse("", file: "t.toml").update == UpdateSettings(), "all off by default")
        #expect { try KioskConfig.parse("[update]\nwatchdog_timeout = 1\n", file: "t.toml") } throws: {
            "\($0)".contains("t.toml:2") && "\($0)".contains("update.watchdog_timeout")
        }
        #expect { try KioskConfig.parse("[update]\nwatchdog = \"dev/watchdog\"\n", file: "t.toml") } throws: { "\($0)".contains("update.watchdog") }
    }
}
