// SPDX-License-Identifier: Apache-2.0
import CLinux
import FoundationEssentials
import Glibc
import InkCore

/// A hardware watchdog (`[update] watchdog`, the kernel's watchdog API): armed when opened, it
/// resets the machine unless fed within its timeout. The kiosk's loop feeds it after each turn,
/// as it pings systemd's watchdog: a loop that hangs stops feeding it, whatever the other threads
/// do. `disarm` (a clean stop) writes the magic 'V' before closing; closing without it (a crash)
/// leaves it running, so a kiosk that dies still resets the machine.
final class HardwareWatchdog {
    let path: String
    /// The timeout the driver took (it may round what was asked).
    let timeout: Int
    private var fd: Int32
    private var schedule: FeedSchedule

    init(path: String, timeout asked: Int) throws(SystemCallError) {
        self.path = path
        let opened = try SystemCallError.check(open(path, O_WRONLY | O_CLOEXEC), "open the watchdog", path: path,
                                               hint: "the watchdog's driver must be loaded (e.g. i6300esb, imx2_wdt, dw_wdt, bcm2835_wdt)")
        var seconds = Int32(asked)
        do {
            try SystemCallError.check(ik_watchdog_set_timeout(opened, &seconds), "set the timeout (WDIOC_SETTIMEOUT, \(asked) s) of", path: path)
            // Some drivers answer SETTIMEOUT with the old value; GETTIMEOUT says what holds now.
            try SystemCallError.check(ik_watchdog_get_timeout(opened, &seconds), "read the timeout (WDIOC_GETTIMEOUT) of", path: path)
        } catch {
            Self.close(opened, magic: true)   // opening armed it: a device that will not take a timeout is not left ticking
            throw error
        }
        fd = opened
        timeout = Int(seconds)
        schedule = FeedSchedule(timeout: Double(seconds))
        try feed(now: monotonicNow())
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }   // no magic: only `disarm` stops it

    /// Seconds until the next feed is due.
    func untilFeed(now: Double) -> Double { schedule.until(now: now) }

    /// Feeds it when due (from the loop, after each turn). A failed feed is thrown: the caller says so once.
    func feedIfDue(now: Double) throws(SystemCallError) {
        guard schedule.isDue(now: now) else { return }
        try feed(now: now)
    }

    private func feed(now: Double) throws(SystemCallError) {
        try SystemCallError.check(ik_watchdog_keepalive(fd), "feed (WDIOC_KEEPALIVE)", path: path)
        schedule.fed(at: now)
    }

    /// A clean stop: the magic close, so the machine is not reset while it shuts down on purpose.
    func disarm() {
        guard fd >= 0 else { return }
        Self.close(fd, magic: true)
        fd = -1
    }

    private static func close(_ fd: Int32, magic: Bool) {
        if magic { _ = Glibc.write(fd, "V", 1) }
        Glibc.close(fd)
    }
}

/// When a watchdog of `timeout` seconds is fed: every quarter of it, so a slow frame or two
/// never comes near the reset.
struct FeedSchedule: Equatable {
    let timeout: Double
    private(set) var lastFed = -Double.infinity

    init(timeout: Double) { self.timeout = timeout }

    var interval: Double { timeout / 4 }
    func isDue(now: Double) -> Bool { now - lastFed >= interval }
    func until(now: Double) -> Double { max(0, lastFed + interval - now) }
    mutating func fed(at now: Double) { lastFed = now }
}

/// A small file in /run that another process waits on (`[update] ready_file`, `busy_file`):
/// written whole under a temporary name and renamed into place, so a reader sees the old content
/// or the new, never half; removed when the state it stands for ends.
struct StateFile {
    let path: String

    func write(_ text: String) throws(SystemCallError) {
        let tmp = path + ".tmp"
        var fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT {
            // /run/inkkiosk on the appliance: /run is a fresh tmpfs at every boot.
            let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            if !parent.isEmpty && mkdir(parent, 0o755) == 0 { fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        }
        try SystemCallError.check(fd, "create", path: tmp)
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let writeErrno = errno
        Glibc.close(fd)
        guard written == bytes.count else {
            unlink(tmp)
            throw SystemCallError("write", path: tmp, errno: written < 0 ? writeErrno : ENOSPC)
        }
        guard rename(tmp, path) == 0 else {
            let failure = SystemCallError("rename \(tmp) to", path: path)
            unlink(tmp)
            throw failure
        }
    }

    func remove() throws(SystemCallError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw SystemCallError("remove", path: path) }
    }
}

/// The busy file (`[update] busy_file`): present, holding why, while the screen has a session an
/// update must not cut (a signature being asked for or drawn, a capture or a save being written);
/// absent otherwise. Only a change touches the file; a failure is reported once, and the file is
/// tried again at the next change of state (nothing here may stop the ink).
struct BusyMarker {
    let file: StateFile
    /// The state last asked for (nil: idle); each change is tried once.
    private(set) var wanted: String?

    init(path: String) throws(SystemCallError) {
        file = StateFile(path: path)
        try file.remove()   // a file left by the last run (a crash) says nothing about this one
    }

    /// Brings the file in line with `reason` (nil: idle) when it changed; the error to log, if it failed.
    mutating func update(_ reason: String?) -> SystemCallError? {
        guard reason != wanted else { return nil }
        wanted = reason
        do {
            if let reason { try file.write(reason + "\n") } else { try file.remove() }
            return nil
        } catch {
            return error
        }
    }
}
