// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import Logging
import InkCore

/// systemd's notify protocol (sd_notify(3)): `KEY=value` lines in one datagram to the unix
/// socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). Sent
/// without blocking and without retries: the ink never waits for the service manager, and a
/// kiosk started by hand (no socket) simply sends nothing.
final class ServiceNotifier {
    private let fd: Int32
    private var address = sockaddr_un()
    private let addressLength: socklen_t
    /// The watchdog's interval (`$WATCHDOG_USEC`), when systemd watches this process.
    let watchdogInterval: Double?
    private var lastPing = -Double.infinity
    private var failed = false
    private let log: Logger

    init?(environment: [String: String] = ProcessInfo.processInfo.environment, log: Logger = Logger(label: "inkkiosk.service")) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty,
              path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { log.warning("NOTIFY_SOCKET: socket: \(Errno.describe(errno))"); return nil }
        self.log = log
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }   // the abstract namespace
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        // The watchdog is ours only if it names this process (or no process at all).
        if let usec = environment["WATCHDOG_USEC"].flatMap(Double.init), usec > 0,
           environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true {
            watchdogInterval = usec / 1e6
        } else {
            watchdogInterval = nil
        }
    }

    deinit { close(fd) }

    /// Sends `lines` as one message (e.g. ["READY=1", "STATUS=…"]).
    func send(_ lines: [String]) {
        let message = Array(lines.joined(separator: "\n").utf8)
        let sent = withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, message, message.count, Int32(MSG_NOSIGNAL), $0, addressLength)
            }
        }
        if sent < 0 && !failed {
            failed = true   // said once: a missing manager must not flood the log
            log.warning("cannot notify the service manager: \(Errno.describe(errno))")
        } else if sent >= 0 {
            failed = false
        }
    }

    /// Seconds until the next watchdog ping is due (nil: no watchdog).
    func untilPing(now: Double) -> Double? {
        watchdogInterval.map { max(0, lastPing + $0 / 4 - now) }
    }

    /// Pings the watchdog if a quarter of its interval has passed: systemd asks for at least
    /// one ping every half interval; a quarter leaves room for a slow frame. Called by the
    /// event loop itself, so a loop that hangs stops pinging.
    func pingIfDue(now: Double) {
        guard let interval = watchdogInterval, now - lastPing >= interval / 4 else { return }
        lastPing = now
        send(["WATCHDOG=1"])
    }
}

/// Says when the screen has caught up with the input: once the kiosk has been quiet for a
/// moment after working, one status line tells what is on screen and the kernel time of the
/// newest input it shows. A burst of drawing sends one line, not one per frame.
struct IdleStatus {
    /// How long the kiosk must have been quiet.
    var quiet = 0.05
    private(set) var dueAt: Double?

    /// Something happened (input, a frame, a request): the next status waits for quiet again.
    mutating func activity(at now: Double) { dueAt = now + quiet }

    /// Seconds until a status may be due (nil: none pending).
    func until(now: Double) -> Double? { dueAt.map { max(0, $0 - now) } }

    /// True once when the quiet moment has passed.
    mutating func takeDue(now: Double) -> Bool {
        guard let dueAt, now >= dueAt else { return false }
        self.dueAt = nil
        return true
    }
}
